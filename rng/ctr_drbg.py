"""CTR_DRBG with AES-256, with and without the derivation function (SP 800-90A Rev.1, 10.2).

All block encryptions go through ``cryptography``'s AES. Two identities keep the hot path
to one AES-CTR encryptor per Generate, and the KATs confirm them:

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


#: Zero plaintext for the keystream (a Generate's output, the rest of its last block, and
#: the Update's three blocks), sliced per call: the hot path allocates nothing.
_ZEROS = memoryview(bytes(MAX_REQUEST_BYTES + _BLOCKLEN + _SEEDLEN))


def _fresh_cipher(key: bytes | bytearray, counter: bytes | bytearray) -> Any:
    return Cipher(algorithms.AES(bytes(key)), modes.CTR(bytes(counter)))


@functools.cache
def _cipher_reads_buffers_at_each_encryptor() -> bool:
    """Whether a ``Cipher`` built over two bytearrays keys each new encryptor from their
    contents at that moment (the installed ``cryptography`` keeps the caller's buffers
    and reads them in ``encryptor()``). Checked once per process against fresh objects;
    the power-up KATs check the whole mechanism again on top."""
    key, counter = bytearray(range(_KEYLEN)), bytearray(_BLOCKLEN)
    aes, ctr = algorithms.AES(key), modes.CTR(counter)
    if aes.key is not key or ctr.nonce is not counter:
        return False
    cipher = Cipher(aes, ctr)
    cipher.encryptor()
    key[0], counter[-1] = 0xA5, 0x5A
    probe = bytes(3 * _BLOCKLEN)
    return bool(cipher.encryptor().update(probe) ==
                _fresh_cipher(key, counter).encryptor().update(probe))


class _Keystream:
    """AES-256-CTR encryptors over the DRBG's current Key, from counter block V + 1.

    WHY: the key changes at every Generate, and ``cryptography`` has no call to re-key a
    context; building ``AES(key)``, ``CTR(iv)`` and ``Cipher`` anew costs about 3 us on top
    of the ~3 us of ``encryptor()`` itself, a third of a 2^19-bit request's keystream. So
    one ``Cipher`` is built over the DRBG's own key buffer and a counter buffer, and each
    request writes V+1 into the counter and asks it for a new encryptor (where the
    installed library does not key from the buffers, a fresh ``Cipher`` per request).
    """

    def __init__(self, key: bytearray) -> None:
        self._key = key
        self._counter = bytearray(_BLOCKLEN)
        self._cipher = (Cipher(algorithms.AES(key), modes.CTR(self._counter))
                        if _cipher_reads_buffers_at_each_encryptor() else None)

    def encryptor(self, v: bytes | bytearray) -> Any:
        """A fresh encryptor whose keystream is E(Key, V+1) || E(Key, V+2) || ..."""
        self._counter[:] = ((int.from_bytes(v, "big") + 1) & _MASK).to_bytes(_BLOCKLEN, "big")
        return (self._cipher or _fresh_cipher(self._key, self._counter)).encryptor()

    def wipe(self) -> None:
        self._counter[:] = bytes(_BLOCKLEN)
        self._cipher = None

    def is_zero(self) -> bool:
        return not any(self._counter)


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

    def _update(self, provided: bytes) -> None:
        """CTR_DRBG_Update (10.2.1.2): three keystream blocks, xor ``provided``, new Key || V."""
        self._keystream.encryptor(self._v).update_into(_ZEROS[:_SEEDLEN], self._out)
        self._next_state(self._view[:_SEEDLEN], provided)

    def _next_state(self, temp: memoryview, provided: bytes) -> None:
        """Key || V = the keystream bytes ``temp`` xor ``provided`` (if any); ``temp``
        (a view of the DRBG's buffer) is wiped."""
        if provided:
            new = _xor(bytes(temp), provided)
            self._key[:] = new[:_KEYLEN]
            self._v[:] = new[_KEYLEN:]
        else:
            self._key[:] = temp[:_KEYLEN]
            self._v[:] = temp[_KEYLEN:]
        temp[:] = _Z_SEED

    def _instantiate_algorithm(self, entropy: bytes, nonce: bytes, pers: bytes) -> None:
        self._key = bytearray(_KEYLEN)
        self._v = bytearray(_BLOCKLEN)
        # Output buffer of the largest request, the rest of its last block, the Update's
        # three blocks.
        self._out = bytearray(MAX_REQUEST_BYTES + _BLOCKLEN + _SEEDLEN)
        self._view = memoryview(self._out)
        self._keystream = _Keystream(self._key)
        if self.use_df:
            self._update(self._seed_material(entropy, nonce, pers))
        else:
            self._update(self._seed_material(entropy, pers))

    def _reseed_algorithm(self, entropy: bytes, additional_input: bytes) -> None:
        self._update(self._seed_material(entropy, additional_input))

    def _additional(self, additional_input: bytes) -> bytes:
        """Generate steps 2.1-2.2: additional input to seedlen, then Update with it."""
        if self.use_df:
            additional_input = block_cipher_df(additional_input, _SEEDLEN)
        else:
            additional_input += bytes(_SEEDLEN - len(additional_input))
        self._update(additional_input)
        return additional_input

    def _generate_algorithm(self, n_bytes: int, additional_input: bytes) -> bytes | None:
        """Generate (10.2.1.5) as ONE keystream call into the DRBG's own buffer: the
        requested bits, the discarded rest of the last block, then the three blocks of
        CTR_DRBG_Update, which become the new Key and V and are wiped from the buffer."""
        if self.reseed_counter > self.reseed_interval:
            return None
        if additional_input:
            additional_input = self._additional(additional_input)
        end = n_bytes + (-n_bytes % _BLOCKLEN)
        self._keystream.encryptor(self._v).update_into(_ZEROS[:end + _SEEDLEN], self._out)
        self._next_state(self._view[end:end + _SEEDLEN], additional_input)
        return bytes(self._view[:n_bytes])

    def _generate_into_algorithm(self, out: memoryview | bytearray,
                                 additional_input: bytes) -> bool:
        """The same Generate with ONE encryptor: the requested bits straight into
        ``out``, then (continuing the same keystream) the discarded rest of the last
        block and the Update's three blocks into the DRBG's own buffer."""
        if self.reseed_counter > self.reseed_interval:
            return False
        if additional_input:
            additional_input = self._additional(additional_input)
        enc = self._keystream.encryptor(self._v)
        n_bytes = len(out)
        if n_bytes:
            enc.update_into(_ZEROS[:n_bytes], out)
        tail = -n_bytes % _BLOCKLEN + _SEEDLEN
        enc.update_into(_ZEROS[:tail], self._out)
        self._next_state(self._view[tail - _SEEDLEN:tail], additional_input)
        return True

    def _zeroize(self) -> None:
        for buf in (getattr(self, "_key", None), getattr(self, "_v", None),
                    getattr(self, "_out", None)):
            if buf is not None:
                buf[:] = bytes(len(buf))
        if hasattr(self, "_keystream"):
            self._keystream.wipe()

    def state_is_zero(self) -> bool:
        return (not any(self._key) and not any(self._v) and not self._out.strip(b"\0")
                and self._keystream.is_zero())


class CtrDrbgNoDf(CtrDrbg):
    """CTR_DRBG, AES-256, no derivation function: full-entropy input of seedlen (384 bits),
    no nonce, personalization string and additional input at most seedlen."""

    mechanism = "ctr-drbg-no-df"
    entropy_bytes = _SEEDLEN
    nonce_bytes = 0
    use_df = False
    max_input_bytes = _SEEDLEN
