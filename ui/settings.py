"""The display's settings (``[display]`` of the table configuration), owned by the UI.

The table's configuration only assembles these; the runner takes a
:class:`DisplaySettings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from etgcore.config_schema import doc, ranged


@dataclass(frozen=True)
class DisplaySettings:
    enabled: bool = field(default=True, metadata=doc("open a window (false: headless)"))
    width: int = field(default=1280, metadata=ranged(320, 7680, "window width in pixels"))
    height: int = field(default=720, metadata=ranged(240, 4320, "window height in pixels"))
    fullscreen: bool = field(default=False, metadata=doc("kiosk: take the whole screen"))
    fps: int = field(default=60, metadata=ranged(1, 240, "frames per second"))
