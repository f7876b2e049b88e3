"""The UI runner: owns the pygame window in the main thread, talks through a mailbox.

SDL wants its window and event loop on the main thread, and the table must never wait
for a frame. So the controller (on its own thread) only ever *puts* into a
:class:`UiInbox` — the newest public view replaces the previous one, control messages
queue — which takes a lock for microseconds and never blocks on the UI. The runner
takes what is there once per frame, draws, and hands key presses to the panel's
keyboard backend and touches on lit buttons to a button sink. Nothing here reaches the
shoe, the journal or the engine.

The loop does not tick at a fixed rate: between frames it sleeps on the inbox, which
wakes it the moment a view or message arrives (a card is drawn at once, not at the next
tick). While the picture moves (an animation, a countdown) it draws at ``fps``; when a
frame changed nothing it sleeps up to :data:`IDLE_WAIT_S` between looks at the window's
events, so an idle table draws nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from etgcore.view import PublicView
from ui.errors import UiError
from ui.layout_data import Layout, parse_layout
from ui.state import RECALL_DEPTH, RecallEntry, ScreenState
from ui.status import DECISION_BUTTONS

log = logging.getLogger("etg.ui")

#: The longest the loop sleeps when nothing moves: the window's own events (keys,
#: touches, close) are looked at least this often.
IDLE_WAIT_S = 0.05

KeyHandler = Callable[[Any], bool]           # e.g. KeyboardPanel.handle_event
#: receives (kind "press"/"release", panel button name, seat, clock time): the table's
#: side turns it into the panel driver's event, so the UI needs nothing of the driver
ButtonSink = Callable[[str, str, int, float], None]


class PrivateViewError(UiError, ValueError):
    """Something other than a public view was handed to the UI."""


def check_public(view: PublicView) -> None:
    """Refuse a private view: the UI must never hold the hole card before it is revealed."""
    if "private" in view:
        raise PrivateViewError("the UI takes the public view only (this one has 'private')")
    dealer = view.get("dealer") or {}
    cards = dealer.get("cards") or []
    if len(cards) > 1 and not dealer.get("hole_revealed") and cards[1] != "??":
        raise PrivateViewError("the view shows an unrevealed hole card; send the public view")


class UiInbox:
    """Controller -> UI: the latest public view plus a queue of control messages.

    Messages are plain dicts (they could cross a process boundary as they are):

    - ``{"kind": "betting", "closes_in": seconds}`` — the betting countdown;
    - ``{"kind": "recall", "entries": [{"view": ..., "ended": "..."}], "index": 0}``,
      ``entries`` None to leave recall (RECALL key released);
    - ``{"kind": "failure", "failure": {"kind": "rng"|"journal", "message": ...}}``,
      ``failure`` None when cleared;
    - ``{"kind": "screen", "screen": "attract"}`` — force a screen (e.g. attract after
      an idle time); ``"auto"`` follows the view's phase again;
    - ``{"kind": "panel", "selected": seat, "keys": {"STAND": "S", "DEAL": "Return", ...},
      "legend": [["B", "BET: ..."], ...]}`` — a keyboard panel: the seat its letter keys
      act for (marked), the key of each panel button and console input (on the lit
      buttons and beside the prompts that name them) and the key help F1 shows;
    - ``{"kind": "attendant", "pages": [{"title", "columns", "rows", "note"}], "page": k}``
      — the attendant screen while the attendant key is held (``pages`` None: released);
    - ``{"kind": "pending-double", "double": {"seat": 2, "hand": 1, "times": 3}}`` — a
      1x-4x double being sized on the panel (``double`` None when placed or gone);
    - ``{"kind": "demo", "games": [["blackjack", "Blackjack"], ...], "current": "bingo"}``
      — the window demo (`make run`): F2 leaves the window asking for the next game
      (:attr:`UiWindow.chosen`), Esc leaves it; the key help lists both;
    - ``{"kind": "seats", "closed": [seat, ...]}`` — the seats their slot system
      disabled (SAS shutdown): each is marked at its betting spot until it is enabled;
    - ``{"kind": "layout", "layout": layout_for(...), "certificate_holder": ...}``;
    - ``{"kind": "quit"}``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._view: PublicView | None = None
        self._fresh = False
        self._messages: deque[Mapping[str, Any]] = deque(maxlen=256)
        self._arrived = threading.Event()  # something to take: wakes the UI loop

    def put_view(self, view: PublicView) -> None:
        """Offer a new public view (never blocks; a view not yet drawn is replaced).

        The view is handed over for good: nothing may change it afterwards, because the
        renderer keeps its parts as region keys and compares them with the next view's
        (equality of the dicts is several times cheaper per frame than their repr)."""
        check_public(view)
        with self._lock:
            self._view = view
            self._fresh = True
        self._arrived.set()

    def put(self, message: Mapping[str, Any]) -> None:
        with self._lock:
            self._messages.append(message)
        self._arrived.set()

    def wait(self, timeout: float | None) -> bool:
        """Sleep until something arrives (True) or ``timeout`` seconds pass (False)."""
        return self._arrived.wait(timeout)

    def take(self) -> tuple[PublicView | None, list[Mapping[str, Any]]]:
        """(the new view or None if unchanged, the messages since the last take)."""
        with self._lock:
            self._arrived.clear()
            view = self._view if self._fresh else None
            self._fresh = False
            messages = list(self._messages)
            self._messages.clear()
        return view, messages


