"""The renderer: (public view, layout, screen state, time) -> pixels and dirty rectangles.

Why it is built this way: a 1920x1080 frame copy alone costs most of a millisecond, and
a Raspberry Pi 4 has a fraction of this machine's speed. So the felt, inscriptions,
paytables and betting areas are drawn once into a cached static layer, and the table is
split into regions (the dealer, the Bingo display, each seat, the status line, the
screen overlay). Each region has a key: everything its pixels depend on (the view's own
dicts where they are the view's part, compared by equality: a published view never
changes, which a controller test checks). A frame
redraws only the regions whose key changed (restoring the felt under them from the
cache) and returns their rectangles for ``pygame.display.update``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import pygame

from etgcore.view import PublicView, SeatView
from ui import palette, paytables
from ui.bingo import REVEAL_S, paint_bingo
from ui.cards import CardArt
from ui.dealer import paint_dealer
from ui.felt import PaytablePlan, build_static
from ui.fonts import TextCache
from ui.geometry import SeatGeometry, TableGeometry, build_geometry
from ui.keys import DEMO_HINT, HELP_HINT, paint_legend
from ui.layout_data import Layout
from ui.model import RenderModel
from ui.painter import Painter
from ui.screens import DIM_SCREENS, overlay_key, overlay_rect, paint_overlay, paint_recall_frame
from ui.seats import (
    SeatContext,
    paint_absent_seat,
    paint_seat,
    paint_turn_frame,
    spot_tag_height,
    turn_frame_ring,
)
from ui.state import OPAQUE_SCREENS, ScreenState, resolve_screen
from ui.status import paint_status
from ui.units import Metrics

View = PublicView
_DIM = (128, 128, 128)  # multiplies the table's colours by 1/2 behind a modal screen
#: Screens on which any change redraws everything (rare, not worth region bookkeeping).
FULL_SCREENS = frozenset({"recall", "failure", "attendant"})
PAYTABLE_PAGE_S = 6.0  # a small screen shows its paytables a page at a time

Paint = Callable[[pygame.Surface], None]


class Renderer:
    """Draws public views of one layout at one size, redrawing only what changed."""

    def __init__(self, size: tuple[int, int], layout: Layout, animate: bool = True) -> None:
        self.metrics = Metrics(*size)
        self.layout = layout
        self.animate = animate
        self.model = RenderModel()
        self.painter = Painter(self.metrics, TextCache(), CardArt(TextCache()), self.model)
        self.buttons: list[tuple[pygame.Rect, int, str]] = []
        self._static: pygame.Surface | None = None
        self._static_key: tuple[Any, ...] | None = None
        self._paytables: PaytablePlan | None = None
        self._geom: TableGeometry | None = None
        self._keys: dict[str, Any] = {}
        self._frame_key: tuple[Any, ...] | None = None
        self._bingo_seen: tuple[Any, float] | None = None
        #: per seat region, the pixels under its turn frame as its last paint left them
        self._rings: dict[str, list[tuple[pygame.Rect, pygame.Surface]]] = {}
        #: per region rectangle, the static layer under it as a surface of its own (_restore)
        self._pieces: dict[tuple[int, int, int, int], pygame.Surface] = {}
        self.full_redraws = 0
        self.frame_redraws = 0  # turn frames redrawn on their own (_turn_frame)

    # -- caches -------------------------------------------------------------------------
    def invalidate(self) -> None:
        """Forget what is on the target surface (e.g. a new window): next frame is full."""
        self._frame_key = None
        self._keys.clear()

    def _ensure_static(self, view: View | None) -> TableGeometry:
        limits: dict[str, Any] = dict((view.get("limits") if view else None) or {})
        seats = int(limits.get("seats") or self.layout.max_seats)
        seats = min(seats, self.layout.max_seats)
        bingo = self.layout.draw_panel or bool(
            view.get("bingo") if view else None)
        key = (self.layout.key, seats, repr(sorted(limits.items())), bingo)
        if self._static is None or self._geom is None or key != self._static_key:
            self._geom = build_geometry(self.metrics, seats, list(self.layout.betting_areas),
                                        bingo, spot_tag_height(self.painter))
            self._static, self._paytables = build_static(self.painter, self._geom, self.layout,
                                                         limits)
            self._static_key = key
            self._pieces.clear()
            self.invalidate()
        return self._geom

    @property
    def geometry(self) -> TableGeometry | None:
        return self._geom

    # -- regions ------------------------------------------------------------------------
    def _bingo_progress(self, view: View, t: float) -> float:
        bingo: Mapping[str, Any] = view.get("bingo") or {}
        drawn = (view.get("round"), bingo.get("target"), bingo.get("multiplier"))
        if bingo.get("target") is None:
            self._bingo_seen = None
            return 1.0
        if not self.animate:
            return 1.0
        if self._bingo_seen is None or self._bingo_seen[0] != drawn:
            self._bingo_seen = (drawn, t)
        return min(1.0, (t - self._bingo_seen[1]) / REVEAL_S)

    def _regions(self, g: TableGeometry, view: View | None, t: float,
                 state: ScreenState) -> list[tuple[str, pygame.Rect, Any, Paint]]:
        p = self.painter
        out: list[tuple[str, pygame.Rect, Any, Paint]] = []
        plan = self._paytables
        if plan is not None and plan.paged:
            n = len(plan.pages)
            page = int(t / PAYTABLE_PAGE_S) % n if self.animate else 0
            page = paytables.page_showing_draw(plan.pages, view, page)
            px, placed = plan.pages[page]
            for b, box in enumerate(plan.boxes):
                rect = box.copy()
                if b == 0:  # the first box lost a line at its foot to "page k/n"
                    rect.height += self.painter.texts.font(self.metrics.font(16)).get_linesize()
                out.append((f"paytables-{b}", rect, (page, n),
                            self._page_painter(rect, box, px, placed[b], page if b == 0 else -1,
                                               n)))

        if not view:
            return out
        dealer = view.get("dealer")
        out.append(("dealer", g.dealer, dealer,
                    lambda s: paint_dealer(p, s, g.dealer, dealer)))
        if g.bingo is not None:
            bingo = view.get("bingo")
            phase = str(view.get("phase"))
            hit = any(h.get("bingo_hit") for st in view.get("seats") or []
                      for h in st.get("hands") or [])
            prog = self._bingo_progress(view, t)
            q = round(prog * 60)
            rect = g.bingo
            out.append(("bingo", rect, (repr(bingo), phase, hit, q),
                        lambda s: paint_bingo(p, s, rect, bingo, phase, q / 60, hit)))
        expecting: Mapping[str, Any] = view.get("expecting") or {}
        bingo_now = view.get("bingo")
        target = bingo_now.get("target") if bingo_now else None
        dealer_bj = (dealer or {}).get("blackjack")
        by_seat = {st.get("seat"): st for st in view.get("seats") or []}
        for seat, sg in g.seats.items():
            st = by_seat.get(seat)
            if st is None:  # not in this view: a seat that did not play a recalled round
                out.append((f"seat-{seat}", sg.rect, "absent", self._absent_painter(sg)))
                continue
            mine = expecting.get("seat") == seat
            ctx = SeatContext(expecting, dealer_bj, selected=state.selected_seat == seat,
                              closed=seat in state.closed_seats)
            turn = mine and expecting.get("kind") == "decision"
            # (what the column shows, its turn frame): a change of the frame alone is
            # redrawn in the frame's ring only (_turn_frame)
            key = ((st, expecting.get("hand") if turn else None, turn, target, dealer_bj,
                    ctx.selected, ctx.closed), mine)
            name = f"seat-{seat}"
            out.append((name, sg.rect, key, self._seat_painter(name, sg, st, ctx, mine)))
        keys = state.panel_keys
        hint = ((DEMO_HINT if state.next_game else HELP_HINT)
                if state.key_legend and not state.legend_shown else "")

        pending = state.pending_double

        def status(s: pygame.Surface) -> None:
            self.buttons = paint_status(p, s, g.status, view, dict(keys), hint, pending)

        out.append(("status", g.status,
                    (expecting, view.get("round"), view.get("shoe"), keys, hint,
                     tuple(sorted(pending.items())) if pending else None), status))
        return out

    def _seat_painter(self, name: str, sg: SeatGeometry, seat: SeatView,
                      ctx: SeatContext, framed: bool) -> Paint:
        def paint(s: pygame.Surface) -> None:
            paint_seat(self.painter, s, sg, seat, ctx, frame=False)
            self._rings[name] = [(r, s.subsurface(r).copy())
                                 for r in turn_frame_ring(self.painter, sg)]
            if framed:
                paint_turn_frame(self.painter, s, sg)

        return paint

    def _absent_painter(self, sg: SeatGeometry) -> Paint:
        def paint(s: pygame.Surface) -> None:
            paint_absent_seat(self.painter, s, sg)

        return paint

    def _turn_frame(self, name: str, surf: pygame.Surface, framed: bool,
                    dim: bool) -> list[pygame.Rect]:
        """Only the seat's turn frame came or went (the next card's seat while dealing):
        the pixels under the frame as the seat's last paint left them, then the frame,
        so the rest of the column is not redrawn. The same pixels as a full redraw: the
        frame is drawn last and only inside its ring."""
        sg = self._geom.seats[int(name[5:])] if self._geom is not None else None
        ring = self._rings.get(name)
        if sg is None or ring is None:
            return []
        self.frame_redraws += 1
        for rect, pixels in ring:
            surf.blit(pixels, rect)
        if framed:
            clip = surf.get_clip()
            surf.set_clip(sg.rect)
            paint_turn_frame(self.painter, surf, sg)
            surf.set_clip(clip)
        if dim:
            for rect, _pixels in ring:
                surf.fill(_DIM, rect, special_flags=pygame.BLEND_RGB_MULT)
        return [rect for rect, _pixels in ring]

    def _page_painter(self, rect: pygame.Rect, box: pygame.Rect, px: int,
                      placed: list[paytables.Placed], page: int, pages: int) -> Paint:
        def paint(s: pygame.Surface) -> None:
            paytables.draw_box(self.painter, s, box, px, placed)
            if page >= 0:
                self.painter.text(s, f"paytables {page + 1}/{pages}", self.metrics.font(16),
                                  palette.MUTED, rect.bottomright, "bottomright")

        return paint

    # -- frames -------------------------------------------------------------------------
    def render(self, surf: pygame.Surface, view: View | None, state: ScreenState | None = None,
               t: float = 0.0) -> list[pygame.Rect]:
        """Bring ``surf`` up to date; returns the rectangles that changed."""
        state = state or ScreenState()
        screen = resolve_screen(view, state)
        shown = view
        if screen == "recall":
            idx = max(0, min(state.recall_index, len(state.recall) - 1))
            shown = state.recall[idx].view
        g = self._ensure_static(shown)
        assert self._static is not None
        dim = screen in DIM_SCREENS
        legend = state.key_legend if state.legend_shown else ()
        if screen == "recall":  # a past round: no keyboard mark, key caps or closing
            state = replace(state, selected_seat=None, panel_keys=(), closed_seats=())
        regions = [] if screen in OPAQUE_SCREENS else self._regions(g, shown, t, state)
        o_rect = overlay_rect(screen, g)
        o_key = overlay_key(screen, shown, self.layout, state, t, self.animate)
        frame_key = (screen, dim, o_rect and tuple(o_rect), surf.get_size(), bool(legend))
        keys = {name: key for name, _r, key, _p in regions}
        # the key help lies over everything: while it is up, a change redraws it all
        full = frame_key != self._frame_key or (
            (screen in FULL_SCREENS or legend)
            and (keys != self._keys or o_key != self._keys.get("@o"))
        )
        if full:
            self._full(surf, screen, dim, g, shown, state, t, regions)
            self._legend(surf, legend)
            self._keys = dict(keys)
            self._keys["@o"] = o_key
            self._frame_key = frame_key
            return [surf.get_rect()]
        dirty: list[pygame.Rect] = []
        overlay_dirty = o_key != self._keys.get("@o")
        todo = [r for r in regions if keys[r[0]] != self._keys.get(r[0])]
        if overlay_dirty and o_rect is not None:
            todo_names = {r[0] for r in todo}
            todo += [r for r in regions if r[0] not in todo_names and r[1].colliderect(o_rect)]
        # under a new overlay a column is redrawn whole (the overlay goes over fresh pixels)
        framed = [r for r in todo if self._frame_only(r[0], r[2])
                  and not (overlay_dirty and o_rect is not None and r[1].colliderect(o_rect))]
        todo = [r for r in todo if r[0] not in {f[0] for f in framed}]
        for name, rect, key, _paint in framed:
            dirty += self._turn_frame(name, surf, key[1], dim)
            self._keys[name] = key
            if o_rect is not None and rect.colliderect(o_rect):
                overlay_dirty = True
        for name, rect, key, paint in todo:
            self._restore(surf, rect)
            clip = surf.get_clip()
            surf.set_clip(rect)
            self._paint(name, paint, surf)
            if dim:
                surf.fill(_DIM, rect, special_flags=pygame.BLEND_RGB_MULT)
            surf.set_clip(clip)
            self._keys[name] = key
            dirty.append(rect)
            if o_rect is not None and rect.colliderect(o_rect):
                overlay_dirty = True
        for name in [n for n in self._keys if n not in keys and n != "@o"]:
            # a region that went away (a seat left the view): give the felt back
            gone = self._region_rect(g, name)
            if gone is not None:
                self._restore(surf, gone)
                if dim:
                    surf.fill(_DIM, gone, special_flags=pygame.BLEND_RGB_MULT)
                dirty.append(gone)
            self.model.drop(name)
            self._rings.pop(name, None)
            del self._keys[name]
        if overlay_dirty and o_rect is not None:
            self._paint_overlay(screen, surf, g, shown, state, t)
            self._keys["@o"] = o_key
            dirty.append(o_rect)
        return dirty

    def _full(self, surf: pygame.Surface, screen: str, dim: bool, g: TableGeometry,
              shown: View | None, state: ScreenState, t: float,
              regions: list[tuple[str, pygame.Rect, Any, Paint]]) -> None:
        """Every region onto a fresh copy of the static layer (a screen change)."""
        p = self.painter
        assert self._static is not None
        self.full_redraws += 1
        for name in self.model.regions():
            if name != "static":
                self.model.drop(name)
        self.buttons = []
        surf.blit(self._static, (0, 0))
        for name, rect, _key, paint in regions:
            # clipped exactly as an incremental redraw is, so both give the same pixels
            surf.set_clip(rect)
            self._paint(name, paint, surf)
        surf.set_clip(None)
        if dim:
            surf.fill(_DIM, special_flags=pygame.BLEND_RGB_MULT)
        if screen == "recall":
            p.region = "recall-frame"
            self.model.reset("recall-frame")
            paint_recall_frame(p, surf, g, state)
        self._paint_overlay(screen, surf, g, shown, state, t)

    def _legend(self, surf: pygame.Surface, legend: tuple[tuple[str, str], ...]) -> None:
        """The key help (F1) over the whole frame, last, when it is up."""
        if not legend:
            self.model.drop("legend")
            return
        self.painter.region = "legend"
        self.model.reset("legend")
        paint_legend(self.painter, surf, legend)

    def _restore(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        """The static layer back under ``rect`` (before a region is painted again), from
        a copy of just that area: SDL copies an area of the full-width layer onto the
        same place of the screen several times slower at some columns (seat 7's, at the
        left edge: 380 us against 50 to 70 for the other seats; the dealer's 175 us),
        while the same pixels from a surface of their own take 30 to 55 us."""
        assert self._static is not None
        area = rect.clip(self._static.get_rect())
        key = (area.x, area.y, area.w, area.h)
        piece = self._pieces.get(key)
        if piece is None:
            piece = self._pieces[key] = self._static.subsurface(area).copy()
        surf.blit(piece, area)

    def _frame_only(self, name: str, key: Any) -> bool:
        """A seat whose column shows the same but its turn frame came or went."""
        old = self._keys.get(name)
        return (name.startswith("seat-") and name in self._rings and isinstance(old, tuple)
                and old[0] == key[0] and old[1] != key[1])

    def _region_rect(self, g: TableGeometry, name: str) -> pygame.Rect | None:
        if name.startswith("seat-"):
            sg = g.seats.get(int(name[5:]))
            return sg.rect if sg else None
        if name.startswith("paytables-"):
            return None  # paytable regions never go away while the layout stays
        return {"dealer": g.dealer, "bingo": g.bingo, "status": g.status}.get(name)

    def _paint(self, name: str, paint: Paint, surf: pygame.Surface) -> None:
        self.painter.region = name
        self.model.reset(name)
        paint(surf)

    def _paint_overlay(self, screen: str, surf: pygame.Surface, g: TableGeometry,
                       view: View | None, state: ScreenState, t: float) -> None:
        self.painter.region = "overlay"
        self.model.reset("overlay")
        paint_overlay(self.painter, surf, screen, g, view, self.layout, state, t, self.animate)

    def hit(self, pos: tuple[int, int]) -> tuple[int, str] | None:
        """The (seat, decision) of the lit button at ``pos``, if any (touch screens)."""
        for rect, seat, decision in self.buttons:
            if rect.collidepoint(pos):
                return seat, decision
        return None


def new_surface(size: tuple[int, int]) -> pygame.Surface:
    """An off-screen frame (headless snapshots, benchmarks)."""
    surf = pygame.Surface(size)
    surf.fill(palette.BLACK)
    return surf

