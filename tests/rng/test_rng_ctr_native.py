"""Issue 49: CTR_DRBG's bulk requests in the compiled loop (rng.ctr_native) give the bits,
the state and the reseeds of the Python loop, run the CAVP vectors, fail closed, and stay
out of a table's own draws."""

from __future__ import annotations

import subprocess
import sys
from hashlib import sha256
from pathlib import Path

import pytest

from rng import ctr_native
from rng.cavp import run_file, shipped_vectors
from rng.ctr_drbg import CtrDrbg, CtrDrbgNoDf
from rng.drbg import MAX_REQUEST_BYTES, ScriptedEntropy
from rng.errors import DrbgError

pytest.importorskip("numba")

_MIB = 1 << 20


def _drbg(cls: type[CtrDrbg], interval: int = 5) -> CtrDrbg:
    reseeds = [bytes([i]) * cls.entropy_bytes for i in range(1, 40)]
    first = [bytes(range(cls.entropy_bytes))] + ([bytes(16)] if cls.nonce_bytes else [])
    return cls(ScriptedEntropy(*first, *reseeds), personalization=b"issue 49",
               reseed_interval=interval)


def test_the_compiled_loop_is_used_here() -> None:
    """This machine has numba and a libcrypto 3: the check passed, and a bulk call makes
    the instantiation's EVP context (a silently lost fast path would be a regression)."""
    assert ctr_native.bulk() is not None
    d = _drbg(CtrDrbg)
    d.stream_into(bytearray(ctr_native.BULK_MIN_BYTES))
    assert d._native is not None
    d.stream_into(bytearray(ctr_native.BULK_MIN_BYTES - 1))  # below: the Python loop


@pytest.mark.parametrize("cls", [CtrDrbg, CtrDrbgNoDf])
def test_compiled_loop_gives_the_python_loops_bits_state_and_reseeds(
        cls: type[CtrDrbg]) -> None:
    """Bulk calls of whole and partial requests, with a reseed every 5 requests falling
    inside a call and V set to carry over 2^128, against the same requests one by one
    through generate_into (the Python loop): same bytes, Key || V, counter, reseeds."""
    fast, slow = _drbg(cls), _drbg(cls)
    for d in (fast, slow):
        d._state[32:] = b"\xff" * 15 + b"\xfe"  # the second request's V + 1 wraps
    for size in (3 * _MIB + 17, _MIB, 2 * _MIB + MAX_REQUEST_BYTES - 1):
        a, b = bytearray(size), bytearray(size)
        fast.stream_into(a)
        view = memoryview(b)
        for at in range(0, size, MAX_REQUEST_BYTES):
            slow.generate_into(view[at:at + MAX_REQUEST_BYTES])
        assert sha256(a).digest() == sha256(b).digest()
        assert fast._state == slow._state
        assert (fast.reseed_counter, fast.reseeds) == (slow.reseed_counter, slow.reseeds)
    assert fast.reseeds > 10
    assert fast.generate(100, b"extra") == slow.generate(100, b"extra")
    fast.uninstantiate()
    assert fast.state_is_zero() and fast._native is None


def test_cavp_vectors_through_the_compiled_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every CTR_DRBG CAVP case without additional input, its generate_into path run
    through the compiled loop (one request per call, the threshold lowered to 0)."""
    used = []
    real = ctr_native.NativeContext.requests

    def counted(self: ctr_native.NativeContext, out: memoryview, count: int) -> None:
        used.append(count)
        real(self, out, count)

    monkeypatch.setattr(ctr_native, "BULK_MIN_BYTES", 1)
    monkeypatch.setattr(ctr_native.NativeContext, "requests", counted)
    monkeypatch.setattr(CtrDrbg, "generate_into", lambda self, out: self.stream_into(out))
    for path in shipped_vectors():
        if path.name.startswith("CTR_DRBG"):
            for result in run_file(path):
                assert result.passed and not result.failed_counts, result
    assert len(used) > 100 and set(used) == {1}


def test_a_failing_evp_call_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An EVP error inside the loop: DrbgError, the instantiation zeroized and refused."""
    d = _drbg(CtrDrbg)
    d.stream_into(bytearray(_MIB))

    def broken(self: ctr_native.NativeContext, out: memoryview, count: int) -> None:
        raise OSError("libcrypto: EVP_EncryptUpdate failed")

    monkeypatch.setattr(ctr_native.NativeContext, "requests", broken)
    with pytest.raises(DrbgError, match="EVP_EncryptUpdate"):
        d.stream_into(bytearray(_MIB))
    assert not d.alive and d.state_is_zero()
    with pytest.raises(DrbgError, match="after uninstantiate"):
        d.stream_into(bytearray(_MIB))


