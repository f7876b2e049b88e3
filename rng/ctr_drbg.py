"""CTR_DRBG with AES-256, with and without the derivation function (SP 800-90A Rev.1, 10.2).

All block encryptions go through ``cryptography``'s AES. Two identities keep the hot path
to one AES-CTR encryptor per Generate, and the KATs confirm them:

* the Generate loop "V = V + 1; output E(Key, V)" followed by CTR_DRBG_Update's three
  blocks is the AES-CTR keystream starting at counter block V + 1 (ctr_len = blocklen =
  128 bits, the full-block big-endian increment that AES-CTR performs), i.e. the
  keystream from counter block V with its first block skipped;
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
# V is incremented modulo 2^128 (ctr_len = blocklen): AES-CTR's own counter does it.
#: Block_Cipher_df's fixed key: the bytes 0x00, 0x01, ..., 0x1F (10.3.2 step 8).
_DF_KEY = bytes(range(_KEYLEN))


#: Zero plaintext for the keystream, sliced per call: the hot path allocates nothing.
_ZEROS = memoryview(bytes(MAX_REQUEST_BYTES + _BLOCKLEN))


def _fresh_cipher(key: memoryview, v: memoryview) -> Any:
    return Cipher(algorithms.AES(bytes(key)), modes.CTR(bytes(v)))


@functools.cache
def _cipher_reads_buffers_at_each_encryptor() -> bool:
    """Whether a ``Cipher`` built over views of a bytearray keys each new encryptor from
    their contents at that moment (the installed ``cryptography`` keeps the caller's
    buffers and reads them in ``encryptor()``). Checked once per process against fresh
    objects; the power-up KATs check the whole mechanism again on top."""
    state = bytearray(range(_SEEDLEN))
    key, v = memoryview(state)[:_KEYLEN], memoryview(state)[_KEYLEN:]
    aes, ctr = algorithms.AES(key), modes.CTR(v)
    if aes.key is not key or ctr.nonce is not v:
        return False
    cipher = Cipher(aes, ctr)
    cipher.encryptor()
    state[0], state[-1] = 0xA5, 0x5A
    probe = bytes(3 * _BLOCKLEN)
    return bool(cipher.encryptor().update(probe) ==
                _fresh_cipher(key, v).encryptor().update(probe))


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
    """CTR_DRBG, AES-256, using the derivation function: entropy 256 bits, nonce 128.

    The working state is one buffer, Key || V, and one ``Cipher`` is built over views of
    it: every encryptor it makes is keyed from the state as it is at that moment, and
    the Update's three keystream blocks are written straight back into it.

    WHY: the key changes at every Generate and ``cryptography`` has no call to re-key a
    context; building ``AES(key)``, ``CTR(iv)`` and ``Cipher`` anew costs about as much
    again as ``encryptor()`` itself (~3 us, a third of a 2^19-bit request's keystream),
    and computing V + 1, copying the new Key and V and wiping the copies cost another
    microsecond or two. Counting from V instead of V + 1 and skipping the first block
    (one AES block, nanoseconds) removes the arithmetic. Where the installed library does
    not key from the buffers, a fresh ``Cipher`` is built per request (same output).
    """

    mechanism = "ctr-drbg"
    entropy_bytes = 32
    nonce_bytes = 16
    use_df = True

    _state: bytearray

    def _seed_material(self, *parts: bytes) -> bytes:
        """Derive (df) or pad (no df) the provided data to seedlen."""
        if self.use_df:
            return block_cipher_df(b"".join(parts), _SEEDLEN)
        entropy, extra = parts[0], parts[-1] if len(parts) > 1 else b""
        return _xor(entropy, extra + bytes(_SEEDLEN - len(extra)))

    def _encryptor(self) -> Any:
        """An encryptor on the current Key whose next keystream block is E(Key, V + 1):
        the block E(Key, V) is generated and thrown away (into ``_skip``)."""
        enc = (self._cipher or _fresh_cipher(self._key, self._v)).encryptor()
        enc.update_into(_ZEROS[:_BLOCKLEN], self._skip)
        return enc

    def _new_state(self, enc: Any, provided: bytes) -> None:
        """CTR_DRBG_Update's three blocks from ``enc`` are the new Key || V, xor
        ``provided`` (if any): written over the old state in place, no copy left."""
        enc.update_into(_ZEROS[:_SEEDLEN], self._state)
        if provided:
            self._state[:] = _xor(bytes(self._state), provided)

    def _update(self, provided: bytes) -> None:
        """CTR_DRBG_Update (10.2.1.2)."""
        self._new_state(self._encryptor(), provided)

    def _instantiate_algorithm(self, entropy: bytes, nonce: bytes, pers: bytes) -> None:
        self._state = bytearray(_SEEDLEN)  # Key || V, both zero (10.2.1.3.2 step 3-4)
        self._key = memoryview(self._state)[:_KEYLEN]
        self._v = memoryview(self._state)[_KEYLEN:]
        self._skip = bytearray(_BLOCKLEN)
        self._out = bytearray(MAX_REQUEST_BYTES)  # generate()'s output, copied out
        self._cipher = (Cipher(algorithms.AES(self._key), modes.CTR(self._v))
                        if _cipher_reads_buffers_at_each_encryptor() else None)
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
        """Generate (10.2.1.5): the output blocks E(Key, V+1) ... and then the Update's
        three blocks are one run of the keystream of ONE encryptor."""
        if self.reseed_counter > self.reseed_interval:
            return None
        view = memoryview(self._out)[:n_bytes]
        self._generate_into_algorithm(view, additional_input, checked=True)
        return bytes(view)

    def _generate_into_algorithm(self, out: memoryview | bytearray, additional_input: bytes,
                                 *, checked: bool = False) -> bool:
        """The same Generate with the requested bits written straight into ``out``: the
        rest of the last block is skipped, the Update's blocks go to the state."""
        if not checked and self.reseed_counter > self.reseed_interval:
            return False
        if additional_input:
            additional_input = self._additional(additional_input)
        enc = self._encryptor()
        n_bytes = len(out)
        if n_bytes:
            enc.update_into(_ZEROS[:n_bytes], out)
        if n_bytes % _BLOCKLEN:
            enc.update_into(_ZEROS[:-n_bytes % _BLOCKLEN], self._skip)
        self._new_state(enc, additional_input)
        return True

    def _zeroize(self) -> None:
        for buf in (getattr(self, "_state", None), getattr(self, "_skip", None),
                    getattr(self, "_out", None)):
            if buf is not None:
                buf[:] = bytes(len(buf))
        self._cipher = None

    def state_is_zero(self) -> bool:
        return not any(self._state) and not any(self._skip) and not self._out.strip(b"\0")


class CtrDrbgNoDf(CtrDrbg):
    """CTR_DRBG, AES-256, no derivation function: full-entropy input of seedlen (384 bits),
    no nonce, personalization string and additional input at most seedlen."""

    mechanism = "ctr-drbg-no-df"
    entropy_bytes = _SEEDLEN
    nonce_bytes = 0
    use_df = False
    max_input_bytes = _SEEDLEN
