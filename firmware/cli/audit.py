"""Attendant commands: recall, meters, events, audit verify, credits — all on the journal.

They read the journal file directly (SQLite allows readers beside the running table), so
they work whether the table runs or not. They open it read-only
(firmware.journal.files): they create and change nothing — a mistyped path or an
empty file is an error, never a new journal — and work on a read-only copy. ``credits add``
is the one writer: it appends through the journal's single-writer rule (see
:func:`firmware.cli.credits.add_credits_offline`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
from pathlib import Path
from typing import Any

from etgcore.cli_context import context
from etgcore.errors import UserError
from etgcore.money import dollars
from etgcore.options import add_json, print_json

log = logging.getLogger("etg.audit")


def _journal_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--journal",
        metavar="PATH",
        help="journal file (default: journal.path of the table configuration)",
    )


def _journal_path(args: argparse.Namespace) -> str:
    if getattr(args, "journal", None):
        return str(args.journal)

    return str(context(args).load_config(args).journal.path)


def _when(ts_ns: int) -> str:
    return dt.datetime.fromtimestamp(ts_ns / 1e9, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "recall", parents=[common], help="game recall: the last rounds from the journal",
        description="Show the last rounds: cards, decisions, draws and results per seat.",
    )
    _journal_arg(p)
    p.add_argument("--last", type=int, default=10, metavar="N", help="how many rounds (10)")
    p.add_argument("--json", action="store_true",
                   help="one JSON array of the rounds, oldest first ([] when there is none)")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser(
        "meters", parents=[common], help="the table's meters (in dollars; --json: cents)",
        description="Games, wagered, paid, credits in and out, and credits, per seat and "
        "wager kind. credits == credits_in - credits_out - wagered + paid always.",
    )
    _journal_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_meters)

    p = sub.add_parser(
        "events", parents=[common], help="the event log with its numeric codes",
        description="Power up and down, tilts, shoe faults, voids, configuration changes, ...",
    )
    _journal_arg(p)
    p.add_argument(
        "--since", metavar="T", help="ISO time (2026-11-30T08:00) or seconds ago (e.g. 3600s)"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per event")
    p.set_defaults(func=cmd_events)

    p = sub.add_parser(
        "audit", parents=[common], help="audit the journal (hash chain)",
        description="Audit commands on the journal.",
    )
    asub = p.add_subparsers(dest="audit_command", metavar="ACTION")
    asub.required = True
    v = asub.add_parser(
        "verify", parents=[common],
        help="prove the journal: keyed chain, head, schema, meters, engine replay",
        description="Prove the journal from record 1: the schema, every record's keyed "
        "hash and commit marker, the head file, the meters, and a replay of every input "
        "through the engine compared with every round record and the meters. Exit 0: "
        "all of it holds; 1: broken (the first problem is named); 3: nothing wrong in what "
        "could be checked, but the journal's secret was not available, so the keyed "
        "hashes and the head file were not checked (never claimed).",
    )
    _journal_arg(v)
    add_json(v, "one JSON object: ok (true only when everything was checked and holds), "
             "verified (full, partial or broken), records, first_bad (the first bad record, "
             "or null), problem, unchecked (what was not checked), secret (why it is "
             "missing)")
    v.add_argument("--until", type=int, metavar="SEQ",
                   help="prove only records 1..SEQ, which must be a checkpoint: the part "
                   "of the journal a start did not prove (the table runs this itself after "
                   "starting on a long journal)")
    v.add_argument("--key", metavar="PATH",
                   help="the table's journal secret (default: journal.key_path, else "
                   "<journal>.key)")
    v.add_argument("--archived", action="store_true",
                   help="verify a journal archived by `etg journal init --archive` as the "
                   "evidence it is (without it, a journal the register beside the secret "
                   "names as superseded is BROKEN: it must never be put back as live)")
    v.set_defaults(func=cmd_audit_verify)


def _since_ns(text: str | None) -> int | None:
    if not text:
        return None
    import time

    if text.endswith("s") and text[:-1].isdigit():
        return time.time_ns() - int(text[:-1]) * 1_000_000_000
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise UserError(
            f"--since {text!r}: give an ISO time (2026-11-30T08:00) or e.g. 600s"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return int(when.timestamp() * 1e9)


def cmd_meters(args: argparse.Namespace) -> int:
    from firmware.journal import open_existing
    from firmware.journal.meters import summarize

    j = open_existing(_journal_path(args), _reader_key(args))
    m = summarize(j.meters())
    if args.json:
        print(json.dumps(m, sort_keys=True))
        return 0
    print("\n".join(meters_text(m)))
    return 0


#: the money meters as columns of the text report, with their headings
METER_COLUMNS = (("wagered", "wagered"), ("paid", "paid"), ("credits_in", "credits in"),
                 ("credits_out", "credits out"), ("credits", "credits"))


def meters_text(m: dict[str, Any]) -> list[str]:
    """``etg meters`` for people: one table of the money meters (the table's total, then
    each seat), every amount in dollars and cents in right-aligned columns, the meters of
    each wager kind, and whether they balance, said in words with the equation checked."""
    rows: list[tuple[str, int, dict[str, Any]]] = [("table", m["games_played"], m)]
    rows += [(f"seat {s['seat']}", s["games_played"], s) for s in m["seats"]]
    cells = [[dollars(r[name], exact=True) for name, _h in METER_COLUMNS] for _l, _g, r in rows]
    games = [str(g) for _l, g, _r in rows]
    label_w = max(len(r[0]) for r in rows)
    games_w = max(len("games"), *(len(g) for g in games))
    widths = [max(len(h), *(len(c[i]) for c in cells))
              for i, (_n, h) in enumerate(METER_COLUMNS)]
    head = f"{'':{label_w}}  {'games':>{games_w}}" + "".join(
        f"  {h:>{w}}" for (_n, h), w in zip(METER_COLUMNS, widths, strict=True))
    out = [f"games played {m['games_played']}, voided {m['games_voided']}", head]
    for (label, _g, _r), g, row in zip(rows, games, cells, strict=True):
        out.append(f"{label:{label_w}}  {g:>{games_w}}" + "".join(
            f"  {c:>{w}}" for c, w in zip(row, widths, strict=True)))
    for kind, v in sorted(m.get("by_wager", {}).items()):
        out.append(f"{kind} wagers: wagered {dollars(v['wagered'], exact=True)}, "
                   f"paid {dollars(v['paid'], exact=True)}")
    verdict = "yes" if m["balanced"] else "NO"
    out.append(f"balanced: {verdict} (credits = credits in - credits out - wagered + paid)")
    return out


def cmd_events(args: argparse.Namespace) -> int:
    from firmware.journal import EventCode, open_existing

    j = open_existing(_journal_path(args), _reader_key(args))
    since_ns, since_seq = _since_ns(args.since), 0
    if since_ns is not None:  # from the first record at or after it, then record order:
        first = next(j.records(since_ns=since_ns), None)  # a clock set back misses nothing
        since_seq = j.last_seq if first is None else first.seq - 1
    for r in j.records(kinds=["event"], since_seq=since_seq):
        try:
            label = EventCode(r.code).label if r.code is not None else "-"
        except ValueError:
            label = "unknown"
        if args.json:
            print(json.dumps({"seq": r.seq, "time": _when(r.ts_ns), "code": r.code,
                              "event": label, "round": r.round_no, **r.body}, sort_keys=True))
        else:
            detail = ", ".join(f"{k}={v}" for k, v in sorted(r.body.items()))
            rnd = f" round {r.round_no}" if r.round_no is not None else ""
            print(f"{_when(r.ts_ns)} {r.code} {label}{rnd} {detail}".rstrip())
    return 0


def _reader_key(args: argparse.Namespace) -> Any:
    """The secret a reader proves the journal with (issue 42: nothing read before it is
    proven); a reader without it still checks links, markers, head-less end and meters,
    and says so on stderr (firmware.journal.opening.prove_for_reading)."""
    from firmware.journal.errors import JournalKeyError

    try:
        return _verify_key(args)
    except JournalKeyError as exc:
        log.warning("%s", exc)
        return None


def _verify_key(args: argparse.Namespace) -> Any:
    """The secret ``audit verify`` checks the chain with (never printed)."""
    from firmware.journal import BESIDE
    from firmware.journal import key as journal_key

    if getattr(args, "key", None):
        return journal_key.load(args.key)
    if not getattr(args, "journal", None):

        configured = context(args).load_config(args).journal.key_path
        if configured:
            return journal_key.load(configured)
    return BESIDE


def audit_journal(journal: Any, until: int | None = None, archived: bool = True) -> Any:
    """``etg audit verify``'s whole check: the journal proven from record 1 (schema,
    keyed chain, commit markers, head, meters, every checkpoint's meters), then the
    engine's replay of every input compared with every round record, checkpoint and the
    meters (firmware.table.meter_proof). What could not be checked without the secret is
    kept in the result's ``unchecked``."""
    import dataclasses

    from firmware.journal.succession import superseded_result
    from firmware.table.meter_proof import prove

    res = journal.verify(full=True, until=until)
    if res.ok and not archived:
        res = superseded_result(journal, res)
    if not res.ok:
        return res
    proof = prove(journal, full=True, until=until)
    return dataclasses.replace(proof, unchecked=res.unchecked)


