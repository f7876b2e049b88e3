"""Power-up self-test (SP 800-90A 11.3, SP 800-90B 4.3/4.4): run before the first draw.

Checks, each reported with a one-line result:

* known-answer tests: every shipped CAVP case of the mechanism (instantiate, reseed,
  generate, with and without personalization string and additional input) for
  `etg rng selftest`; at a table's power-up the first case of every CAVP group, so each
  function and each combination of inputs is still checked (SP 800-90A 11.3 asks for a
  known answer per function, not a count) in a few milliseconds instead of a third of a
  second;
* prediction resistance: a generate with prediction resistance takes fresh entropy
  from the source and equals an explicit reseed followed by a plain generate;
* reseed counter: with reseed interval 1 the second generate reseeds by itself;
* request limit: more than 2^19 bits in one generate is refused;
* uninstantiate: the working state is zero afterwards and the DRBG refuses to run;
* health tests: a stuck sample stream trips the repetition count test, a biased one the
  adaptive proportion test, and a balanced one passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rng.cavp import run_file, shipped_vectors
from rng.drbg import MAX_REQUEST_BYTES, Drbg, ScriptedEntropy
from rng.errors import DrbgError
from rng.health import HealthFailure, HealthTests
from rng.mechanisms import MECHANISMS


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'PASS' if self.ok else 'FAIL'}  {self.name}: {self.detail}"


#: The shipped vector files that hold each mechanism's groups (the others are not read).
_VECTOR_FILES = {"ctr-drbg": "_use_df", "ctr-drbg-no-df": "_no_df", "hmac-drbg": "HMAC_"}


def _kat(mechanism: str, cases_per_group: int | None = None) -> Check:
    passed = failed = 0
    part = _VECTOR_FILES.get(mechanism, "")
    for path in shipped_vectors():
        if part not in path.name:
            continue
        for result in run_file(path, only={mechanism}, cases_per_group=cases_per_group):
            passed += result.passed
            failed += result.failed
    ok = failed == 0 and passed > 0
    return Check(f"{mechanism} known-answer tests", ok, f"{passed} passed, {failed} failed")


def _pattern(n: int, tag: int) -> bytes:
    return bytes((i * 37 + tag) % 256 for i in range(n))


def _init_script(cls: type[Drbg], tag: int) -> list[bytes]:
    """Entropy input (and nonce, if the mechanism takes one) for an instantiate."""
    script = [_pattern(cls.entropy_bytes, tag)]
    if cls.nonce_bytes:
        script.append(_pattern(cls.nonce_bytes, tag + 1))
    return script


def _prediction_resistance(mechanism: str) -> Check:
    cls = MECHANISMS[mechanism]
    init = _init_script(cls, 1)
    e1, e2 = _pattern(cls.entropy_bytes, 3), _pattern(cls.entropy_bytes, 4)
    add = _pattern(min(16, cls.max_input_bytes), 5)
    src = ScriptedEntropy(*init, e1, e2)
    pr = cls(src, personalization=b"selftest", prediction_resistance=True)
    out1 = pr.generate(64, add, prediction_resistance=True)
    out2 = pr.generate(64, prediction_resistance=True)
    ref = cls(ScriptedEntropy(*init, e1, e2), personalization=b"selftest")
    ref.reseed(add)
    exp1 = ref.generate(64)
    ref.reseed()
    exp2 = ref.generate(64)
    ok = (out1, out2) == (exp1, exp2) and src.remaining == 0 and out1 != out2
    return Check(
        "prediction resistance", ok, "each generate reseeded from the source" if ok else "mismatch"
    )


def _reseed_counter(mechanism: str) -> Check:
    cls = MECHANISMS[mechanism]
    src = ScriptedEntropy(*_init_script(cls, 6), _pattern(cls.entropy_bytes, 8))
    drbg = cls(src, reseed_interval=1)
    drbg.generate(16)
    before = src.remaining
    drbg.generate(16)
    ok = before == 1 and src.remaining == 0 and drbg.reseeds == 1
    try:
        drbg.generate(MAX_REQUEST_BYTES + 1)
        limit_ok = False
    except DrbgError:
        limit_ok = True
    drbg.uninstantiate()
    try:
        drbg.generate(1)
        dead_ok = False
    except DrbgError:
        dead_ok = True
    zero_ok = drbg.state_is_zero()
    return Check(
        "reseed counter, request limit, uninstantiate",
        ok and limit_ok and dead_ok and zero_ok,
        f"reseed at interval {'ok' if ok else 'MISSING'}, 2^19-bit limit "
        f"{'ok' if limit_ok else 'MISSING'}, zeroized {'ok' if zero_ok and dead_ok else 'NO'}",
    )


def _health() -> Check:
    def trips(samples: bytes, h: float) -> str | None:
        tests = HealthTests(h)
        try:
            tests.check(samples)
        except HealthFailure as exc:
            return exc.test
        return None

    stuck = trips(bytes(64), 8.0)
    biased = trips(bytes(((i % 2) * (i % 7)) for i in range(1024)), 8.0)  # ~57% zeros
    good = trips(bytes(range(256)) * 8, 8.0)
    ok = stuck == "repetition count test" and biased == "adaptive proportion test" and not good
    return Check(
        "health tests", ok, f"stuck -> {stuck}, biased -> {biased}, balanced -> {good or 'pass'}"
    )


#: RFC 4231 test cases 1 and 2 (HMAC-SHA-256), then the conditioning key on a fixed input
#: (its digest computed with the standard library's hmac, an implementation independent of
#: the one the source uses)
CONDITIONING_KAT = (
    (b"\x0b" * 20, b"Hi There",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (None, bytes(range(256)) + bytes(64),
     "93bd45d67a5504a40447e176c8baaf05eded51be40fd0133efc919da29420aa5"),
)


def _conditioning() -> Check:
    """The conditioning component's known-answer test (90B 3.1.5.1.1: a vetted function,
    tested as the DRBG is): the function the hwrng source uses, on known inputs."""
    from rng.entropy import CONDITIONING_KEY, condition

    bad = []
    for key, data, want in CONDITIONING_KAT:
        got = condition(data, CONDITIONING_KEY if key is None else key).hex()
        if got != want:
            bad.append(f"{data[:8]!r}...: {got[:16]}")
    return Check("conditioning known-answer tests", not bad,
                 f"{len(CONDITIONING_KAT) - len(bad)} passed, {len(bad)} failed"
                 + (f" ({'; '.join(bad)})" if bad else ""))


def power_up_selftest(mechanism: str, cases_per_group: int | None = None) -> list[Check]:
    """Run every check for ``mechanism``; a check that raises counts as failed.
    ``cases_per_group`` limits the known-answer tests to the first cases of each group."""
    steps: list[tuple[str, Callable[[], Check]]] = [
        ("known-answer tests", lambda: _kat(mechanism, cases_per_group)),
        ("prediction resistance", lambda: _prediction_resistance(mechanism)),
        ("reseed counter", lambda: _reseed_counter(mechanism)),
        ("health tests", _health),
        ("conditioning known-answer tests", _conditioning),
    ]
    checks = []
    for name, step in steps:
        try:
            checks.append(step())
        except Exception as exc:  # a self-test that crashes has failed, with its cause
            checks.append(Check(name, False, f"{type(exc).__name__}: {exc}"))
    return checks
