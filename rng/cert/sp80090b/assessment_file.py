"""The assessment file: what ``etg cert entropy --out`` writes and the table reads.

One JSON document (:data:`rng.claim.FORMAT`): the claim first (source, sample width,
claimed min-entropy, the track, the samples' count and SHA-256), then the whole
``etg cert entropy --json`` document of the run it rests on (the reference's layout),
then, once ``etg cert entropy --restart ... --out`` has run on the same file, the restart
tests: the claim becomes min(H_I, H_r, H_c) when they pass, and a failed restart test is
recorded so that the table refuses the claim (:func:`rng.claim.read_assessment`).
The file is written under a temporary name and renamed, so it is whole or absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from etgcore.errors import UserError, output_file
from rng.cert.sp80090b.restart import RestartAssessment
from rng.claim import assessment_document, read_assessment
from rng.errors import EntropyError


def _write(path: Path, doc: dict[str, Any]) -> None:
    out = output_file(path)
    tmp = out.with_name(out.name + ".part")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n")
    os.replace(tmp, out)


def write_sequential(path: Path, run: dict[str, Any], *, source: str | None, bits: int,
                     h: float, track: str, samples: int) -> None:
    """A new assessment file from a sequential (non-IID or IID) run."""
    if source is None:
        raise UserError("--out needs --source hwrng|os (the source the samples came from)")
    _write(path, assessment_document(run, source=source, bits=bits, h=h, track=track,
                                     samples=samples))


def _load(path: Path) -> dict[str, Any]:
    try:
        read_assessment(path)
    except EntropyError as exc:
        raise UserError(str(exc)) from None
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


def restart_h_initial(path: Path, given: float | None) -> float:
    """H_I for the restart tests of an assessment file: its sequential claim (a different
    --h-initial is refused: the restart tests check that claim)."""
    if not path.is_file():
        raise UserError(f"--out {path}: no assessment file yet (run etg cert entropy on "
                        "the sequential samples with --out first)")
    claim = _load(path)["claim"]
    h = float(claim.get("hSequential", claim["hClaimed"]))
    if given is not None and abs(given - h) > 1e-9:
        raise UserError(f"--h-initial {given:g} is not the assessment's claim {h:.6f} "
                        f"({path}); leave it out to use the claim")
    return h


def add_restart(path: Path, run: dict[str, Any], a: RestartAssessment) -> None:
    """The restart tests into the assessment file; the claim follows their outcome."""
    doc = _load(path)
    claim = doc["claim"]
    if a.samples.bits != claim["bitsPerSample"]:
        raise UserError(f"the restart file has {a.samples.bits}-bit samples, the "
                        f"assessment {claim['bitsPerSample']}-bit ones")
    claim.setdefault("hSequential", claim["hClaimed"])
    claim["restart"] = {"passed": a.passed, "sanityPassed": a.sanity_passed,
                        "validationPassed": a.validation_passed, "h_r": a.h_r,
                        "h_c": a.h_c, "h_i": a.h_initial, "xCutoff": a.cutoff,
                        "xMax": max(a.x_rows, a.x_columns),
                        "samplesSha256": run["sha256"], "samplesFile": run["filename"]}
    if a.passed and a.h_assessed is not None:
        claim["hClaimed"] = min(float(claim["hSequential"]), a.h_assessed)
    doc["restartAssessment"] = run
    _write(path, doc)
