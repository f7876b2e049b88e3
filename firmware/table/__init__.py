"""The table service: controller, journal, commands, timers, tilts and modes."""
