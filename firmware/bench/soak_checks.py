"""The invariants a soak run must leave intact, checked on the journal file alone.

After a soak the table service is stopped and its journal is read as an auditor would:

- **audit chain**: the schema, every record's keyed hash and commit marker, the head
  file, the meters against the chained records and every checkpoint (``Journal.verify``
  from record 1, what ``etg audit verify`` runs first);
- **no journal gap**: record numbers run 1..N without a hole;
- **replay equals meters**: every input of the journal replayed through the engine from
  record 1 gives back every round record (stakes and returns by kind), every checkpoint
  and every meter, and each seat's credits meter equals the game's
  (:mod:`firmware.table.meter_proof`, what ``etg audit verify`` runs next);
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
from firmware.table.meter_proof import prove, walk


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def check_journal(path: str | Path) -> list[Check]:
    """Every invariant of the module docstring on the journal at ``path`` (read-only,
    with the bench's secret beside it)."""
    j = Journal(path, readonly=True)
    try:
        return [_chain(j), _gap(j), _replay(j), _exactly_once(j), _balance(j),
                _history(j)]
    finally:
        j.close()


def _chain(j: Journal) -> Check:
    res = j.verify()
    if res.ok:
        return Check("audit chain", True, f"{res.records} records: keyed chain, commit "
                     "markers, head file and meters intact")
    return Check("audit chain", False, f"broken at record {res.first_bad}: {res.problem}")


def _gap(j: Journal) -> Check:
    seqs = [r.seq for r in j.records()]
    if seqs != list(range(1, len(seqs) + 1)):
        missing = next(i for i, s in enumerate(seqs, start=1) if s != i)
        return Check("no journal gap", False, f"record {missing} is missing")
    starts = sum(1 for r in j.records(kinds=["event"]) if r.code == EventCode.POWER_UP)
    return Check("no journal gap", True, f"records 1..{len(seqs)} ({starts} power-ups)")


def _replay(j: Journal) -> Check:
    res = prove(j, full=True)
    if not res.ok:
        where = f" (record {res.first_bad})" if res.first_bad else ""
        return Check("replay equals meters", False, f"{res.problem}{where}")
    w = walk(j, full=True, prove=False)
    return Check("replay equals meters", True, f"{w.inputs} inputs replayed from record 1 "
                 f"give every round record, {w.checkpoints} checkpoint(s) and every meter")


def _exactly_once(j: Journal) -> Check:
    rounds = [r.body for r in j.records(kinds=["round"])]
    finals = [int(b.get("final", 0)) for b in rounds]
    if finals != list(range(1, len(finals) + 1)):
        return Check("rounds exactly once", False,
                     f"round records numbered {_span(finals)}, not 1..{len(finals)}")
    ended = walk(j, full=True, prove=False).finals
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


def _span(xs: list[int]) -> str:
    if len(xs) <= 6:
        return ", ".join(map(str, xs))
    return f"{', '.join(map(str, xs[:3]))}, ..., {', '.join(map(str, xs[-3:]))}"


def replay_problem(path: str | Path) -> str:
    """The meter proof on the journal of a running table (read-only, one read transaction
    beside its writes): "" when the engine's replay gives its meters and round records."""
    try:
        j = Journal(path, readonly=True)
    except Exception as exc:  # the file being created: a finding, said in words
        return f"cannot read the journal: {exc}"
    try:
        res = prove(j, full=True)
    finally:
        j.close()
    return "" if res.ok else f"{res.problem} (record {res.first_bad})"
