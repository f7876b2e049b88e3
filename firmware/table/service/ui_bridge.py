"""Between the controller and whatever shows the table: a window, or a line per round.

The controller calls :meth:`UiBridge.publish` with every public snapshot and
:meth:`UiBridge.round_done` with every finished round; both only hand data over (the UI's
inbox keeps the newest view), so a slow frame can never hold up a card or a journal write.
With no display (or ``--headless``) the bridge prints one line per round instead.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections import deque
from collections.abc import Mapping
from typing import Any

from etgcore.money import dollars
from etgcore.view import AttendantPage, LimitsView, PublicView
from firmware.engine.layout import layout_for
from firmware.engine.rules import Rules
from firmware.journal import Journal
from firmware.table.settings import TableSetup

log = logging.getLogger("etg.ui")


def display_available() -> bool:
    """A window can be opened: an X or Wayland display, or an explicit SDL video driver."""
    if os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "x11", "wayland", "fbcon"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class UiBridge:
    def __init__(self, cfg: TableSetup, rules: Rules, *, headless: bool, quiet: bool = False,
                 on_failure: Any = None, demo: bool = False):
        self.cfg = cfg
        self.rules = rules
        self.quiet = quiet
        self.has_window = bool(cfg.display.enabled) and not headless and display_available()
        self.alive = True
        self.autoplay: Any = None
        self.on_failure = on_failure
        self.recent: deque[dict[str, Any]] = deque(maxlen=10)
        self._lock = threading.Lock()
        self._runner: Any = None
        self._inbox: Any = None
        self._recall_shown = False
        self._pending_shown: Any = None
        #: the journal the attendant screen reads and the version it shows
        #: (:meth:`attendant_reads`, once the journal is open)
        self.journal: Journal | None = None
        self.version = ""
        self._attendant_shown: int | None = None
        self._attendant_pages: list[AttendantPage] = []
        self._failure_shown: str | None = None
        self._closed_shown = False
        self._seats_closed_shown: list[int] = []
        self._keyboard: Any = None
        self._selected_shown: tuple[int, dict[str, str]] | None = None
        self._followed: int | None = None  # the seat the keyboard was last moved to
        if self.has_window:
            from ui.layout_data import parse_layout
            from ui.window import UiInbox, UiWindow

            layout = parse_layout(layout_for(rules), cfg.table.certificate_holder)
            self._inbox = UiInbox()
            self._runner = UiWindow(
                layout, self._inbox, size=(cfg.display.width, cfg.display.height),
                fps=cfg.display.fps,
            )
            if demo:  # `make run`: F2 picks the next game, Esc leaves (docs/ui.md)
                self._inbox.put({"kind": "demo", "games": demo_games(),
                                 "current": rules.variant})

    def attach_panel(self, panel: Any) -> None:
        """Keyboard panel: the window's key events go to it; touches become presses."""
        if self._runner is None:
            return
        handler = getattr(panel, "handle_event", None)
        if handler is not None:
            self._keyboard = panel

            def keyed(event: Any) -> bool:
                used = bool(handler(event))
                self._show_selected()  # a digit key chose another seat
                return used

            self._runner.on_key = keyed
            self._show_selected()
        deliver = getattr(panel, "deliver", None)
        if deliver is not None:
            from drivers.panel.buttons import PanelReport

            def touched(kind: str, button: str, seat: int, t: float) -> None:
                deliver(PanelReport(kind, button, seat, t))  # type: ignore[arg-type]

            self._runner.on_button = touched

    def _show_selected(self) -> None:
        """The keyboard panel's seat and keys to the UI, when they change (any thread)."""
        panel = self._keyboard
        if panel is None or self._inbox is None:
            return
        shown = (panel.selected, panel.button_keys())
        if shown != self._selected_shown:
            first = self._selected_shown is None
            self._selected_shown = shown
            message = {"kind": "panel", "selected": shown[0], "keys": shown[1]}
            if first:  # the key help does not change: sent once
                message["legend"] = panel.key_legend()
            self._inbox.put(message)

    def _follow(self, view: PublicView) -> None:
        """The keyboard panel follows the seat whose decision the table waits for
        (docs/panel.md, ``select_seat``): when a seat's turn comes, its letter keys act for
        it. Only then: a digit key still chooses another seat until the next turn comes,
        and between rounds (betting) the keys stay on the seat the player chose."""
        panel = self._keyboard
        if panel is None:
            return
        exp = view.get("expecting") or {}
        ctl = view.get("controller")
        pending = ctl["pending_double"] if ctl else None
        seat = pending["seat"] if pending else (
            exp.get("seat") if exp.get("kind") == "decision" else None)
        if isinstance(seat, int) and seat != self._followed:
            panel.select_seat(seat)
        self._followed = seat if isinstance(seat, int) else None

    # -- from the controller's thread -----------------------------------------------------

    def publish(self, view: PublicView) -> None:
        if self.autoplay is not None:
            self.autoplay.offer(view)
        ctl = view.get("controller")
        closed = bool(ctl and ctl["closed"])
        if closed != self._closed_shown:
            self._closed_shown = closed
            if self._inbox is None and not self.quiet:
                print("table closed by the floor" if closed else "table enabled by the floor",
                      flush=True)
        seats_closed = list(ctl["closed_seats"]) if ctl else []
        if seats_closed != self._seats_closed_shown:
            self._seats_closed_shown = seats_closed
            if self._inbox is None and not self.quiet:
                print("seats disabled by the slot system: "
                      + (", ".join(map(str, seats_closed)) or "none"), flush=True)
            elif self._inbox is not None:  # the screen marks each one at its spot
                self._inbox.put({"kind": "seats", "closed": seats_closed})
        if self._inbox is None:
            return
        self._follow(view)
        self._show_selected()  # the keyboard may have moved to the seat whose turn it is
        shown = view.copy()
        shown.pop("controller", None)  # the screen gets the controller's part as messages
        self._inbox.put_view(shown)
        pending = ctl["pending_double"] if ctl else None
        if pending != self._pending_shown:  # the 1x-4x size being chosen (docs/ui.md)
            self._pending_shown = pending
            self._inbox.put({"kind": "pending-double", "double": pending})
        recall = bool(ctl and ctl["recall"])
        if recall != self._recall_shown:
            self._recall_shown = recall
            entries = [{"view": r["view"], "ended": r["ended"]} for r in reversed(self.recent)]
            self._inbox.put({"kind": "recall", "entries": entries if recall else None})
        self._attendant(recall, int(ctl.get("attendant_page", 0)) if ctl else 0)
        failure = ctl["failure"] if ctl else None
        if closed and not failure:
            failure = "The floor has closed this table until it enables it again."
        if failure != self._failure_shown:
            self._failure_shown = failure
            # the controller says which failure it is; none while the floor closes the table
            kind = (ctl["failure_kind"] if ctl else None) or "floor"
            self._inbox.put({"kind": "failure",
                             "failure": {"kind": kind, "message": failure} if failure else None})

    def _attendant(self, held: bool, page: int) -> None:
        """The attendant screen behind the attendant key: its pages read from the journal
        when the key is turned, the page DEAL stepped to while it is held."""
        if self._inbox is None or self.journal is None:
            return
        if not held:
            if self._attendant_shown is not None:
                self._attendant_shown = None
                self._inbox.put({"kind": "attendant", "pages": None, "page": 0})
            return
        if self._attendant_shown is None:  # the key was just turned: read the journal
            self._attendant_pages = self._read_attendant_pages(self.journal)
        if page != self._attendant_shown:
            self._attendant_shown = page
            self._inbox.put({"kind": "attendant", "pages": self._attendant_pages,
                             "page": page})

    def attendant_reads(self, journal: Journal, version: str) -> None:
        """The attendant screen reads ``journal`` and names ``version`` (docs/ui.md)."""
        self.journal, self.version = journal, version

    def _read_attendant_pages(self, journal: Journal) -> list[AttendantPage]:
        """The pages, or one that says why they could not be read (a journal that fails
        to read is the journal's failure to report, not a reason to stop the screen)."""
        from firmware.table.service.attendant import attendant_pages, page

        try:
            return attendant_pages(journal, self.cfg, self.rules, self.version)
        except Exception as exc:
            log.exception("attendant screen: the pages could not be read")
            return [page("Attendant screen", ["problem"], [[f"not readable now: {exc}"[:200]]])]

    def _limits(self) -> LimitsView:
        r = self.rules
        return {"seats": self.cfg.table.seats, "min_wager": r.min_wager,
                "max_wager": r.max_wager, "wager_unit": r.wager_unit}

    def preload(self, records: list[dict[str, Any]]) -> None:
        """The rounds the journal already holds (from ``recall.last_rounds``): RECALL
        after a restart still shows the last rounds played."""
        from firmware.table.recall import ended_text, recall_view

        with self._lock:
            for record in records:
                self.recent.append({"view": recall_view(record, self._limits()),
                                    "ended": ended_text(record)})

    def round_done(self, record: Mapping[str, Any]) -> None:
        from firmware.table.recall import ended_text, recall_view

        with self._lock:
            self.recent.append({"view": recall_view(record, self._limits()),
                                "ended": ended_text(record)})
        if self._inbox is None and not self.quiet:
            print(round_line(dict(record)), flush=True)

    # -- the main thread -------------------------------------------------------------------

    def run_window(self) -> None:
        try:
            self._runner.run(fullscreen=self.cfg.display.fullscreen,
                             title=f"ETG {self.rules.title}")
        except Exception as exc:  # a display failure must not take the table down silently
            log.error("display failure: %s", exc)
            print(f"etg: display failure: {exc}", file=sys.stderr)
            if self.on_failure is not None:
                self.on_failure(str(exc))
        finally:
            self.alive = False

    @property
    def chosen_game(self) -> str | None:
        """The game the window demo asked for with F2 (None: the window was closed)."""
        return getattr(self._runner, "chosen", None)

    def close(self) -> None:
        self.alive = False
        if self._inbox is not None:
            self._inbox.put({"kind": "quit"})


