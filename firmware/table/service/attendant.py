"""The attendant screen's pages: meters, last events, configuration, as the table shows them.

Behind the attendant key (the console's RECALL key switch, held) a commercial table shows
on its own display what ``etg recall``, ``etg meters`` and ``etg events`` print: the last
rounds (game recall, the first page, drawn from the recall records), the meters of the
table and of every seat under § 605a.5's names, the last events, and the configuration in
force. While the key is held, DEAL steps to the next page (the controller counts the
presses and does not take DEAL as an input then).

Everything here is read from the journal (the one record of the table) and the
configuration, and turned into plain rows of text, so the UI only draws them
(:class:`etgcore.view.AttendantPage`). The pages are read once, when the key is turned:
bounded work (the meters table, the last events by index, the settings), never a scan of
the journal. Nothing secret is on a page: no RNG state, seed or key, no key or
certificate path (the configuration lists none of them), and no card: an event's body is
shown only through :data:`EVENT_FIELDS` (never the shoe's raw frame, which can carry the
hole card while a round is in play) and every card code left in a text is blotted out.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any

from etgcore.cards import RANKS, SUITS
from etgcore.money import dollars
from etgcore.view import AttendantPage
from firmware.journal import EventCode, Journal
from firmware.journal.meters import balance_problem

#: § 605a.5(d)'s meter names (and the table's own where the section has none), row by row,
#: with the journal's meter behind each (firmware/journal/meters.py)
METERS: tuple[tuple[str, str], ...] = (
    ("games_played", "Games played"),
    ("games_voided", "Games voided"),
    ("wagered", "Coin in"),
    ("paid", "Coin out"),
    ("credits_in", "Credits transferred in by the attendant"),
    ("credits_out", "Attendant paid cancelled credits"),
    ("credits", "Credits on the seat"),
)
COUNTS = frozenset({"games_played", "games_voided"})
METERS_NOTE = ("Coin in: every wager of settled rounds. Coin out: everything paid back, wagers "
               "included. Attendant paid jackpots: none (the table pays every win).")
#: events on the events page, newest first
EVENTS_SHOWN = 14
#: the event body fields the events page shows (every other field: `etg events`)
EVENT_FIELDS = ("code", "cause", "detail", "reason", "where", "seat", "cents", "times",
                "escalated", "decks", "phase", "during", "error", "command", "version")
#: rows a page holds at most; a longer list goes on over more pages
PAGE_ROWS = 16
_CARD = re.compile(rf"(?<![A-Za-z0-9])[{RANKS}][{SUITS}](?![A-Za-z0-9])")
_MONEY_SETTINGS = frozenset({"min_wager", "max_wager", "wager_unit", "max_payout_per_round"})


def page(title: str, columns: list[str], rows: list[list[str]], note: str = ""
         ) -> AttendantPage:
    return {"title": title, "columns": columns, "rows": rows, "note": note}


def paged(title: str, columns: list[str], rows: list[list[str]], note: str = ""
          ) -> list[AttendantPage]:
    """``rows`` over as many pages as they need, titled "(k/n)" when more than one."""
    chunks = [rows[i:i + PAGE_ROWS] for i in range(0, len(rows), PAGE_ROWS)] or [[]]
    n = len(chunks)
    return [page(f"{title} ({k}/{n})" if n > 1 else title, columns, chunk, note)
            for k, chunk in enumerate(chunks, start=1)]


def no_cards(text: str) -> str:
    """``text`` with every card code blotted out (a card is never on this screen)."""
    return _CARD.sub("··", text)


def meters_page(journal: Journal, seats: int) -> AttendantPage:
    """The table's meters and each seat's (§ 605a.5(d)), one row a meter."""
    raw = journal.meters()

    def cell(name: str, seat: int) -> str:
        v = int(raw.get((name, seat, ""), 0))
        return f"{v:,}" if name in COUNTS else dollars(v, exact=True)

    rows = [[label, *(cell(name, s) for s in range(seats + 1))] for name, label in METERS]
    problem = balance_problem(raw)
    balance = ("The meters balance: credits = transferred in - cancelled - coin in + coin out."
               if problem is None else f"ATTENTION: {problem}.")
    return page("Meters (§ 605a.5)", ["meter", "Table", *(f"Seat {s}" for s in
                                                          range(1, seats + 1))],
                rows, f"{balance} {METERS_NOTE}")


def wager_meters_page(journal: Journal) -> AttendantPage:
    """Coin in and coin out of the table by wager kind (the Blackjack wager, a double,
    insurance, an optional wager...), and what the table kept of each."""
    raw = journal.meters()
    kinds = sorted({w for (n, s, w) in raw if w and s == 0 and n in ("wagered", "paid")})

    def m(name: str, kind: str) -> int:
        return int(raw.get((name, 0, kind), 0))

    rows = [[kind, dollars(m("wagered", kind), exact=True), dollars(m("paid", kind), exact=True),
             dollars(m("wagered", kind) - m("paid", kind), exact=True)] for kind in kinds]
    return page("Meters by wager (table)", ["wager", "Coin in", "Coin out", "Kept"], rows,
                "A split hand is a Blackjack wager. Kept: coin in - coin out of the kind "
                "(below zero where the table pays without a stake: Free Bet's free doubles, "
                "splits)")


def event_row(ts_ns: int, code: int | None, round_no: int | None,
              body: Mapping[str, Any]) -> list[str]:
    """One event as the events page shows it: time, code, name, round, the shown fields."""
    try:
        label = EventCode(code).label if code is not None else "-"
    except ValueError:
        label = "unknown"
    when = dt.datetime.fromtimestamp(ts_ns / 1e9).strftime("%Y-%m-%d %H:%M:%S")
    shown = [f"{k}={_field(k, body[k])}" for k in EVENT_FIELDS if k in body]
    detail = no_cards(", ".join(shown))
    if len(detail) > 90:
        detail = detail[:89] + "…"
    return [when, "" if code is None else str(code), label,
            "" if round_no is None else str(round_no), detail]


def _field(key: str, value: Any) -> str:
    """An event field as read on the screen: amounts in dollars, the rest as written."""
    if key == "cents" and isinstance(value, int) and not isinstance(value, bool):
        return dollars(value, exact=True)
    return str(value)


def events_page(journal: Journal) -> AttendantPage:
    """The last events of the journal, newest first (what ``etg events`` prints)."""
    newest = islice(journal.records(kinds=["event"], newest_first=True), EVENTS_SHOWN)
    rows = [event_row(r.ts_ns, r.code, r.round_no, r.body) for r in newest]
    return page("Last events", ["time", "code", "event", "round", "detail"], rows,
                "every event and all its fields: etg events")


def _no_userinfo(address: str) -> str:
    """``address`` without a URL's user and password (``mqtt://u:p@host:1883`` -> host:1883,
    a scheme kept where there is no user: ``rfc2217://host:4000``)."""
    if "@" not in address:
        return address
    return address.rsplit("@", 1)[-1]


