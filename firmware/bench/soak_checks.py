"""The invariants a soak run must leave intact, checked on the journal file alone.

After a soak the table service is stopped and its journal is read as an auditor would:

- **audit chain**: every record's SHA-256 recomputed, each chained to the one before
  (``Journal.verify``, what ``etg audit verify`` runs);
- **no journal gap**: record numbers run 1..N without a hole;
- **replay equals meters**: replaying every input of the journal through a fresh engine
  gives back each seat's credits meter (what is still at stake in an unfinished round
  counts as the seat's);
- **rounds exactly once**: every settled or voided round has exactly one round record —
  the replay's round endings equal the records, which are numbered 1..F without a
  repeat or a hole, and no two records settle the same hands of the same round;
- **meters balance**: for every seat and the table, ``credits == credits_in -
  credits_out - wagered + paid``;
- **history equals meters**: the meters recomputed from the round records and the
  credit transfer events equal the meters table, key by key.

Each check is a :class:`Check` (name, ok, detail) so the soak can print and report it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from etgcore.money import dollars
from firmware.journal import EventCode
from firmware.journal.meters import credit_deltas, round_deltas, summarize
from firmware.journal.store import Journal, MeterKey, canonical
from firmware.table.recovery import replay


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def check_journal(path: str | Path) -> list[Check]:
    """Every invariant of the module docstring on the journal at ``path``."""
    j = Journal(path)
    try:
        return [_chain(j), _gap(j), _replay(j), _exactly_once(j), _balance(j),
                _history(j)]
    finally:
        j.close()


def _chain(j: Journal) -> Check:
    res = j.verify()
    if res.ok:
        return Check("audit chain", True, f"{res.records} records, hash chain intact")
    return Check("audit chain", False, f"broken at record {res.first_bad}: {res.problem}")


def _gap(j: Journal) -> Check:
    seqs = [r.seq for r in j.records()]
    if seqs != list(range(1, len(seqs) + 1)):
        missing = next(i for i, s in enumerate(seqs, start=1) if s != i)
        return Check("no journal gap", False, f"record {missing} is missing")
    starts = sum(1 for r in j.records(kinds=["event"]) if r.code == EventCode.POWER_UP)
    return Check("no journal gap", True, f"records 1..{len(seqs)} ({starts} power-ups)")


def _replay(j: Journal) -> Check:
    rec = replay(j)
    if rec is None:
        return Check("replay equals meters", False, "no epoch record: nothing to replay")
    meters = _seat_credits(j.meters())
    bad = []
    for s in rec.game.seats:
        live = s.credits + rec.game.seat_stake(s)
        if live != meters.get(s.number, 0):
            bad.append(f"seat {s.number}: replay {live}, meter {meters.get(s.number, 0)}")
    if bad:
        return Check("replay equals meters", False, "; ".join(bad))
    return Check("replay equals meters", True, f"{rec.inputs} inputs replayed give every "
                 "seat's credits meter")


def _exactly_once(j: Journal) -> Check:
    rounds = [r.body for r in j.records(kinds=["round"])]
    finals = [int(b.get("final", 0)) for b in rounds]
    if finals != list(range(1, len(finals) + 1)):
        return Check("rounds exactly once", False,
                     f"round records numbered {_span(finals)}, not 1..{len(finals)}")
    rec = replay(j)
    ended = rec.finals if rec is not None else 0
    if ended != len(rounds):
        return Check("rounds exactly once", False, f"the inputs end {ended} rounds but the "
                     f"journal holds {len(rounds)} round records")
    seen: dict[str, int] = {}
    for b in rounds:
        key = canonical({"round": b.get("round"), "dealer": (b.get("dealer") or {}).get("cards"),
                         "hands": [[h.get("cards") for h in s.get("hands", [])]
                                   for s in b.get("seats", [])]})
        if key in seen and (b.get("dealer") or {}).get("cards"):
            return Check("rounds exactly once", False, f"round {b.get('round')} is settled "
                         f"twice (records {seen[key]} and {b.get('final')})")
        seen[key] = int(b.get("final", 0))
    voided = sum(b.get("state") == "voided" for b in rounds)
    return Check("rounds exactly once", True, f"{len(rounds)} rounds ended ({voided} voided), "
                 "each recorded once")


def _balance(j: Journal) -> Check:
    m = summarize(j.meters())
    bad = [f"seat {s['seat']}" for s in m["seats"]  # type: ignore[attr-defined]
           if s["credits"] != s["credits_in"] - s["credits_out"] - s["wagered"] + s["paid"]]
    if not m["balanced"]:
        bad.insert(0, "the table")
    if bad:
        return Check("meters balance", False, "credits != in - out - wagered + paid for "
                     + ", ".join(bad))
    wagered, paid, credits = (int(m[k]) for k in ("wagered", "paid", "credits"))  # type: ignore[call-overload]
    return Check("meters balance", True, f"wagered {dollars(wagered)}, paid "
                 f"{dollars(paid)}, credits {dollars(credits)}: balanced")


def _history(j: Journal) -> Check:
    want: dict[MeterKey, int] = {}

    def add(deltas: dict[MeterKey, int]) -> None:
        for k, v in deltas.items():
            want[k] = want.get(k, 0) + v

    for r in j.records(kinds=["round", "event"]):
        b = r.body
        if r.kind == "round":
            stakes = {int(k): v for k, v in b["stakes"].items()}
            returns = {int(k): v for k, v in b["returns"].items()}
            add(round_deltas(stakes, returns, voided=b["state"] == "voided"))
        elif r.code in (EventCode.CREDITS_IN, EventCode.CREDITS_OUT):
            sign = 1 if r.code == EventCode.CREDITS_IN else -1
            add(credit_deltas(int(b["seat"]), sign * int(b["cents"])))
    have = {k: v for k, v in j.meters().items() if v}
    want = {k: v for k, v in want.items() if v}
    if have != want:
        diff = sorted(set(have) | set(want))
        first = [f"{k}: meters {have.get(k, 0)}, history {want.get(k, 0)}"
                 for k in diff if have.get(k, 0) != want.get(k, 0)][:3]
        return Check("history equals meters", False, "; ".join(first))
    return Check("history equals meters", True, f"{len(have)} meters recomputed from the "
                 "round records and credit transfers")


def _seat_credits(meters: dict[MeterKey, int]) -> dict[int, int]:
    return {s: v for (n, s, w), v in meters.items() if n == "credits" and s and not w}


def _span(xs: list[int]) -> str:
    if len(xs) <= 6:
        return ", ".join(map(str, xs))
    return f"{', '.join(map(str, xs[:3]))}, ..., {', '.join(map(str, xs[-3:]))}"
