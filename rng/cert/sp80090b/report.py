"""What ``etg cert entropy`` prints and writes: the text report and the JSON documents.

The JSON document has the reference tool's ``-o`` layout (``IID``, ``commandline``,
``dateTimeStamp``, ``errorLevel``, ``filename``, ``sha256``, ``testCases``,
``toolVersion``, ``type``) and its field names, so a lab's scripts read both alike.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

from rng.cert.sp80090b.entropic import Estimate
from rng.cert.sp80090b.noniid import Assessment, Track
from rng.cert.sp80090b.restart import RestartAssessment


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def header(path: Path, command: str, version: str, *, iid: bool, kind: str = "") -> dict[str, Any]:
    """The top-level fields every reference JSON document has."""
    return {"IID": iid, "commandline": command,
            "dateTimeStamp": time.strftime("%Y%m%d%H%M%S", time.gmtime()),
            "errorLevel": 0, "filename": str(path), "sha256": sha256_of(path),
            "toolVersion": version, "type": kind}


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.17g}"
    return str(v)


def estimate_lines(track: Track) -> list[str]:
    """One line per estimator and intermediate value (the reference's ``-vv`` wording)."""
    out = []
    for e in track.estimates:
        out.extend(_lines(track.label, e))
    return out


def _lines(label: str, e: Estimate) -> list[str]:
    what = f"{label} {e.name} Estimate"
    if e.h is None:
        return [f"{what}: does not apply (too few samples)"]
    lines = [f"{what}: {k} = {_fmt(v)}" for k, v in e.values.items()]
    if "P_global'" in e.values and "P_local" not in e.values:
        lines.append(f"{what}: P_local can't change the result.")
    lines.append(f"{what}: min entropy = {_fmt(e.h)}")
    return lines


def text(a: Assessment, *, verbose: bool = False) -> list[str]:
    """The summary (and with ``verbose`` every intermediate value) of a non-IID track."""
    s = a.samples
    lines = [f"{s.name}: {s.n} samples of {s.k} distinct {s.bits}-bit-wide symbols"]
    if s.n < 1_000_000:
        lines.append("warning: fewer than 1,000,000 samples (SP 800-90B 3.1.1 asks for "
                     "at least 10^6)")
    for tr in (a.bitstring, a.literal):
        if tr is None:
            continue
        if verbose:
            lines.extend(estimate_lines(tr))
        else:
            for e in tr.estimates:
                h = "n/a" if e.h is None else f"{e.h:.6f}"
                lines.append(f"{tr.label:9} {e.name + ' Estimate':38} {h:>9}")
    lines.append(f"H_original: {a.h_original:.6f}")
    if a.h_bitstring is not None:
        lines.append(f"H_bitstring: {a.h_bitstring:.6f}")
        lines.append(f"min(H_original, {s.bits} X H_bitstring): {a.h_assessed:.6f}")
    lines.append(f"Assessed min-entropy: {a.h_assessed:.6f} bits per {s.bits}-bit sample")
    return lines


def restart_text(a: RestartAssessment) -> list[str]:
    """The restart tests' report (the reference's wording for its figures)."""
    s = a.samples
    from rng.cert.sp80090b.restart import alpha

    out = [f"{s.name}: {s.n} samples of {s.k} distinct {s.bits}-bit-wide symbols "
           f"(1000 restarts x 1000 samples)",
           f"H_I: {a.h_initial:.6f}",
           f"ALPHA: {alpha():.17g}, X_cutoff: {a.cutoff}",
           f"X_max: {max(a.x_rows, a.x_columns)} (rows {a.x_rows}, columns {a.x_columns})"]
    if not a.sanity_passed:
        out.append("*** Restart Sanity Check Failed ***")
        return out
    out.append("Restart Sanity Check Passed")
    for tr in (a.rows, a.columns):
        if tr is None:
            continue
        for e in tr.estimates:
            h = "n/a" if e.h is None else f"{e.h:.6f}"
            out.append(f"{tr.label:8} {e.name + ' Estimate':38} {h:>9}")
    if a.iid_tests is not None:
        from rng.cert.sp80090b import restart_iid

        out += restart_iid.text(a.iid_tests)
    out += [f"H_r: {a.h_r:.6f}", f"H_c: {a.h_c:.6f}", f"H_I: {a.h_initial:.6f}"]
    if not a.validation_passed:
        out.append("*** min(H_r, H_c) < H_I/2, Validation Testing Failed ***")
        return out
    out.append("Validation Test Passed")
    out.append(f"min(H_r, H_c, H_I): {a.h_assessed:.6f}")
    return out
