"""The table service (``etg run``): power-up, the devices and channels it starts, the
screen's bridge, systemd's notifications, and the bench's auto-players."""
