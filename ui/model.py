"""The render model: a list of everything a frame shows, kept beside the pixels.

Tests (and an auditor) can ask what is on the screen without reading pixels: which
strings were written, which card faces and card backs were drawn, in which region. The
renderer replaces a region's entries whenever it redraws that region, so the model
always describes the current frame, not the history of frames.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pygame

Box = tuple[int, int, int, int]  # left, top, width, height in pixels


@dataclass(frozen=True)
class Drawn:
    """One thing on the screen: ``kind`` is text, line (one line of a wrapped text, as
    drawn), card, card-back, lammer, chip, badge (a hand's result or BINGO! tag),
    spot-tag (a side wager's result), key (a key cap on a lit button), marker (the
    keyboard's seat, a seat closed by the slot system), closed (that seat's CLOSED tag) or
    row (a paytable row, ``hand\todds``, around its lines); ``rect``
    is where it was drawn, so a test can check that two things do not cover each other,
    measure a line, or read a row's lines in order."""

    region: str
    kind: str
    value: str
    rect: Box | None = field(default=None, compare=False)


class RenderModel:
    """What the current frame shows, by region."""

    def __init__(self) -> None:
        self._regions: dict[str, list[Drawn]] = {}

    def reset(self, region: str) -> None:
        self._regions[region] = []

    def drop(self, region: str) -> None:
        self._regions.pop(region, None)

    def add(self, region: str, kind: str, value: str, rect: pygame.Rect | None = None) -> None:
        box = None if rect is None else (rect.left, rect.top, rect.width, rect.height)
        self._regions.setdefault(region, []).append(Drawn(region, kind, value, box))

    def clear(self) -> None:
        self._regions.clear()

    def __iter__(self) -> Iterator[Drawn]:
        for items in list(self._regions.values()):
            yield from items

    def texts(self, region: str | None = None) -> list[str]:
        return [d.value for d in self if d.kind == "text" and region in (None, d.region)]

    def cards(self, region: str | None = None) -> list[str]:
        """Faces drawn (card codes); backs appear as ``"back"``."""
        return [
            d.value if d.kind == "card" else "back"
            for d in self
            if d.kind in ("card", "card-back") and region in (None, d.region)
        ]

    def of_kind(self, kind: str, region: str | None = None) -> list[Drawn]:
        return [d for d in self if d.kind == kind and region in (None, d.region)]

    def regions(self) -> list[str]:
        return list(self._regions)