def demo_games() -> list[list[str]]:
    """[variant, title] of every game the demo offers, in the order F2 steps through."""
    from firmware.engine.rules import VARIANTS, read_rules_file

    return [[v, str(read_rules_file(v).game["title"])] for v in VARIANTS]


def show_refusal(cfg: TableSetup, rules: Rules, message: str, *, headless: bool) -> None:
    """A table that refuses to start (its journal) says so on its screen too, until it is
    stopped (SIGTERM) or the window is closed: on the floor nobody reads stderr. Without
    a display this does nothing (the refusal is on stderr and in the system log)."""
    import signal

    try:
        bridge = UiBridge(cfg, rules, headless=headless, quiet=True)
        if not bridge.has_window:
            return
        bridge._inbox.put({"kind": "failure",
                           "failure": {"kind": "journal", "message": message}})
        before = {sig: signal.signal(sig, lambda signum, frame: bridge.close())
                  for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            bridge.run_window()
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)
    except Exception as exc:  # the refusal stands whatever the display does
        log.error("the refusal could not be shown on the display: %s", exc)


def round_line(rec: dict[str, Any]) -> str:
    d = rec.get("dealer") or {}
    dealer = "blackjack" if d.get("blackjack") else (
        "bust" if d.get("bust") else str(d.get("total", "?")))
    seats = "  ".join(
        f"seat {s['seat']} {dollars(s['net'], sign=True)}"
        for s in rec.get("seats", []) if s.get("net") is not None
    )
    bingo = rec.get("bingo") or {}
    extra = f"  bingo {bingo.get('target')}x{bingo.get('multiplier')}" if bingo else ""
    return f"round {rec['round']} {rec['state']}: dealer {dealer}  {seats}{extra}"