def test_a_loop_that_disagrees_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """The once-per-process check: a loop whose bytes differ from the reference (here a
    kernel that leaves V alone) is refused, and the DRBG keeps its Python loop."""
    made = ctr_native.bulk()
    assert made is not None and ctr_native._agrees(made)
    kernel = made._kernel

    class NoCount:
        new_context = kernel.new_context
        free_context = kernel.free_context

        @staticmethod
        def requests(ctx, state, out, count, zeros, skip, outl):  # type: ignore[no-untyped-def]
            v = bytes(state[32:])
            rc = kernel.requests(ctx, state, out, count, zeros, skip, outl)
            state[32:] = list(v)
            return rc

    assert not ctr_native._agrees(ctr_native.Bulk(NoCount))


def test_a_tables_draws_and_power_up_never_load_numba() -> None:
    """The table's own draws, its power-up KATs and small stream calls stay in Python:
    numba is imported only by a bulk call (`etg rng stream`)."""
    code = (
        "import sys\n"
        "from rng.settings import RngSettings\n"
        "from rng.table_rng import open_table_rng\n"
        "with open_table_rng(RngSettings(entropy='os', cycle_hz=0.0), bench=True) as r:\n"
        "    r.random_bytes(1000); r.stream_into(memoryview(bytearray(70000)))\n"
        "    assert 'numba' not in sys.modules and 'rng.ctr_kernel' not in sys.modules\n"
        "    r.stream_into(memoryview(bytearray(1 << 20)))\n"
        "    print('rng.ctr_kernel' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True)
    assert out.stdout.strip() == "True"


def test_etg_rng_stream_gives_the_same_bits_with_and_without_the_compiled_loop(
        tmp_path: Path) -> None:
    """End to end, a seeded `etg rng stream` of 3 MiB + 5 bytes: into a pipe (pages lent)
    and into a file (the writer process), compiled loop on and off: one digest."""
    import os

    digests = set()
    for off in ("", "1"):
        env = {**os.environ, "ETG_RNG_NO_NATIVE": off}
        cmd = [sys.executable, "-m", "firmware", "rng", "stream", "--seed", "5eed",
               "--bytes", str(3 * _MIB + 5)]
        piped = subprocess.run(cmd, capture_output=True, env=env, timeout=300, check=True)
        digests.add(sha256(piped.stdout).hexdigest())
        out = tmp_path / f"s{off}.bin"
        subprocess.run([*cmd, "--out", str(out)], capture_output=True, env=env, timeout=300,
                       check=True)
        digests.add(sha256(out.read_bytes()).hexdigest())
    assert len(digests) == 1


def test_a_dropped_drbg_frees_its_evp_context(monkeypatch: pytest.MonkeyPatch) -> None:
    """A DRBG garbage-collected without uninstantiate still frees (and so wipes) its
    EVP context, as cryptography's contexts are freed with their objects."""
    import gc

    freed = []
    made = ctr_native.bulk()
    assert made is not None
    real = made._kernel.free_context

    class Kernel:
        new_context = made._kernel.new_context
        requests = made._kernel.requests

        @staticmethod
        def free_context(ctx: int) -> None:
            freed.append(ctx)
            real(ctx)

    monkeypatch.setattr(made, "_kernel", Kernel)
    d = _drbg(CtrDrbg)
    d.stream_into(bytearray(_MIB))
    assert d._native is not None
    ctx = d._native._ctx
    del d
    gc.collect()
    assert ctx and ctx in freed  # (other tests' dropped DRBGs may be collected too)


def test_a_read_only_buffer_is_refused_not_written() -> None:
    """The compiled loop writes through an address: a read-only buffer takes the Python
    path, which refuses it (bytes stay bytes)."""
    d = _drbg(CtrDrbg)
    frozen = bytes(_MIB)
    with pytest.raises(TypeError):
        d.stream_into(frozen)  # type: ignore[arg-type]
    assert frozen == bytes(_MIB)
