"""Game recall: the last rounds as the journal recorded them.

A round record is written when a round is settled or voided (see the controller). For the
attendant's ``etg recall`` it is shown in full; for the recall screen at the table it is
turned back into a public view, where a hole card that was never revealed (a voided round)
stays face down.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from collections.abc import Mapping
from typing import Any, cast

from etgcore.money import dollars
from etgcore.view import DealerView, LimitsView, PublicView
from firmware.journal import Journal, Record


def _with_time(r: Record) -> dict[str, Any]:
    body = dict(r.body)
    body["ended"] = dt.datetime.fromtimestamp(r.ts_ns / 1e9, tz=dt.UTC).isoformat(
        timespec="milliseconds")
    return body


def recent_rounds(journal: Journal, n: int) -> list[dict[str, Any]]:
    """The last ``n`` round records, oldest first, each with its time (no inputs)."""
    return [_with_time(r) for r in deque(journal.records(kinds=["round"]), maxlen=n)]


def last_rounds(journal: Journal, n: int) -> list[dict[str, Any]]:
    """The last ``n`` round records, oldest first, each with its time and inputs."""
    rounds = deque(journal.records(kinds=["round"]), maxlen=n)
    out: list[dict[str, Any]] = []
    for r in rounds:
        body = _with_time(r)
        first = body.get("first_seq")
        if isinstance(first, int):
            body["inputs"] = [
                x.body for x in journal.records(since_seq=first - 1, kinds=["input"])
                if x.seq < r.seq
            ]
        out.append(body)
    return out


def _hand_text(h: Mapping[str, Any]) -> str:
    cards = " ".join(h.get("cards", []))
    bits = [f"{cards} ({h.get('total')})"]
    if h.get("lammer"):
        bits.append("lammer")
    if h.get("double"):
        bits.append(f"double {dollars(h['double'])}")
    if h.get("result"):
        bits.append(str(h["result"]))
    bits.append(f"paid {dollars(h.get('paid', 0))}")
    return ", ".join(bits)


def _input_text(inp: Mapping[str, Any]) -> str:
    """One journaled input as a person reads it: ``wager: seat 1 $5``, ``card: 6D``."""
    kind = inp.get("type")
    if kind == "card":
        return f"card: {inp.get('card')}"
    if kind == "console":
        return f"console: {inp.get('press')}"
    bits = []
    if inp.get("seat") is not None:
        bits.append(f"seat {inp['seat']}")
    if inp.get("hand") is not None:
        bits.append(f"hand {inp['hand']}")
    for k, v in sorted(inp.items()):
        if k in ("type", "record", "seat", "hand") or v is None or v == "":
            continue
        if k == "amount":
            bits.append(dollars(v))
        elif k == "times":
            if v != 1:
                bits.append(f"{v}x")
        elif k in ("action", "name", "code", "press"):
            bits.append(str(v))
        else:
            bits.append(f"{k} {v}")
    return f"{kind}: {' '.join(bits)}".rstrip()


def format_round(rec: Mapping[str, Any]) -> list[str]:
    """A recorded round as text (``etg recall``), every amount in dollars."""
    d = rec.get("dealer") or {}
    lines = [
        f"RECALL round {rec.get('round')} ({rec.get('variant')}) {rec.get('state')} "
        f"ended {rec.get('ended', '')}",
        f"  dealer: {' '.join(d.get('cards', []))} total {d.get('total')}"
        + (" blackjack" if d.get("blackjack") else "") + (" bust" if d.get("bust") else ""),
    ]
    bingo = rec.get("bingo")
    if bingo:
        lines.append(f"  bingo: target {bingo.get('target')} multiplier {bingo.get('multiplier')}")
    for s in rec.get("seats", []):
        stakes = (rec.get("stakes") or {}).get(str(s["seat"]), {})
        staked = ", ".join(f"{k} {dollars(v)}" for k, v in sorted(stakes.items()))
        net = "-" if s.get("net") is None else dollars(s["net"], sign=True)
        lines.append(f"  seat {s['seat']}: net {net}" + (f", staked {staked}" if staked else ""))
        for i, h in enumerate(s.get("hands", []), start=1):  # hands count from 1
            lines.append(f"    hand {i}: {_hand_text(h)}")
    # every input of the round, in order: wagers, the draw, cards, decisions, console
    # presses, faults — also those journaled before a power failure (point of recall:
    # the round can be followed from its first wager to its settlement)
    for x in rec.get("inputs", []):
        lines.append(f"  {_input_text(x.get('input') or {})}  [{x.get('source', '?')}]")
    return lines


def ended_text(rec: Mapping[str, Any]) -> str:
    """When a recorded round ended, in the table's local time, for the recall screen."""
    iso = rec.get("ended")
    if not isinstance(iso, str) or not iso:
        return dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    return dt.datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def recall_view(rec: Mapping[str, Any],
                limits: LimitsView | None = None) -> PublicView:
    """A public view of a recorded round for the recall screen (no unrevealed hole card).

    The seats that played keep their numbers (the screen draws them in their places on a
    table of the recorded size) and the wager limits are the round's own; ``limits`` is
    the fallback for a record written before rounds carried theirs.
    """
    dealer = dict(rec.get("dealer") or {})
    cards = list(dealer.get("cards", []))
    if len(cards) > 1 and not dealer.get("hole_revealed"):
        cards[1] = "??"
        dealer["total"] = None
    dealer["cards"] = cards
    return {
        "schema": 1,
        "variant": rec["variant"],  # every round record has these three
        "title": "",  # a round record does not keep it; the screen's comes from the layout
        "round": rec["round"],
        "phase": rec["state"],
        "expecting": {"kind": "none", "seat": None, "hand": None, "legal": [], "to": None,
                      "why": "recall"},
        # the round record holds the dealer, seats and limits of the view it was made from
        "dealer": cast(DealerView, dealer),
        "seats": list(rec.get("seats", [])),
        "bingo": rec.get("bingo"),
        "tilt": None,
        "limits": cast(LimitsView, dict(rec.get("limits") or limits or {
            "seats": max([int(s["seat"]) for s in rec.get("seats", [])] or [1]),
            "min_wager": 0, "max_wager": 0, "wager_unit": 1})),
        "shoe": {"decks": 0, "cards_dealt": 0, "cut_card_seen": False, "needs_new_shoe": False},
    }