class UiWindow:
    """Draws frames from an inbox onto a surface; :meth:`run` owns a real window."""

    def __init__(self, layout: Layout, inbox: UiInbox, size: tuple[int, int] = (1280, 720),
                 fps: int = 60, on_key: KeyHandler | None = None,
                 on_button: ButtonSink | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from ui.renderer import Renderer

        self.inbox = inbox
        self.size = size
        self.fps = fps
        self.on_key = on_key
        self.on_button = on_button
        self.clock = clock
        self.renderer = Renderer(size, layout)
        self.view: PublicView | None = None
        self.state = ScreenState()
        self.running = True
        self.frame_times: deque[float] = deque(maxlen=600)
        #: the window demo's games (variant, title) and the one playing; F2 sets
        #: :attr:`chosen` to the next and closes the window (the table starts it)
        self.games: tuple[tuple[str, str], ...] = ()
        self.game: str | None = None
        self.chosen: str | None = None

    # -- messages -----------------------------------------------------------------------
    def _apply(self, msg: Mapping[str, Any], now: float) -> None:
        kind = msg.get("kind")
        st = self.state
        if kind == "betting":
            left = msg.get("closes_in")
            if isinstance(left, int | float):
                self.state = replace(st, betting_closes_at=now + float(left),
                                     betting_opened_at=now)
            else:
                self.state = replace(st, betting_closes_at=None, betting_opened_at=None)
        elif kind == "recall":
            entries = msg.get("entries")
            if entries:
                recall = tuple(RecallEntry(e["view"], str(e.get("ended", "")))
                               for e in list(entries)[:RECALL_DEPTH])
                self.state = replace(st, screen="recall", recall=recall,
                                     recall_index=int(msg.get("index") or 0))
            else:
                self.state = replace(st, screen="auto", recall=(), recall_index=0)
        elif kind == "screen":
            self.state = replace(st, screen=str(msg.get("screen", "auto")))
        elif kind == "failure":
            self.state = replace(st, failure=msg.get("failure"))
        elif kind == "panel":
            seat = msg.get("selected")
            keys = msg.get("keys") or {}
            legend = msg.get("legend")  # sent once; later messages keep it
            rows = st.key_legend if legend is None else tuple((str(k), str(w))
                                                              for k, w in legend)
            nxt = self.next_game()
            if legend is not None and nxt is not None:
                from ui.keys import demo_legend

                rows += tuple(demo_legend(nxt[1]))
            self.state = replace(st, selected_seat=seat if isinstance(seat, int) else None,
                                 panel_keys=tuple(sorted((str(b), str(k))
                                                         for b, k in keys.items())),
                                 key_legend=rows)
        elif kind == "seats":
            closed = msg.get("closed") or []
            self.state = replace(st, closed_seats=tuple(sorted(
                {s for s in closed if isinstance(s, int) and not isinstance(s, bool)})))
        elif kind == "layout":
            from ui.renderer import Renderer

            layout = parse_layout(msg["layout"], str(msg.get("certificate_holder", "")))
            self.renderer = Renderer(self.size, layout)
        elif kind == "attendant":
            pages = msg.get("pages")
            self.state = replace(st, attendant_pages=tuple(pages or ()),
                                 attendant_page=int(msg.get("page") or 0) if pages else 0)
        elif kind == "pending-double":
            pending = msg.get("double")
            self.state = replace(st, pending_double=dict(pending) if pending else None)
        elif kind == "demo":
            self.games = tuple((str(v), str(t)) for v, t in msg.get("games") or ())
            self.game = str(msg.get("current") or "")
            nxt = self.next_game()
            legend = st.key_legend
            if nxt is not None:
                from ui.keys import GAME_KEY, demo_legend

                legend = tuple(r for r in legend if r[0] not in (GAME_KEY, "Esc"))
                legend += tuple(demo_legend(nxt[1]))
            self.state = replace(st, next_game=nxt[1] if nxt else None, key_legend=legend)
        elif kind == "quit":
            self.running = False
        else:
            log.warning("ui: unknown message %r ignored", kind)

    # -- one frame ----------------------------------------------------------------------
    def step(self, surf: Any, now: float | None = None) -> list[Any]:
        """Take what the inbox holds and bring ``surf`` up to date; the dirty rects."""
        now = self.clock() if now is None else now
        view, messages = self.inbox.take()
        for msg in messages:
            self._apply(msg, now)
        if view is not None:
            self.view = view
            ctl: Any = view.get("controller") or {}
            held = ctl.get("held")
            if held != self.state.held:
                self.state = replace(self.state, held=held if isinstance(held, str) else None)
        t0 = time.perf_counter()
        dirty = self.renderer.render(surf, self.view, self.state, now)
        self.frame_times.append(time.perf_counter() - t0)
        return dirty

    def handle_event(self, event: Any) -> None:
        """Keys to the panel's keyboard backend; a touch on a lit button to the sink."""
        import pygame

        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_F1:
            self.toggle_legend()
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.escape()
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_F2 and self.games:
            self.pick_next_game()
        elif event.type in (pygame.KEYDOWN, pygame.KEYUP):
            if self.on_key is not None:
                self.on_key(event)
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.touch(event.pos)

    def next_game(self) -> tuple[str, str] | None:
        """The demo's game after the one playing (variant, title), or None: no demo."""
        names = [v for v, _t in self.games]
        if len(names) < 2:
            return None
        at = names.index(self.game) if self.game in names else -1
        return self.games[(at + 1) % len(names)]

    def pick_next_game(self) -> str | None:
        """F2 in the demo: close the window asking the table for the next game."""
        nxt = self.next_game()
        if nxt is not None:
            self.chosen = nxt[0]
            self.running = False
        return self.chosen

    def escape(self) -> None:
        """Esc: the key help goes away if it is up; else the demo is left (a table that is
        not a demo is never closed from its keyboard)."""
        if self.state.legend_shown:
            self.state = replace(self.state, legend_shown=False)
        elif self.games:
            self.running = False

    def toggle_legend(self) -> bool:
        """F1: the key help of a keyboard panel comes up, or goes away; True if it is up."""
        if not self.state.key_legend:
            return False  # no keyboard panel: nothing to explain
        self.state = replace(self.state, legend_shown=not self.state.legend_shown)
        return self.state.legend_shown

    def touch(self, pos: tuple[int, int]) -> bool:
        """A press (and release) of the panel button behind a lit on-screen button."""
        hit = self.renderer.hit(pos)
        if hit is None or self.on_button is None:
            return False
        seat, decision = hit
        button = DECISION_BUTTONS.get(decision)
        if button is None:
            return False  # a decision no panel button makes
        t = self.clock()
        self.on_button("press", button, seat, t)
        self.on_button("release", button, seat, t)
        return True

    # -- the window ---------------------------------------------------------------------
    def run(self, fullscreen: bool = False, max_frames: int = 0,
            title: str = "ETG table") -> None:
        """The main-thread loop: until a quit message, the window closes or max_frames."""
        import pygame

        pygame.display.init()
        pygame.font.init()
        flags = pygame.FULLSCREEN if fullscreen else 0
        surf = pygame.display.set_mode(self.size, flags)
        pygame.display.set_caption(title)
        self.renderer.invalidate()
        try:
            self.loop(surf, pygame.display.update, max_frames=max_frames)
        finally:
            pygame.display.quit()

    def loop(self, surf: Any, present: Callable[[list[Any]], None], max_frames: int = 0,
             on_frame: Callable[[], None] | None = None) -> None:
        """Draw frames onto ``surf`` (``present`` shows the dirty rectangles) until a
        quit message or ``max_frames``; ``on_frame`` runs after each frame is shown.

        Between frames it sleeps on the inbox: a new view wakes it at once. After a frame
        that changed pixels the next comes at most one frame period later (animations run
        at ``fps``); after one that changed nothing, up to :data:`IDLE_WAIT_S` later."""
        import pygame

        period = 1.0 / self.fps if self.fps > 0 else 0.0
        frames = 0
        while self.running:
            for event in pygame.event.get():
                self.handle_event(event)
            dirty = self.step(surf)
            if dirty:
                present(dirty)
            if on_frame is not None:
                on_frame()
            frames += 1
            if max_frames and frames >= max_frames:
                break
            self.inbox.wait(period if dirty else max(period, IDLE_WAIT_S))
