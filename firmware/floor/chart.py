"""A table's gaming day as a small chart: drop and win, cumulative, drawn by the server.

An SVG the page embeds (no script, no chart library, nothing fetched from elsewhere):
drop (credits transferred in) and win (coin in − coin out) since the gaming day began,
one point per :data:`~firmware.floor.gaming_day.SLOT_MINUTES` minutes, hold (win ÷ drop)
written beside them.
"""

from __future__ import annotations

from html import escape

from etgcore.money import dollars
from firmware.floor.gaming_day import SLOT_MINUTES, SLOTS

W, H, PAD = 320, 120, 22
DROP, WIN = "#4fc3f7", "#ffd54f"


def _path(points: list[tuple[int, int]], lo: int, hi: int) -> str:
    span = max(hi - lo, 1)
    xy = [(PAD + (W - 2 * PAD) * s / (SLOTS - 1),
           H - PAD - (H - 2 * PAD) * (v - lo) / span) for s, v in points]
    return " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in enumerate(xy))


def day_chart(table: str, day: str, points: list[tuple[int, int, int]],
              start_minutes: int) -> str:
    """``points``: (slot, win, drop) in cents, slots in order."""
    win = [(s, w) for s, w, _d in points]
    drop = [(s, d) for s, _w, d in points]
    values = [v for _s, v in win + drop] + [0]
    lo, hi = min(values), max([*values, 100])
    last_w, last_d = (points[-1][1], points[-1][2]) if points else (0, 0)
    hold = f"{100 * last_w / last_d:.1f} %" if last_d > 0 else "–"
    zero_y = H - PAD - (H - 2 * PAD) * (0 - lo) / max(hi - lo, 1)
    start = f"{start_minutes // 60:02d}:{start_minutes % 60:02d}"
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" role="img" aria-label="gaming day of {escape(table)}">',
        f'<rect width="{W}" height="{H}" fill="#0a1710"/>',
        f'<line x1="{PAD}" y1="{zero_y:.1f}" x2="{W - PAD}" y2="{zero_y:.1f}" '
        'stroke="#456" stroke-dasharray="3,3"/>',
        f'<text x="{PAD}" y="14" fill="#ccc" font-size="11" font-family="sans-serif">'
        f'{escape(day)} from {start} · hold {hold}</text>',
        f'<text x="{PAD}" y="{H - 6}" fill="{DROP}" font-size="11" font-family="sans-serif">'
        f'drop {escape(dollars(last_d))}</text>',
        f'<text x="{W // 2}" y="{H - 6}" fill="{WIN}" font-size="11" '
        f'font-family="sans-serif">win {escape(dollars(last_w))}</text>',
    ]
    for series, color in ((drop, DROP), (win, WIN)):
        if len(series) > 1:
            lines.append(f'<path d="{_path(series, lo, hi)}" fill="none" stroke="{color}" '
                         'stroke-width="2"/>')
        elif series:  # one point so far: a dot
            x, y = _path(series, lo, hi)[1:].split(",")
            lines.append(f'<circle cx="{x}" cy="{y}" r="3" fill="{color}"/>')
    if not points:
        lines.append(f'<text x="{W // 2}" y="{H // 2}" fill="#888" font-size="12" '
                     'text-anchor="middle" font-family="sans-serif">no play yet today</text>')
    lines.append(f"<desc>one point per {SLOT_MINUTES} minutes</desc></svg>")
    return "".join(lines)