def cmd_audit_verify(args: argparse.Namespace) -> int:
    import dataclasses

    from firmware.journal import JournalError, open_existing

    try:
        j = open_existing(_journal_path(args), _verify_key(args), proven=False)  # the proof
    except JournalError as exc:  # a damaged file: the evidence is broken (exit 1)
        if args.json:
            print_json({"ok": False, "verified": "broken", "records": None,
                        "first_bad": None, "problem": str(exc), "unchecked": [],
                        "secret": None})
        else:
            print(f"BROKEN: {exc}".replace("BROKEN: BROKEN: ", "BROKEN: "))
        return 1
    if j.key_path is None and getattr(args, "key", None):
        j.key_path = Path(args.key)
    try:
        res = audit_journal(j, args.until, archived=args.archived)
    finally:
        j.close()
    verified = "broken" if not res.ok else "partial" if res.unchecked else "full"
    if verified == "full" and args.until is not None:  # red team F11: never "full"
        verified = "until"
        res = dataclasses.replace(res, unchecked=(
            f"the records after record {args.until}", "the head file"))
    if args.json:
        print_json({"ok": res.ok and (not res.unchecked or verified == "until"),
                    "verified": verified, "records": res.records,
                    "first_bad": res.first_bad, "until": args.until,
                    "problem": None if res.ok else res.problem,
                    "unchecked": list(res.unchecked),
                    "secret": j.key_problem or None})
        return {"full": 0, "until": 0, "partial": 3, "broken": 1}[verified]
    if verified == "until":
        print(f"ok: records 1..{args.until} proven (schema, keyed chain, commit markers, "
              "meters, checkpoints and the engine's replay); NOT checked: the records after "
              f"record {args.until} and the head file")
        return 0
    if verified == "full":
        print(f"ok: {res.records} records: schema, keyed chain, commit markers, head file, "
              "meters and the engine's replay of every round intact")
        return 0
    if verified == "partial":
        print(f"PARTIAL: {res.records} records: schema, sequence, links, commit markers, "
              "meters and the engine's replay of every round agree, but without the "
              "journal's secret NOT checked:")
        for what in res.unchecked:
            print(f"  - {what}")
        why = f" ({j.key_problem})" if j.key_problem else ""
        print(f"give --key PATH or run as the table's service user{why}")
        return 3
    if res.first_bad is None and not res.problem.startswith(("meter", "the meters")):
        print(f"BROKEN: {res.problem} ({res.records} records)")  # schema, facts (red team F3)
    elif res.first_bad is None:
        print(f"BROKEN meters: {res.problem} ({res.records} records, hash chain intact)")
    else:
        print(f"BROKEN at record {res.first_bad}: {res.problem} "
              f"({res.records} records in the journal)")
    return 1


def cmd_recall(args: argparse.Namespace) -> int:
    from firmware.journal import open_existing
    from firmware.table.recall import format_round, last_rounds

    if args.last < 1:
        raise UserError("--last must be at least 1")
    j = open_existing(_journal_path(args), _reader_key(args))
    rounds = last_rounds(j, args.last)
    if args.json:  # one document, also when empty: a script's json.loads never fails
        print_json(rounds)
        return 0
    if not rounds:
        print("no rounds in the journal yet")
        return 0
    for rnd in rounds:
        print("\n".join(format_round(rnd)))
        print()
    return 0
