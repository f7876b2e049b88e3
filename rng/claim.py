"""The entropy the table claims for its noise source, read from an SP 800-90B assessment.

The claim (min-entropy per 8-bit sample) sets everything downstream: the health tests'
cutoffs (:mod:`rng.health`) and how many raw samples the conditioning component takes
per full-entropy output block (:mod:`rng.entropy`). It comes from an **assessment file**
made by ``etg cert entropy SAMPLES --out ASSESSMENT.json`` on samples captured from the
same kind of source (``etg rng capture``), kept with the release and named in the lab
report, configured as ``[rng] assessment``.

Without one, ``hwrng`` runs on :data:`HWRNG_FLOOR` (docs/rng.md gives the argument for
that value) and says so: at start (the log and the journal) and in every report that
states the claim. A configured assessment that cannot be read, is not for this source,
is for another sample width, or records a failed restart test refuses the source (fail
closed): a wrong claim is worse than none, because it would loosen the health tests.

The OS source (``os``) is the kernel's conditioned output and is claimed as full
entropy (8 bits per byte) whatever the assessment; an assessment for ``os`` is accepted
only to check it (it must then support at least 7 bits per byte) and is otherwise
informative.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rng.errors import EntropyError
from rng.health import DEFAULT_ALPHA_LOG2, apt_cutoff, rct_cutoff

#: the hwrng claim without an assessment (bits per 8-bit sample; docs/rng.md)
HWRNG_FLOOR = 2.0
#: the OS source: conditioned by the kernel, claimed as full entropy
OS_CLAIM = 8.0
#: the least claim an assessment may make and still feed the conditioning (below it the
#: conditioning would read over a kilobyte of samples per 32 output bytes)
MIN_CLAIM = 0.25
#: the most bytes an assessment file may hold (it is a small JSON document)
MAX_FILE_BYTES = 1 << 20
FORMAT = "etg-entropy-assessment/1"


@dataclass(frozen=True)
class Claim:
    """The claimed min-entropy of one source and where it came from."""

    source: str
    h: float  # bits per 8-bit sample
    origin: str  # "assessment", "floor" or "full entropy (conditioned by the kernel)"
    assessment: str = ""  # the file, when it came from one
    sha256: str = ""  # the assessment file's SHA-256

    @property
    def assessed(self) -> bool:
        return self.origin == "assessment"

    def cutoffs(self, alpha_log2: float = DEFAULT_ALPHA_LOG2) -> tuple[int, int]:
        """The repetition count and adaptive proportion cutoffs this claim gives."""
        return rct_cutoff(self.h, alpha_log2), apt_cutoff(self.h, binary=False,
                                                          alpha_log2=alpha_log2)

    def describe(self) -> str:
        """One line for the log and the reports."""
        rct, apt = self.cutoffs()
        if self.assessed:
            what = f"from the assessment {self.assessment} (sha256 {self.sha256[:16]})"
        elif self.source == "hwrng":
            what = ("the floor value, NO SP 800-90B assessment configured ([rng] "
                    "assessment; docs/cert.md)")
        else:
            what = self.origin
        return (f"entropy source {self.source}: claimed {self.h:.6f} bits per sample, "
                f"{what}; health test cutoffs RCT {rct}, APT {apt}/512")


def _bad(path: Path, why: str) -> EntropyError:
    return EntropyError(f"entropy assessment {path}: {why}")


def _field(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path) -> Any:
    value = doc.get(key)
    if value is None or isinstance(value, bool) or not isinstance(value, kind):
        raise _bad(path, f"claim.{key} missing or not {getattr(kind, '__name__', kind)}")
    return value


def read_assessment(path: Path) -> tuple[dict[str, Any], str]:
    """The assessment file's ``claim`` object, checked field by field, and the file's
    SHA-256. Raises :class:`EntropyError` (one line) for anything else."""
    try:
        with path.open("rb") as fh:  # bounded: a device or a huge file is not read whole
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise _bad(path, exc.strerror or str(exc)) from None
    if len(raw) > MAX_FILE_BYTES:
        raise _bad(path, f"{len(raw)} bytes, more than an assessment holds")
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise _bad(path, f"not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _bad(path, f"not an assessment file (format {FORMAT!r}; made by "
                   "etg cert entropy FILE --out)")
    claim = doc.get("claim")
    if not isinstance(claim, dict):
        raise _bad(path, "no claim")
    source = _field(claim, "source", str, path)
    bits = _field(claim, "bitsPerSample", int, path)
    h = _field(claim, "hClaimed", (int, float), path)
    samples = _field(claim, "samples", int, path)
    sha = _field(claim, "samplesSha256", str, path)
    if not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise _bad(path, "claim.samplesSha256 is not a SHA-256")
    if not math.isfinite(h) or not 0 < h <= bits or not 1 <= bits <= 8:
        raise _bad(path, f"claim.hClaimed {h} is not in (0, {bits}]")
    if samples < 1:
        raise _bad(path, "claim.samples must be positive")
    restart = claim.get("restart")
    if restart is not None and (not isinstance(restart, dict)
                                or restart.get("passed") is not True):
        raise _bad(path, "the restart tests failed: this source's claim does not stand")
    _check_rests_on_the_run(path, doc, claim, h, restart)
    return {"source": source, "bits": bits, "h": float(h), "samples": samples}, \
        hashlib.sha256(raw).hexdigest()


def _assessed(run: Any) -> float | None:
    """The assessed min-entropy of an embedded ``etg cert entropy`` document."""
    cases = run.get("testCases") if isinstance(run, dict) else None
    if not isinstance(cases, list) or not cases or not isinstance(cases[-1], dict):
        return None
    h = cases[-1].get("hAssessed")
    return float(h) if isinstance(h, int | float) and not isinstance(h, bool) else None


def _check_rests_on_the_run(path: Path, doc: dict[str, Any], claim: dict[str, Any],
                            h: float, restart: Any) -> None:
    """The claim may not exceed what the run it rests on assessed (nor, after the restart
    tests, H_r and H_c), and names that run's samples: an edited number is refused."""
    run = doc.get("assessment")
    assessed = _assessed(run)
    if assessed is None or not isinstance(run, dict):
        raise _bad(path, "no assessment run under the claim")
    if run.get("sha256") != claim.get("samplesSha256"):
        raise _bad(path, "the claim names other samples than its assessment run")
    bound = assessed
    if isinstance(restart, dict):
        for key in ("h_r", "h_c"):
            v = restart.get(key)
            if not isinstance(v, int | float) or isinstance(v, bool):
                raise _bad(path, f"claim.restart.{key} missing")
            bound = min(bound, float(v))
    if h > bound + 1e-12:
        raise _bad(path, f"claims {h:.6f} bits per sample, more than its assessment "
                   f"supports ({bound:.6f})")


