"""CTR_DRBG's bulk path in one compiled loop: OpenSSL's EVP called without Python between.

WHY: a 2^19-bit Generate request is 64 KiB of AES-256-CTR keystream (about 8 µs here),
and SP 800-90A allows no larger request; each needs a new key. Through ``cryptography``
that new key costs about 2 µs of Python and bindings per request (a new context, its
objects), which held the in-process stream at 0.65-0.78 of raw keystream. OpenSSL itself
re-keys a context in about 0.1 µs (measured in C on this machine: a full request 8.2-8.5
µs against 8.05 µs of raw keystream). So `etg rng stream` runs its requests in a loop
compiled by numba that calls libcrypto's EVP functions directly: V + 1, re-key, output,
Update, per request, as :meth:`rng.ctr_drbg.CtrDrbg._requests_into` does in Python.

Same library: ``cryptography`` is OpenSSL too; this loads the system's libcrypto (3.x)
for the loop. What decides it is used (:func:`bulk`, once per process): numba and
llvmlite importable, a libcrypto 3 with the EVP calls, and a check that the loop gives
bit for bit the bytes and the state of the Python path (itself held to the CAVP vectors)
for a state whose V carries over 2^128 and for whole, partial and empty requests.
Anything short of that: None, and the DRBG keeps its Python loop (same output). The
tests run every CAVP case without additional input through this loop as well.

Only bulk calls of at least :data:`BULK_MIN_BYTES` use it (`etg rng stream`'s 1-2 MiB
regions): a table's own draws and power-up KATs never import numba.

Numba's machine code is cached in ``$NUMBA_CACHE_DIR`` or the etg cache
(``$ETG_CACHE_DIR``, else ``$XDG_CACHE_HOME/etg``, ``~/.cache/etg``) under ``numba/``,
never beside the program (a signed release's files stay as approved).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import importlib
import os
from pathlib import Path
from typing import Any

#: A stream_into call at least this long runs in the compiled loop (16 requests).
BULK_MIN_BYTES = 1 << 20
_REQUEST = 1 << 16  # 2^19 bits
_SEEDLEN = 48
_OPENSSL_3 = 0x30000000


def _cache_dir() -> Path:
    if os.environ.get("ETG_CACHE_DIR"):
        return Path(os.environ["ETG_CACHE_DIR"]) / "numba"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "etg" / "numba"


def _libcrypto() -> str | None:
    """The system libcrypto's name when it is OpenSSL 3 or later, else None."""
    name = ctypes.util.find_library("crypto")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        lib.OpenSSL_version_num.restype = ctypes.c_ulong
        for symbol in ("EVP_CIPHER_CTX_new", "EVP_CIPHER_CTX_free", "EVP_aes_256_ctr",
                       "EVP_EncryptInit_ex", "EVP_EncryptUpdate"):
            getattr(lib, symbol)
        version = lib.OpenSSL_version_num()
    except (OSError, AttributeError):
        return None
    return name if version >= _OPENSSL_3 else None


class Bulk:
    """The compiled loop and its buffers (shared, read-only zeros; one per process)."""

    def __init__(self, kernel: Any) -> None:
        import numpy as np

        self._np = np
        self._kernel = kernel
        self._zeros = np.zeros(_REQUEST, np.uint8)

    def context(self, state: bytearray) -> NativeContext:
        """A context of this DRBG: its EVP context, keyed later per request, and the
        numpy views the loop reads (no copy of the state)."""
        np = self._np
        view = np.frombuffer(state, np.uint8)
        ctx = int(self._kernel.new_context(view))
        if not ctx:
            raise OSError("libcrypto: no AES-256-CTR context")
        return NativeContext(self, ctx, view)


class NativeContext:
    def __init__(self, bulk: Bulk, ctx: int, state: Any) -> None:
        np = bulk._np
        self._bulk, self._ctx, self._state = bulk, ctx, state
        self._skip = np.zeros(16, np.uint8)
        self._outl = np.zeros(1, np.int32)

    def requests(self, out: memoryview, count: int) -> None:
        """``count`` requests into ``out`` (see :func:`rng.ctr_kernel.requests`)."""
        if not self._ctx:
            raise OSError("libcrypto context already freed")
        b = self._bulk
        arr = b._np.frombuffer(out, b._np.uint8) if len(out) else b._np.zeros(0, b._np.uint8)
        try:
            if b._kernel.requests(self._ctx, self._state, arr, count, b._zeros, self._skip,
                                  self._outl):
                raise OSError("libcrypto: EVP_EncryptInit_ex/EVP_EncryptUpdate failed")
        finally:
            del arr  # the caller's buffer no longer exported (an mmap can be closed)

    def free(self) -> None:
        """Free the EVP context (OpenSSL wipes its key schedule) and the skip block."""
        ctx, self._ctx = self._ctx, 0
        self._bulk._kernel.free_context(ctx)
        self._skip[:] = 0

    def __del__(self) -> None:
        # a DRBG dropped without uninstantiate: its key schedule is still wiped when
        # the object goes, as cryptography's contexts are
        if getattr(self, "_ctx", 0):
            self.free()


@functools.cache
def bulk() -> Bulk | None:
    """The compiled loop, checked against the Python loop; None where it cannot be used."""
    if os.environ.get("ETG_RNG_NO_NATIVE"):
        return None
    name = _libcrypto()
    if name is None:
        return None
    try:
        import llvmlite.binding as llvm
        import numba

        llvm.load_library_permanently(name)
        if not os.environ.get("NUMBA_CACHE_DIR"):
            numba.config.CACHE_DIR = str(_cache_dir())  # type: ignore[attr-defined]
        made = Bulk(importlib.import_module("rng.ctr_kernel"))
    except Exception:  # no numba, no llvmlite, a library that will not load: Python loop
        return None
    return made if _agrees(made) else None


def _agrees(made: Bulk) -> bool:
    """Whether the compiled loop gives the Python loop's bytes and state: a V that carries
    over 2^128, then whole, partial (not a block multiple) and empty requests."""
    start = bytearray(range(0x40, 0x40 + _SEEDLEN))
    start[32:] = b"\xff" * 16  # V = 2^128 - 1: the first V + 1 wraps to zero
    for sizes in ((2 * _REQUEST + 5,), (0,), (17, _REQUEST, 1)):
        ours, theirs = bytearray(start), bytearray(start)
        ctx = made.context(ours)
        try:
            for n in sizes:
                count = max(1, -(-n // _REQUEST))
                a, b = bytearray(n), bytearray(n)
                ctx.requests(memoryview(a), count)
                _reference(theirs, b, count)
                if a != b or ours != theirs:
                    return False
        except OSError:
            return False
        finally:
            ctx.free()
    return True


def _reference(state: bytearray, out: bytearray, count: int) -> None:
    """The same requests through ``cryptography``'s public API, one fresh ``Cipher`` per
    request, V + 1 in integer arithmetic: the plain reading of 10.2.1.5.1."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    for r in range(count):
        v = (int.from_bytes(state[32:], "big") + 1) % (1 << 128)
        enc = Cipher(algorithms.AES(bytes(state[:32])),
                     modes.CTR(v.to_bytes(16, "big"))).encryptor()
        chunk = out[r * _REQUEST:(r + 1) * _REQUEST]
        out[r * _REQUEST:r * _REQUEST + len(chunk)] = enc.update(bytes(len(chunk)))
        enc.update(bytes(-len(chunk) % 16))
        state[:] = enc.update(bytes(_SEEDLEN))
