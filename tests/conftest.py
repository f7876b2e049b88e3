"""Test-wide settings: no display, no audio, and the shared test helpers importable
(``from waiting import wait_for`` in any area)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

# Ctrl-C as a terminal sends it: several tests interrupt a command they started and check
# it stops cleanly. A suite started in the background by a script (``make test &``,
# nohup, a CI runner's job) inherits SIGINT *ignored*, an ignored signal stays ignored
# across exec, and Python then installs no KeyboardInterrupt handler in the commands
# either: every such test would time out. Taking SIGINT again here gives the commands
# the disposition a terminal's would have (a handler does not survive exec; SIG_DFL does).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
