"""The compiled loop of CTR_DRBG's bulk requests (numba), calling OpenSSL's EVP directly.

Imported only through :func:`rng.ctr_native.bulk`, after the C library is loaded for
the JIT's symbol look-up and numba's cache directory is set (never beside the program:
see :mod:`rng.ctr_native`). Every EVP call here goes to the one libcrypto loaded there, so
the contexts made here are used and freed by the same library.

Pointers travel as ``uintp`` (an address is an integer of the pointer's width on every
ABI this runs on); arrays are passed as numpy views of the caller's buffers (no copy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types

_U = types.uintp
_new: Any = types.ExternalFunction("EVP_CIPHER_CTX_new", _U())
_free: Any = types.ExternalFunction("EVP_CIPHER_CTX_free", types.void(_U))
_aes256ctr: Any = types.ExternalFunction("EVP_aes_256_ctr", _U())
_init: Any = types.ExternalFunction("EVP_EncryptInit_ex", types.int32(_U, _U, _U, _U, _U))
_update: Any = types.ExternalFunction("EVP_EncryptUpdate",
                                     types.int32(_U, _U, _U, _U, types.int32))

#: SP 800-90A Table 3: at most 2^19 bits per Generate request.
_REQUEST = 1 << 16
_KEY = 32
_BLOCK = 16


@njit(cache=True, nogil=True)
def new_context(state: np.ndarray) -> int:  # pragma: no cover - compiled
    """An AES-256-CTR context keyed from ``state`` (Key || V), 0 on failure."""
    ctx = _new()
    if ctx == 0:
        return 0
    base = state.ctypes.data
    if _init(ctx, _aes256ctr(), 0, base, base + _KEY) != 1:
        _free(ctx)
        return 0
    return ctx


@njit(cache=True, nogil=True)
def free_context(ctx: int) -> None:  # pragma: no cover - compiled
    """EVP_CIPHER_CTX_free: OpenSSL wipes the key schedule before freeing it."""
    if ctx != 0:
        _free(ctx)


@njit(cache=True, nogil=True)
def requests(ctx: int, state: np.ndarray, out: np.ndarray, count: int,
             zeros: np.ndarray, skip: np.ndarray, outl: np.ndarray) -> int:  # pragma: no cover
    """``count`` Generate requests (10.2.1.5.1, no additional input) filling ``out``, each
    of 2^16 bytes, the last one what is left (``count`` = 1 and ``out`` empty: one empty
    request). Per request: V = V + 1 in place (mod 2^128), the context re-keyed from the
    state, the output blocks E(Key, V), E(Key, V + 1), ... into ``out``, the rest of a
    last partial block into ``skip``, then CTR_DRBG_Update's three blocks over Key || V.
    Returns 0, or -1 when an EVP call failed (the caller fails closed)."""
    base = state.ctypes.data
    src = zeros.ctypes.data
    at = out.ctypes.data
    left = out.shape[0]
    lp = outl.ctypes.data
    for _ in range(count):
        i = _KEY + _BLOCK - 1
        while True:  # V = (V + 1) mod 2^128, big-endian
            if state[i] != 0xFF:
                state[i] += 1
                break
            state[i] = 0
            if i == _KEY:
                break
            i -= 1
        if _init(ctx, 0, 0, base, base + _KEY) != 1:
            return -1
        n = min(left, _REQUEST)
        if n and _update(ctx, at, lp, src, n) != 1:
            return -1
        if n % _BLOCK and _update(ctx, skip.ctypes.data, lp, src, _BLOCK - n % _BLOCK) != 1:
            return -1
        if _update(ctx, base, lp, src, _KEY + _BLOCK) != 1:
            return -1
        at += n
        left -= n
    return 0
