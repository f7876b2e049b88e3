"""NIST CAVP DRBG known-answer vectors (``.rsp`` files): parse them and run them.

A file holds groups; a group is a run of ``[Header]`` lines (mechanism, prediction
resistance, lengths) followed by cases (``COUNT = n`` and its fields). Every case of
every group whose mechanism we implement is run exactly as CAVS runs it:

* instantiate with EntropyInput, Nonce, PersonalizationString;
* prediction resistance False: optionally reseed (EntropyInputReseed,
  AdditionalInputReseed), then Generate twice with the two AdditionalInput values;
* prediction resistance True: Generate twice with prediction resistance, each reseeding
  from the next EntropyInputPR;
* compare the second Generate's output with ReturnedBits.

Groups of mechanisms we do not implement (Hash_DRBG, other ciphers or hashes) are
reported as skipped with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rng.drbg import Drbg, ScriptedEntropy
from rng.errors import RngError
from rng.mechanisms import MECHANISMS

_FAMILY_RE = re.compile(r"#\s*(HMAC|Hash|CTR)_DRBG\b")


@dataclass
class Case:
    count: int
    fields: dict[str, list[bytes]]

    def one(self, name: str) -> bytes:
        values = self.fields.get(name, [b""])
        return values[0]


@dataclass
class Group:
    source: str  # file name
    family: str  # HMAC, Hash or CTR
    headers: dict[str, str]  # e.g. {"SHA-256": "", "PredictionResistance": "False", ...}
    cases: list[Case] = field(default_factory=list)

    @property
    def title(self) -> str:
        names = [k for k, v in self.headers.items() if v == ""]
        lens = ", ".join(f"{k}={v}" for k, v in self.headers.items() if v != "")
        return f"{self.family}_DRBG [{' '.join(names)}] {lens}"

    @property
    def prediction_resistance(self) -> bool:
        return self.headers.get("PredictionResistance", "False") == "True"

    def mechanism(self) -> tuple[str | None, str]:
        """Our mechanism name for this group, or None and the reason it is skipped."""
        names = [k for k, v in self.headers.items() if v == ""]
        if self.family == "HMAC":
            if names == ["SHA-256"]:
                return "hmac-drbg", ""
            return None, f"HMAC_DRBG with {' '.join(names)}: only SHA-256 is implemented"
        if self.family == "CTR":
            if names == ["AES-256 use df"]:
                return "ctr-drbg", ""
            if names == ["AES-256 no df"]:
                return "ctr-drbg-no-df", ""
            return None, f"CTR_DRBG {' '.join(names)}: only AES-256 (df and no df) is implemented"
        return None, f"{self.family}_DRBG is not implemented (HMAC_DRBG and CTR_DRBG are)"


def parse_rsp(text: str, source: str = "<rsp>") -> list[Group]:
    """Every group of a CAVP DRBG response file, in file order."""
    family = ""
    m = _FAMILY_RE.search(text)
    if m:
        family = m.group(1)
    elif "HMAC_DRBG" in source:
        family = "HMAC"
    elif "Hash_DRBG" in source:
        family = "Hash"
    elif "CTR_DRBG" in source:
        family = "CTR"
    groups: list[Group] = []
    current: Group | None = None
    case: Case | None = None
    in_headers = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            if not in_headers:
                current = Group(source, family, {})
                groups.append(current)
                case = None
                in_headers = True
            body = line[1:-1]
            key, _, value = body.partition("=")
            current.headers[key.strip()] = value.strip()  # type: ignore[union-attr]
            continue
        in_headers = False
        key, sep, value = line.partition("=")
        if not sep or current is None:
            raise ValueError(f"{source}: cannot read line {line!r}")
        key, value = key.strip(), value.strip()
        if key == "COUNT":
            case = Case(int(value), {})
            current.cases.append(case)
            continue
        if case is None:
            raise ValueError(f"{source}: field {key} before any COUNT")
        case.fields.setdefault(key, []).append(bytes.fromhex(value))
    return groups


def run_case(group: Group, case: Case, mechanism: str) -> bool:
    """True when our DRBG reproduces the case's ReturnedBits: through ``generate`` and,
    for a case without additional input, also through ``generate_into`` (the path of
    `etg rng stream`)."""
    expected = case.one("ReturnedBits")
    adds = case.fields.get("AdditionalInput", [b"", b""])
    paths = [False]
    if not any(adds) and not group.prediction_resistance:
        paths.append(True)
    return all(_returned_bits(group, case, mechanism, into) == expected for into in paths)


def _returned_bits(group: Group, case: Case, mechanism: str, into: bool) -> bytes | None:
    """The case's second Generate (None: an error, or entropy left unused)."""
    cls: type[Drbg] = MECHANISMS[mechanism]
    n_bytes = len(case.one("ReturnedBits"))
    adds = case.fields.get("AdditionalInput", [b"", b""])
    script = [case.one("EntropyInput")]
    if cls.nonce_bytes:
        script.append(case.one("Nonce"))
    pr = group.prediction_resistance
    if pr:
        script.extend(case.fields.get("EntropyInputPR", []))
    elif "EntropyInputReseed" in case.fields:
        script.append(case.one("EntropyInputReseed"))
    source = ScriptedEntropy(*script)
    try:
        drbg = cls(
            source,
            personalization=case.one("PersonalizationString"),
            prediction_resistance=pr,
        )
        if not pr and "EntropyInputReseed" in case.fields:
            drbg.reseed(case.one("AdditionalInputReseed"))
        if into:
            out = bytearray(n_bytes)
            drbg.generate_into(out)
            drbg.generate_into(out)
        else:
            drbg.generate(n_bytes, adds[0], prediction_resistance=pr)
            out = bytearray(drbg.generate(n_bytes, adds[1], prediction_resistance=pr))
        drbg.uninstantiate()
    except RngError:
        return None
    return bytes(out) if source.remaining == 0 else None


@dataclass
class GroupResult:
    group: Group
    mechanism: str | None
    passed: int = 0
    failed: int = 0
    failed_counts: list[int] = field(default_factory=list)
    skip_reason: str = ""


def shipped_vectors() -> list[Path]:
    """The vector files shipped in the package (no-reseed and PR-false sets)."""
    root = Path(__file__).resolve().parent / "vectors"
    found: list[Path] = []
    for sub in ("no_reseed", "pr_false"):
        found.extend(sorted((root / sub).glob("*.rsp")))
    return found


def run_file(path: Path, only: set[str] | None = None,
             cases_per_group: int | None = None) -> Iterator[GroupResult]:
    """Run every group of one file; ``only`` limits it to some mechanisms (self-test),
    ``cases_per_group`` to the first cases of each group (the table's power-up)."""
    groups = parse_rsp(path.read_text(encoding="ascii"), path.name)
    for group in groups:
        mech, reason = group.mechanism()
        if mech is None or (only is not None and mech not in only):
            yield GroupResult(group, None, skip_reason=reason or "not the configured mechanism")
            continue
        result = GroupResult(group, mech)
        for case in group.cases[:cases_per_group]:
            if run_case(group, case, mech):
                result.passed += 1
            else:
                result.failed += 1
                result.failed_counts.append(case.count)
        yield result
