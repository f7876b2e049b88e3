"""NIST's ``ea_iid -vvv`` output on its sample files (made here with the reference tool
1.1.7, built from its public source; the files are its output, unchanged).

Only the deterministic lines are read: mean, median, H_original/H_bitstring, the
chi-square statistics, the LRS test, the unpermuted statistics and the three verdicts.
The permutation counters are random (the reference seeds its shuffles from
/dev/urandom) and are compared by verdict only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tests.cert.sp80090b.reference import DATA

_VALUE = re.compile(r"^(.+?) = (\S+)$")


@dataclass
class IidReference:
    values: dict[str, float] = field(default_factory=dict)
    verdicts: dict[str, bool] = field(default_factory=dict)


def load_iid(name: str) -> IidReference:
    ref = IidReference()
    for line in (DATA / f"{name}.iid.res").read_text().splitlines():
        for what in ("Chi square tests", "Length of longest repeated substring test",
                     "IID permutation tests"):
            if line.startswith(what + ": "):
                ref.verdicts[what] = line.endswith("Passed")
        m = _VALUE.match(line)
        if m and m[2] not in ("true", "false"):
            ref.values[m[1]] = float(m[2])
    return ref
