"""Many sample files at once: ``etg cert entropy A.bin B.bin ...``, one task per file,
in this process (``--jobs 1``) or on the Dask lab cluster as ``etg cert bits`` runs
(:mod:`lab.cluster`: an embedded local cluster of ``--jobs`` workers, or
``--scheduler``), with ``--checkpoint`` to resume. Each file is checked first (bad
input is one line and exit 2 before any work starts); its bytes travel with its task,
so workers need no shared disk. The output is each file's own document, in the order
given: the text summaries one after another, or with ``--json`` a list of the
reference-layout documents.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from etgcore.options import print_json


def entropy_task(name: str, data: bytes, bits: int | None, iid: bool,
                 truncate: bool, command: str, version: str, sha256: str) -> dict[str, Any]:
    """One file's assessment: the reference-layout document and the summary lines."""
    import time

    from rng.cert.sp80090b import iid as iid_track
    from rng.cert.sp80090b import iid_report, noniid, report, samples

    s = samples.from_bytes(data, bits, name)
    doc: dict[str, Any] = {
        "IID": iid, "commandline": command, "errorLevel": 0, "filename": name,
        "sha256": sha256, "toolVersion": version, "type": "",
        "dateTimeStamp": time.strftime("%Y%m%d%H%M%S", time.gmtime())}
    if iid:
        a = iid_track.assess(s)
        doc["testCases"] = [iid_track.test_case(a)]
        return {"doc": doc, "lines": iid_report.text(a), "ok": a.iid}
    na = noniid.assess(s, bitstring_limit=1_000_000 if truncate else None)
    doc["testCases"] = noniid.test_cases(na)
    return {"doc": doc, "lines": report.text(na), "ok": True}


def run_many(args: argparse.Namespace, version: str, command: str) -> int:
    """Every file (exit 0 when all are assessed and, with --iid, all are IID)."""
    import hashlib

    from lab.checkpoint import Checkpoint
    from lab.tasks import Task, run_here, run_tasks
    from rng.cert.analyze import progress_bar
    from rng.cert.sp80090b import samples

    paths: list[Path] = list(args.file)
    digests = []
    for p in paths:  # every file checked before any work: bad input is one line, exit 2
        s = samples.read(p, args.bits_per_symbol)
        digests.append(hashlib.sha256(s.raw.tobytes()).hexdigest())
    results: dict[int, dict[str, Any]] = {}
    ck = None
    if args.checkpoint is not None:
        ck = Checkpoint(args.checkpoint, {"command": "cert entropy", "files": digests,
                                          "iid": args.iid, "bits": args.bits_per_symbol})
        ck.open()
        results.update(ck.done)

    def load(task: Task) -> tuple[Any, ...]:
        p = paths[task.index]
        return (str(p), p.read_bytes(), args.bits_per_symbol, args.iid,
                args.truncate_bitstring, command, version, digests[task.index])

    def fold(task: Task, r: dict[str, Any]) -> None:
        results[task.index] = r
        if ck is not None:
            ck.append(task.index, r)

    tasks = [Task(i, 1, ()) for i in range(len(paths))]
    bar = progress_bar(len(paths), "cert entropy", "files", enabled=bool(args.progress))
    try:
        if (args.jobs == 1 or len(paths) - len(results) <= 1) and args.scheduler is None:
            run_here(entropy_task, tasks, fold, skip=set(results), progress=bar, load=load)
        else:
            from lab.cluster import open_client

            with open_client(args.scheduler, args.jobs) as client:
                run_tasks(client, entropy_task, tasks, fold, skip=set(results),
                          progress=bar, load=load)
    finally:
        bar.close()
        if ck is not None:
            ck.close()
    ordered = [results[i] for i in range(len(paths))]
    if args.json:
        print_json([r["doc"] for r in ordered])
    else:
        for r in ordered:
            for line in r["lines"]:
                print(line)
            print()
    return 0 if all(r["ok"] for r in ordered) else 1
