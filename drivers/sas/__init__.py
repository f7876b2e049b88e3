"""The SAS gaming-machine link: each seat a gaming machine a casino slot system polls
(docs/sas.md). crc, framing (message boundaries), ports (UART with the wakeup bit, pty),
link (the thread answering polls), host (the simulated host)."""
