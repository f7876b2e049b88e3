"""The dealer-law kernel compiled ahead of time (issue 49, the PAR calculation's speed):
the same laws bit for bit as numba's JIT kernel, refused when stale, and a PAR
calculation that then never imports numba (0.8-0.9 s of its start-up)."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from firmware.math.dealer import removed_cards, removed_cards_aot
from firmware.math.dealer.many_shoes import joint_laws

AOT = removed_cards_aot.aot()
needs_aot = pytest.mark.skipif(AOT is None, reason="make setup did not build the AOT kernel")


def _batch(seed: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Six decks less an up card, and ``k`` removed multisets of 2-9 cards."""
    rng = np.random.default_rng(seed)
    c0 = np.array([24] * 9 + [96], dtype=np.int64)
    c0[5] -= 1  # up card 6
    rem = np.zeros((k, 10), dtype=np.int64)
    for row in rem:
        for v in rng.integers(0, 10, size=int(rng.integers(2, 10))):
            row[v] += 1
    return c0, rem


def _laws(kernel: object, c0: np.ndarray, rem: np.ndarray) -> np.ndarray:
    old = removed_cards._kernel
    removed_cards._kernel = lambda: kernel  # type: ignore[assignment]
    try:
        return removed_cards.exact_joint_laws("standard", c0, rem, 5, False)
    finally:
        removed_cards._kernel = old  # type: ignore[assignment]


@needs_aot
def test_aot_laws_equal_jit_laws_bit_for_bit() -> None:
    from firmware.math.cache import load_kernel

    jit = load_kernel("firmware.math.dealer.removed_cards_kernel")
    c0, rem = _batch(1, 3000)
    a, b = _laws(AOT, c0, rem), _laws(jit, c0, rem)
    assert a.tobytes() == b.tobytes()
    # and both are the exact laws (the numpy implementation, one composition at a time)
    ref = joint_laws("standard", c0[None, :] - rem[:200], 5, False)
    assert np.max(np.abs(a[:200] - ref)) < 1e-13


def test_stale_or_foreign_build_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    removed_cards_aot.aot.cache_clear()
    stale = SimpleNamespace(source_digest=lambda: removed_cards_aot.source_digest() ^ 1)
    monkeypatch.setattr(removed_cards_aot.importlib, "import_module", lambda name: stale)
    try:
        assert removed_cards_aot.aot() is None
        removed_cards_aot.aot.cache_clear()
        monkeypatch.setattr(removed_cards_aot.importlib, "import_module",
                            lambda name: SimpleNamespace())
        assert removed_cards_aot.aot() is None
        removed_cards_aot.aot.cache_clear()
        monkeypatch.setenv("ETG_MATH_JIT", "1")
        assert removed_cards_aot.aot() is None
    finally:
        removed_cards_aot.aot.cache_clear()


def test_digest_names_the_kernel_source_and_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    d = removed_cards_aot.source_digest()
    monkeypatch.setattr(removed_cards_aot, "cpu_signature", lambda: b"another cpu")
    assert removed_cards_aot.source_digest() != d


@needs_aot
def test_par_calculation_imports_no_numba_nor_scipy() -> None:
    code = ("import os, sys, json; os.environ['ETG_NO_CACHE'] = '1'\n"
            "from firmware.math.ruleset import load\n"
            "from firmware.math.games.house_edge import analyse\n"
            "r = analyse(load('blackjack'))\n"
            "print(json.dumps([r.house_edge, sorted(m for m in ('numba', 'scipy', 'cffi')"
            " if m in sys.modules)]))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    edge, loaded = json.loads(out.strip().splitlines()[-1])
    assert loaded == []
    assert edge == pytest.approx(0.0033170264374472805, abs=0)