def _broker_host(broker: str) -> str:
    """The floor broker's host and port only (a URL's user and password never shown)."""
    return _no_userinfo(broker) if broker else "none (an island table)"


def configuration_rows(cfg: Any, rules: Any, version: str = "") -> list[list[str]]:
    """The configuration in force: the table's settings and every rule setting."""
    t = cfg.table
    rows = [["game", f"{rules.title} ({rules.variant}), {rules.game.get('regulation', '')}"],
            ["table", f"{t.table_id}, {t.seats} seats, {t.mode} mode"],
            ["certificate holder", str(t.certificate_holder)],
            ["software", version or "-"],
            ["configuration file", str(cfg.source)],
            ["configuration fingerprint", _fingerprint(cfg, rules)],
            ["attendant transfer at most", dollars(int(t.max_transfer_cents), exact=True)],
            ["seat credits at most", dollars(int(t.max_seat_credits), exact=True)],
            ["shoe", _no_userinfo(str(cfg.shoe.port))],
            ["panel", str(cfg.panel.backend)],
            ["display", f"{cfg.display.width}x{cfg.display.height}"],
            ["RNG", f"{cfg.rng.mechanism}, entropy {cfg.rng.entropy}"
                    + (", fixed seed (bench)" if cfg.rng.seed_hex else "")]]
    floor = getattr(cfg, "floor", None)
    if floor is not None:
        rows.append(["floor broker", _broker_host(str(floor.broker))])
    for key, value in sorted(rules.to_json()["settings"].items()):
        rows.append([f"rules.{key}", _setting(key, value)])
    return [[no_cards(a), no_cards(b)] for a, b in rows]


def _fingerprint(cfg: Any, rules: Any) -> str:
    """The combined hash of the configuration and rules in force, as the journal records
    it at a start and the pit shows it (deploy.fingerprint); "-" where it cannot be made."""
    from deploy.fingerprint import config_fingerprint

    try:
        return config_fingerprint(cfg, rules.to_json())
    except (TypeError, ValueError, AttributeError):
        return "-"


def _setting(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if key in _MONEY_SETTINGS and isinstance(value, int) and not isinstance(value, bool):
        return dollars(value, exact=True)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, Iterable) and not isinstance(value, str):
        return ", ".join(str(v) for v in value)
    return str(value)


def attendant_pages(journal: Journal, cfg: Any, rules: Any, version: str = ""
                    ) -> list[AttendantPage]:
    """The attendant screen's pages after the game recall: meters, events, configuration."""
    return [meters_page(journal, cfg.table.seats), wager_meters_page(journal),
            events_page(journal),
            *paged("Configuration", ["setting", "value"],
                   configuration_rows(cfg, rules, version))]
