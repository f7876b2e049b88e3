"""The non-IID kernels compiled ahead of time (``make setup``) equal numba's JIT ones, are
used only when built from the current source, and spare an assessment numba's start-up.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from rng.cert.sp80090b import compiled, kernels
from rng.cert.sp80090b.kernels import aot as aot_build
from tests.cert.sp80090b.reference import DATA


def _aot():
    mod = compiled.aot()
    assert mod is not None, "the AOT kernels are not built (or stale): run `make setup`"
    return mod


def _inputs(rng: np.random.Generator):
    """Binary sequences (fair, biased, sticky, periodic) and 4-symbol ones."""
    for n in (40, 300, 5_000, 20_000):
        for p in (0.5, 0.1):
            yield 2, (rng.random(n) < p).astype(np.int64)
        yield 2, (np.cumsum(rng.random(n) < 0.2) % 2).astype(np.int64)
        yield 4, rng.integers(0, 4, n).astype(np.int64)
    yield 2, np.tile(np.array([0, 1, 1, 0, 1], dtype=np.int64), 2_000)


def test_aot_kernels_equal_the_jit_kernels() -> None:
    mod = _aot()
    rng = np.random.default_rng(47)
    checked = 0
    for k, s in _inputs(rng):
        u8 = s.astype(np.uint8)
        pairs = [("collision_walk", (u8,)), ("multi_mcw", (s, k)), ("lag", (s,)),
                 ("multi_mmc", (s, k, compiled.table_size(16 * s.size + 16))),
                 ("lz78y", (s, k, compiled.table_size(compiled.LZ_MAX_DICT + 16)))]
        if k == 2:
            pairs += [("lag_binary", (s,)), ("multi_mmc_binary", (s,)),
                      ("multi_mcw_binary", (s,)),
                      ("lz78y_binary", (s,))]
        keys = kernels.packed_keys(u8, 2, 32)
        pairs += [("packed_keys", (u8, 2, 32)), ("radix_argsort", (keys,))]
        sa = kernels.radix_argsort(keys)
        pairs += [("neighbour_lcp", (np.ascontiguousarray(keys[sa]), sa.copy(), 2, 32,
                                     s.size)), ("kasai", (s, sa))]
        lcp = kernels.kasai(s, sa)
        pairs += [("tuple_counts", (lcp, max(int(lcp.max()), 1)))]
        for name, args in pairs:
            want = getattr(kernels, name)(*[a.copy() if isinstance(a, np.ndarray) else a
                                            for a in args])
            got = getattr(mod, name)(*[a.copy() if isinstance(a, np.ndarray) else a
                                       for a in args])
            for w, g in zip(want if isinstance(want, tuple) else (want,),
                            got if isinstance(got, tuple) else (got,), strict=True):
                assert np.array_equal(np.asarray(w), np.asarray(g)), (name, k, s.size)
            checked += 1
    for z in (0.01, 1 / 64, 0.3, 0.9):
        assert mod.compression_g(z, 166_666, 1000) == kernels.compression_g(z, 166_666, 1000)
    assert checked > 100
    assert set(aot_build.SIGNATURES) <= set(dir(mod))


def test_the_binary_kernels_equal_the_general_ones() -> None:
    """The kernels specialised for bits give what the kernels for any alphabet give on
    two symbols (fair, biased, sticky, periodic bits; NIST's two 10^6-bit files)."""
    rng = np.random.default_rng(90)
    seqs = [s for k, s in _inputs(rng) if k == 2]
    seqs += [np.fromfile(DATA / f"{f}.bin", dtype=np.uint8).astype(np.int64)[:200_000]
             for f in ("truerand_1bit", "ringOsc-nist")]
    for s in seqs:
        assert kernels.multi_mcw_binary(s) == kernels.multi_mcw(s, 2)
        assert kernels.lag_binary(s) == kernels.lag(s)
        items = min(16 * compiled.MMC_MAX_ENTRIES, 16 * s.size + 16)
        assert kernels.multi_mmc_binary(s) == kernels.multi_mmc(s, 2, compiled.table_size(items))
        assert kernels.lz78y_binary(s) == kernels.lz78y(
            s, 2, compiled.table_size(compiled.LZ_MAX_DICT + 16))


def test_the_suffix_sort_is_a_stable_argsort() -> None:
    """The bucket sort of the suffixes' keys gives numpy's stable argsort: random keys,
    few distinct keys (one bucket holds them all), keys of sparse bits."""
    rng = np.random.default_rng(8)
    for trial in range(24):
        n = int(rng.integers(1, 6_000))
        if trial % 3 == 0:
            keys = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * np.uint64(2)
        elif trial % 3 == 1:
            keys = rng.integers(0, 5, n).astype(np.uint64) << np.uint64(trial)
        else:
            keys = kernels.packed_keys((rng.random(n) < 0.1).astype(np.uint8), 1, 64)
        want = np.argsort(keys, kind="stable")
        assert np.array_equal(kernels.radix_argsort(keys), want)
        assert np.array_equal(compiled.kernel("radix_argsort")(keys), want)


def test_a_stale_aot_build_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel edited after `make setup` built the AOT module: its digest no longer
    matches, so the JIT kernel (the current source) runs instead."""
    _aot()
    compiled.aot.cache_clear()
    monkeypatch.setattr(compiled, "source_digest", lambda: 12345)
    try:
        assert compiled.aot() is None
        assert compiled.kernel("lag") is kernels.lag
    finally:
        compiled.aot.cache_clear()


def test_an_aot_build_for_another_cpu_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build targets its machine's CPU: a checkout copied to another CPU (other
    feature flags) must not load it (an illegal instruction would kill the run)."""
    _aot()
    compiled.aot.cache_clear()
    real = compiled.cpu_signature()
    assert real.strip()
    monkeypatch.setattr(compiled, "cpu_signature", lambda: real + b" avx512f")
    try:
        assert compiled.aot() is None
    finally:
        compiled.aot.cache_clear()
    monkeypatch.undo()
    assert compiled.aot() is not None


def test_the_constants_are_the_kernels() -> None:
    assert (compiled.MCW_WINDOWS, compiled.LAG_D, compiled.MMC_D, compiled.MMC_MAX_ENTRIES,
            compiled.LZ_B, compiled.LZ_MAX_DICT) == (
        kernels.MCW_WINDOWS, kernels.LAG_D, kernels.MMC_D, kernels.MMC_MAX_ENTRIES,
        kernels.LZ_B, kernels.LZ_MAX_DICT)
    for items in (1, 511, 512, 513, 1_600_016, 65_552):
        assert compiled.table_size(items) == kernels.table_size(items)


@pytest.mark.parametrize("name,bits", [("rand1_short", 1), ("rand4_short", 4)])
def test_an_assessment_starts_without_numba(name: str, bits: int) -> None:
    """numba's start-up (about half a second of CPU) is most of the reference tool's
    whole time on 10^6 bits: with the AOT kernels built, the non-IID track never
    imports it."""
    _aot()
    code = ("import sys\nfrom firmware.cli import main\n"
            f"rc = main(['cert', 'entropy', {str(DATA / (name + '.bin'))!r}, "
            f"'--bits-per-symbol', '{bits}'])\n"
            "print('numba' in sys.modules, rc)\n")
    env = {k: v for k, v in os.environ.items() if k != "ETG_SP80090B_JIT"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300, check=True).stdout.splitlines()
    assert out[-1] == "False 0", out[-5:]