def claim_for(source: str, assessment: str | None) -> Claim:
    """The claim for ``source`` ("hwrng" or "os") given the configured assessment."""
    if source == "os":
        if assessment:
            c, _ = read_assessment(Path(assessment))
            if c["source"] == "os" and c["h"] < 7.0:
                raise _bad(Path(assessment), f"the OS source assessed at {c['h']:.3f} "
                           "bits per byte: the kernel's output is not what it should be")
        return Claim("os", OS_CLAIM, "full entropy (conditioned by the kernel)")
    if source != "hwrng":
        raise EntropyError(f"no entropy claim for source {source!r}")
    if not assessment:
        return Claim("hwrng", HWRNG_FLOOR, "floor")
    path = Path(assessment)
    c, sha = read_assessment(path)
    if c["source"] != "hwrng":
        raise _bad(path, f"made for source {c['source']!r}, not hwrng")
    if c["bits"] != 8:
        raise _bad(path, f"made for {c['bits']}-bit samples; /dev/hwrng delivers 8-bit "
                   "samples")
    if c["h"] < MIN_CLAIM:
        raise _bad(path, f"claims {c['h']:.6f} bits per sample, less than the "
                   f"{MIN_CLAIM} this table accepts: the source is not fit")
    return Claim("hwrng", c["h"], "assessment", str(path), sha)


def assessment_document(test_run: dict[str, Any], *, source: str, bits: int, h: float,
                        track: str, samples: int, restart: dict[str, Any] | None = None
                        ) -> dict[str, Any]:
    """The assessment file: the claim first, then the whole ``etg cert entropy`` JSON
    (the reference's layout) it rests on."""
    claim: dict[str, Any] = {"source": source, "bitsPerSample": bits, "hClaimed": h,
                             "track": track, "samples": samples,
                             "samplesSha256": test_run["sha256"],
                             "samplesFile": test_run["filename"]}
    if restart is not None:
        claim["restart"] = restart
    return {"format": FORMAT, "claim": claim, "assessment": test_run}
