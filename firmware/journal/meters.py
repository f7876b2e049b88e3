"""Meters: what the table has taken and paid, per seat and per wager kind.

The journal keeps meter values keyed ``(name, seat, wager)``; seat 0 and wager ``''``
are the table totals. The controller changes them only together with the round or
credits record that justifies the change, so ``history == meters`` always holds.

Names (integer cents unless said otherwise):

- ``games_played`` (count), ``games_voided`` (count)
- ``wagered``: every stake of settled rounds (coin in, § 605a.5(d)(1))
- ``paid``: everything returned to players by settled rounds, stakes included (coin out,
  § 605a.5(d)(2)); a push returns its stake, a void returns every stake
- ``credits_in`` / ``credits_out``: attendant credit transfers (§ 605a.5 cancelled credits)
- ``credits``: each seat's balance at the last round boundary

Invariant checked by ``etg meters`` and the soak: for every seat and the table,
``credits == credits_in - credits_out - wagered + paid``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

MeterKey = tuple[str, int, str]
MONEY = ("wagered", "paid", "credits_in", "credits_out", "credits")
COUNTS = ("games_played", "games_voided")


def round_deltas(
    seat_stakes: Mapping[int, Mapping[str, int]],
    seat_returns: Mapping[int, Mapping[str, int]],
    *,
    voided: bool,
) -> dict[MeterKey, int]:
    """Meter changes of one finished round from its stakes and returns per seat and kind."""
    d: dict[MeterKey, int] = {}

    def add(key: MeterKey, v: int) -> None:
        if v:
            d[key] = d.get(key, 0) + v

    add(("games_voided" if voided else "games_played", 0, ""), 1)
    for seat, stakes in seat_stakes.items():
        add(("games_voided" if voided else "games_played", seat, ""), 1)
        returns = seat_returns.get(seat, {})
        net = sum(returns.values()) - sum(stakes.values())
        add(("credits", seat, ""), net)
        add(("credits", 0, ""), net)
        if voided:  # a void returns every stake: no game, nothing wagered or paid
            continue
        for kind in set(stakes) | set(returns):
            s, r = stakes.get(kind, 0), returns.get(kind, 0)
            for name, v in (("wagered", s), ("paid", r)):
                add((name, seat, kind), v)
                add((name, seat, ""), v)
                add((name, 0, kind), v)
                add((name, 0, ""), v)
    return d


def credit_deltas(seat: int, cents: int) -> dict[MeterKey, int]:
    """Meter changes of an attendant transfer: positive in, negative out."""
    name = "credits_in" if cents >= 0 else "credits_out"
    v = abs(cents)
    return {
        (name, seat, ""): v,
        (name, 0, ""): v,
        ("credits", seat, ""): cents,
        ("credits", 0, ""): cents,
    }


def summarize(raw: Mapping[MeterKey, int]) -> dict[str, object]:
    """The JSON shape of ``etg meters --json``: totals, per seat, per wager kind."""
    def total(name: str, seat: int = 0, wager: str = "") -> int:
        return int(raw.get((name, seat, wager), 0))

    seats = sorted({s for (_n, s, _w) in raw if s > 0})
    kinds = sorted({w for (n, _s, w) in raw if w and n in ("wagered", "paid")})
    out: dict[str, object] = {name: total(name) for name in COUNTS + MONEY}
    out["balanced"] = total("credits") == (
        total("credits_in") - total("credits_out") - total("wagered") + total("paid")
    )
    out["seats"] = [
        {
            "seat": s,
            **{name: total(name, s) for name in ("games_played", *MONEY)},
            "by_wager": {
                k: {"wagered": total("wagered", s, k), "paid": total("paid", s, k)}
                for k in kinds
                if (("wagered", s, k) in raw or ("paid", s, k) in raw)
            },
        }
        for s in seats
    ]
    out["by_wager"] = {
        k: {"wagered": total("wagered", 0, k), "paid": total("paid", 0, k)} for k in kinds
    }
    return out


#: event codes of attendant transfers (firmware.journal.codes.EventCode.CREDITS_IN / _OUT)
_CREDITS_IN, _CREDITS_OUT = 800, 801


def record_deltas(kind: str, code: int | None, body: Mapping[str, Any]) -> dict[MeterKey, int]:
    """The meter changes a chained record justifies: a round record's stakes and returns,
    a credit transfer's event; nothing for any other record."""
    if kind == "round":
        stakes = {int(k): v for k, v in body["stakes"].items()}
        returns = {int(k): v for k, v in body["returns"].items()}
        return round_deltas(stakes, returns, voided=body["state"] == "voided")
    if kind == "event" and code in (_CREDITS_IN, _CREDITS_OUT):
        sign = 1 if code == _CREDITS_IN else -1
        return credit_deltas(int(body["seat"]), sign * int(body["cents"]))
    return {}


def justifies_meters(kind: str, code: int | None) -> bool:
    """Whether a record of this kind and code can change the meters (its body is read)."""
    return kind == "round" or (kind == "event" and code in (_CREDITS_IN, _CREDITS_OUT))


def add_deltas(into: dict[MeterKey, int], deltas: Mapping[MeterKey, int]) -> None:
    for k, v in deltas.items():
        into[k] = into.get(k, 0) + v


def history_meters(records: Iterable[Any]) -> dict[MeterKey, int]:
    """The meters recomputed from the chained records alone (round records and credit
    transfer events): what the meters table must hold, key by key. The meters table is
    not itself chained, so the audit compares it with this."""
    want: dict[MeterKey, int] = {}
    for r in records:
        add_deltas(want, record_deltas(r.kind, r.code, r.body))
    return {k: v for k, v in want.items() if v}


def meters_difference(have: Mapping[MeterKey, int], want: Mapping[MeterKey, int],
                      what: str) -> str | None:
    """The first meter where ``have`` (the meters table) differs from ``want``, said in
    words (``what``: where ``want`` comes from), or None."""
    bad = sorted(k for k in set(have) | set(want) if have.get(k, 0) != want.get(k, 0))
    if not bad:
        return None
    name, seat, wager = bad[0]
    where = f"seat {seat}" if seat else "table"
    return (f"meter {name} ({where}{', ' + wager if wager else ''}) is {have.get(bad[0], 0)} "
            f"but {what} {want.get(bad[0], 0)}")


def balance_problem(raw: Mapping[MeterKey, int]) -> str | None:
    """Where ``credits == credits_in - credits_out - wagered + paid`` fails (every seat and
    the table), or None."""
    seats = sorted({s for (_n, s, _w) in raw} | {0})
    for s in seats:
        def m(name: str, seat: int = s) -> int:
            return int(raw.get((name, seat, ""), 0))

        want = m("credits_in") - m("credits_out") - m("wagered") + m("paid")
        if m("credits") != want:
            where = f"seat {s}" if s else "the table"
            return (f"the meters do not balance for {where}: credits {m('credits')} but "
                    f"credits in - out - wagered + paid = {want}")
    return None
