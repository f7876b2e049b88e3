"""NIST's published results beside its sample files (ea_non_iid -vv, cpp/selftest/refdata).

The ``.res`` files in ``tests/cert/data/sp80090b`` are NIST's output, unchanged; this module
only reads them: every "<Label> <Estimator> Estimate: <name> = <value>" line, and the
final H_bitstring, H_original and assessed min-entropy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "sp80090b"
_LINE = re.compile(r"^(Literal|Bitstring) (.+?) Estimate: (.+?) = (\S+)$")


@dataclass
class Reference:
    values: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    no_local: set[tuple[str, str]] = field(default_factory=set)
    h_original: float = 0.0
    h_bitstring: float | None = None
    h_assessed: float = 0.0
    samples: int = 0
    bits: int = 0


def load(name: str) -> Reference:
    ref = Reference()
    for line in (DATA / f"{name}.res").read_text().splitlines():
        m = _LINE.match(line)
        if m:
            ref.values.setdefault((m[1], m[2]), {})[m[3]] = float(m[4])
        elif "P_local can't change the result" in line:
            label, rest = line.split(" ", 1)
            ref.no_local.add((label, rest.split(" Estimate:")[0]))
        elif line.startswith("H_bitstring = "):
            ref.h_bitstring = float(line.split("=")[1])
        elif line.startswith("H_original: "):
            ref.h_original = float(line.split(":")[1])
        elif line.startswith("Assessed min entropy: "):
            ref.h_assessed = float(line.split(":")[1])
        elif line.startswith("Loaded "):
            words = line.split()
            ref.samples = int(words[1])
            ref.bits = int(words[6].split("-")[0])
    return ref
