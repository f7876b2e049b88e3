"""CTR_DRBG with AES-256, with and without the derivation function (SP 800-90A Rev.1, 10.2).

All block encryptions go through ``cryptography``'s AES. Two identities keep the hot path
to one cipher call per Generate, and the KATs confirm them:

* the Generate loop "V = V + 1; output E(Key, V)" followed by CTR_DRBG_Update's three
  blocks is the AES-CTR keystream starting at counter block V + 1 (ctr_len = blocklen =
  128 bits, the full-block big-endian increment that AES-CTR performs);
* BCC (10.3.3) is the last block of AES-CBC with a zero IV, and the output loop of
  Block_Cipher_df ("X = E(K, X)" three times) is AES-CBC of zero blocks with IV = X.
"""

from __future__ import annotations

import functools
from typing import Any

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from rng.drbg import MAX_REQUEST_BYTES, Drbg

_KEYLEN = 32  # AES-256 key, bytes
_BLOCKLEN = 16
_SEEDLEN = _KEYLEN + _BLOCKLEN  # 48 bytes = 384 bits
_MASK = (1 << 128) - 1  # V is incremented modulo 2^128 (ctr_len = blocklen)
_Z_SEED = bytes(_SEEDLEN)
#: Block_Cipher_df's fixed key: the bytes 0x00, 0x01, ..., 0x1F (10.3.2 step 8).
_DF_KEY = bytes(range(_KEYLEN))


@functools.lru_cache(maxsize=8)
def _zeros(n: int) -> bytes:
    """Plaintext for keystream: cached, because a Generate of 2^19 bits is the hot path."""
    return bytes(n)


def _ctr(key: bytes | bytearray, v: bytes | bytearray) -> Any:
    """An AES-CTR encryptor whose keystream is E(Key, V+1) || E(Key, V+2) || ..."""
    block = ((int.from_bytes(v, "big") + 1) & _MASK).to_bytes(_BLOCKLEN, "big")
    return Cipher(algorithms.AES(bytes(key)), modes.CTR(block)).encryptor()


def _keystream(key: bytes | bytearray, v: bytes | bytearray, n_bytes: int) -> bytes:
    """E(Key, V+1) || E(Key, V+2) || ... truncated to ``n_bytes``."""
    return bytes(_ctr(key, v).update(_zeros(n_bytes)))


def _cbc(key: bytes, iv: bytes, data: bytes) -> bytes:
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return enc.update(data)


def block_cipher_df(input_string: bytes, n_bytes: int = _SEEDLEN) -> bytes:
    """Block_Cipher_df (10.3.2) with AES-256: ``n_bytes`` derived from ``input_string``."""
    length = len(input_string).to_bytes(4, "big")
    wanted = n_bytes.to_bytes(4, "big")
    s = length + wanted + input_string + b"\x80"
    s += bytes(-len(s) % _BLOCKLEN)
    temp = b""
    i = 0
    while len(temp) < _SEEDLEN:
        iv = i.to_bytes(4, "big") + bytes(_BLOCKLEN - 4)
        temp += _cbc(_DF_KEY, bytes(_BLOCKLEN), iv + s)[-_BLOCKLEN:]  # BCC(K, IV || S)
        i += 1
    key, x = temp[:_KEYLEN], temp[_KEYLEN:_SEEDLEN]
    out = _cbc(key, x, bytes(-(-n_bytes // _BLOCKLEN) * _BLOCKLEN))
    return out[:n_bytes]


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big")


class CtrDrbg(Drbg):
    """CTR_DRBG, AES-256, using the derivation function: entropy 256 bits, nonce 128."""

    mechanism = "ctr-drbg"
    entropy_bytes = 32
    nonce_bytes = 16
    use_df = True

    _key: bytearray
    _v: bytearray

    def _seed_material(self, *parts: bytes) -> bytes:
        """Derive (df) or pad (no df) the provided data to seedlen."""
        if self.use_df:
            return block_cipher_df(b"".join(parts), _SEEDLEN)
        entropy, extra = parts[0], parts[-1] if len(parts) > 1 else b""
        return _xor(entropy, extra + bytes(_SEEDLEN - len(extra)))

    def _update(self, provided: bytes, temp: bytes | None = None) -> None:
        """CTR_DRBG_Update (10.2.1.2); ``temp`` when the keystream is already at hand."""
        if temp is None:
            temp = _keystream(self._key, self._v, _SEEDLEN)
        if provided:
            temp = _xor(temp, provided)
        self._key[:] = temp[:_KEYLEN]
        self._v[:] = temp[_KEYLEN:]

    def _instantiate_algorithm(self, entropy: bytes, nonce: bytes, pers: bytes) -> None:
        self._key = bytearray(_KEYLEN)
        self._v = bytearray(_BLOCKLEN)
        # Output buffer of the largest request, the Update blocks and the slack older
        # ``cryptography`` releases demand of update_into (one block less one byte).
        self._out = bytearray(MAX_REQUEST_BYTES + _BLOCKLEN + _SEEDLEN + _BLOCKLEN)
        if self.use_df:
            self._update(self._seed_material(entropy, nonce, pers))
        else:
            self._update(self._seed_material(entropy, pers))

    def _reseed_algorithm(self, entropy: bytes, additional_input: bytes) -> None:
        self._update(self._seed_material(entropy, additional_input))

    def _generate_algorithm(self, n_bytes: int, additional_input: bytes) -> bytes | None:
        view = self._generate_view_algorithm(n_bytes, additional_input)
        return None if view is None else bytes(view)

    def _generate_view_algorithm(self, n_bytes: int, additional_input: bytes
                                 ) -> memoryview | None:
        """Generate (10.2.1.5) as ONE keystream call into the DRBG's own buffer: the
        requested bits, the discarded rest of the last block, then the three blocks of
        CTR_DRBG_Update, which become the new Key and V and are wiped from the buffer."""
        if self.reseed_counter > self.reseed_interval:
            return None
        if additional_input:
            if self.use_df:
                additional_input = block_cipher_df(additional_input, _SEEDLEN)
            else:
                additional_input += bytes(_SEEDLEN - len(additional_input))
            self._update(additional_input)
        end = n_bytes + (-n_bytes % _BLOCKLEN)
        total = end + _SEEDLEN
        buf = self._out
        _ctr(self._key, self._v).update_into(_zeros(total), buf)
        temp = bytes(buf[end:total])
        buf[end:total] = _Z_SEED
        if additional_input:
            temp = _xor(temp, additional_input)
        self._key[:] = temp[:_KEYLEN]
        self._v[:] = temp[_KEYLEN:]
        return memoryview(buf).toreadonly()[:n_bytes]

    def _zeroize(self) -> None:
        for buf in (getattr(self, "_key", None), getattr(self, "_v", None),
                    getattr(self, "_out", None)):
            if buf is not None:
                buf[:] = bytes(len(buf))

    def state_is_zero(self) -> bool:
        return not any(self._key) and not any(self._v) and not self._out.strip(b"\0")


class CtrDrbgNoDf(CtrDrbg):
    """CTR_DRBG, AES-256, no derivation function: full-entropy input of seedlen (384 bits),
    no nonce, personalization string and additional input at most seedlen."""

    mechanism = "ctr-drbg-no-df"
    entropy_bytes = _SEEDLEN
    nonce_bytes = 0
    use_df = False
    max_input_bytes = _SEEDLEN
