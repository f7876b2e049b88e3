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
