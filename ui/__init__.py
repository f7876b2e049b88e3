"""The table display: pygame rendering of public views, screens, headless snapshots.

It draws what the engine's public view says and sends button events; it decides no game
logic and never receives the private view. See docs/ui.md.
"""

import os

# pygame prints a banner on import unless told not to; the firmware logs, it does not chat.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
