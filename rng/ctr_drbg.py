"""CTR_DRBG with AES-256, with and without the derivation function (SP 800-90A Rev.1, 10.2).

All block encryptions go through ``cryptography``'s AES, except bulk calls of
:meth:`CtrDrbg.stream_into` (`etg rng stream`), which run the same requests in a compiled
loop on the system's libcrypto where it is checked to agree (:mod:`rng.ctr_native`).
Two identities keep the hot path to one AES-CTR encryptor per Generate, and the KATs
confirm them:

* the Generate loop "V = V + 1; output E(Key, V)" followed by CTR_DRBG_Update's three
  blocks is the AES-CTR keystream starting at counter block V + 1 (ctr_len = blocklen =
  128 bits, the full-block big-endian increment that AES-CTR performs): V is counted up
  by one in place and the encryptor keyed from the state counts on from there;
* BCC (10.3.3) is the last block of AES-CBC with a zero IV, and the output loop of
  Block_Cipher_df ("X = E(K, X)" three times) is AES-CBC of zero blocks with IV = X.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from rng import ctr_native
from rng.drbg import MAX_REQUEST_BYTES, Drbg
from rng.errors import DrbgError

_KEYLEN = 32  # AES-256 key, bytes
_BLOCKLEN = 16
_SEEDLEN = _KEYLEN + _BLOCKLEN  # 48 bytes = 384 bits
# V is incremented modulo 2^128 (ctr_len = blocklen): AES-CTR's own counter does it.
#: Block_Cipher_df's fixed key: the bytes 0x00, 0x01, ..., 0x1F (10.3.2 step 8).
_DF_KEY = bytes(range(_KEYLEN))


#: Zero plaintext for the keystream, sliced per call: the hot path allocates nothing.
_ZEROS = memoryview(bytes(MAX_REQUEST_BYTES + _BLOCKLEN))
_ZEROS_REQUEST = _ZEROS[:MAX_REQUEST_BYTES]  # one full request's output
_ZEROS_SEED = _ZEROS[:_SEEDLEN]  # the Update's three blocks
_V_MOD = (1 << 128) - 1


def _fresh_cipher(key: memoryview, v: memoryview) -> Any:
    return Cipher(algorithms.AES(bytes(key)), modes.CTR(bytes(v)))


def _count_up(v: memoryview) -> None:
    """V = (V + 1) mod 2^128 in place (10.2.1.5.1 step 4.1; ctr_len = blocklen). The
    hot path does the common case, a last byte below 0xFF, inline; this is the carry."""
    v[:] = ((int.from_bytes(v, "big") + 1) & _V_MOD).to_bytes(_BLOCKLEN, "big")


def _direct_encryptor(aes: Any, ctr: Any) -> Callable[[], Any] | None:
    """``cryptography``'s own constructor behind ``Cipher.encryptor()`` bound to this
    state's AES and CTR objects, or None where this version has none.

    WHY: ``Cipher.encryptor()`` checks for an authenticated mode (an ABC isinstance)
    and then calls exactly this; calling it directly saves about 0.35 us of the 2 us a
    new context costs, 4 % of a request. Used only when it gives the same keystream as
    ``Cipher.encryptor()`` (checked once per process, and by the KATs on top)."""
    try:
        from cryptography.hazmat.bindings._rust import openssl as rust_openssl

        create = rust_openssl.ciphers.create_encryption_ctx
    except (ImportError, AttributeError):
        return None
    return functools.partial(create, aes, ctr)


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


@functools.cache
def _direct_encryptor_agrees() -> bool:
    """Whether :func:`_direct_encryptor` over views of a bytearray gives the keystream a
    fresh ``Cipher`` gives for the buffers' contents at that moment (checked once)."""
    state = bytearray(range(_SEEDLEN))
    key, v = memoryview(state)[:_KEYLEN], memoryview(state)[_KEYLEN:]
    make = _direct_encryptor(algorithms.AES256(key), modes.CTR(v))
    if make is None:
        return False
    probe = bytes(3 * _BLOCKLEN)
    try:
        make()
        state[0], state[-1] = 0xA5, 0x5A
        return bool(make().update(probe) == _fresh_cipher(key, v).encryptor().update(probe))
    except Exception:  # a changed private signature: keep the public call
        return False


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
    again as ``encryptor()`` itself, and copying the new Key and V and wiping the copies
    cost another microsecond or two. V + 1 is one byte written in place (a carry into
    the other bytes once in 256 requests). Where the installed library does not key from
    the buffers, a fresh ``Cipher`` is built per request (same output).
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

    def _fresh_encryptor(self) -> Any:
        return _fresh_cipher(self._key, self._v).encryptor()

    def _encryptor(self) -> Any:
        """V = V + 1, then an encryptor on the current Key whose first keystream block is
        E(Key, V): the blocks of Generate's output and of the Update follow on."""
        v = self._v
        if v[15] != 0xFF:
            v[15] += 1
        else:
            _count_up(v)
        return self._new_encryptor()

    def _new_state(self, enc: Any, provided: bytes) -> None:
        """CTR_DRBG_Update's three blocks from ``enc`` are the new Key || V, xor
        ``provided`` (if any): written over the old state in place, no copy left."""
        enc.update_into(_ZEROS_SEED, self._state)
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
        self._native: ctr_native.NativeContext | None = None  # the compiled loop's context
        aes, ctr = algorithms.AES256(self._key), modes.CTR(self._v)
        self._cipher = (Cipher(aes, ctr) if _cipher_reads_buffers_at_each_encryptor()
                        else None)
        direct = _direct_encryptor(aes, ctr) if _direct_encryptor_agrees() else None
        self._new_encryptor: Callable[[], Any] = (
            direct or (self._cipher.encryptor if self._cipher else self._fresh_encryptor))
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

    # -- the bulk path: `etg rng stream` ---------------------------------------------------

    def generate_into(self, out: memoryview | bytearray) -> None:
        """One Generate request of ``len(out)`` bytes (no additional input) written into
        ``out``: the bits :meth:`generate` returns; through :meth:`_requests_into`, the
        stream's own loop, so the KATs that run ``generate_into`` run that loop."""
        if not 0 <= len(out) <= MAX_REQUEST_BYTES:
            raise DrbgError(f"request of {len(out)} bytes exceeds 2^19 bits per generate")
        self._requests_into(memoryview(out), (0,))

    def stream_into(self, out: memoryview | bytearray) -> None:
        """Consecutive Generate requests of 2^19 bits (the last one shorter) filling
        ``out``: the same bits and state as :meth:`generate_into` request by request.
        A call of at least :data:`rng.ctr_native.BULK_MIN_BYTES` runs in the compiled
        loop of :mod:`rng.ctr_native` where that is available and checked."""
        view = memoryview(out)
        if (len(view) >= ctr_native.BULK_MIN_BYTES and not view.readonly
                and view.c_contiguous and view.itemsize == 1
                and self._native_context() is not None):
            self._native_requests_into(view)
        else:
            self._requests_into(view, range(0, len(view), MAX_REQUEST_BYTES))

    def _native_context(self) -> ctr_native.NativeContext | None:
        """This instantiation's EVP context for the compiled loop (made at first use;
        None where :func:`rng.ctr_native.bulk` is None)."""
        if self._native is None and (made := ctr_native.bulk()) is not None:
            self._native = made.context(self._state)
        return self._native

    def _native_requests_into(self, view: memoryview) -> None:
        """:meth:`_requests_into` in the compiled loop: the same checks of 9.3.1 per
        request, as runs of requests between reseeds (a reseed from the entropy source,
        with its health tests, exactly where request by request would do it)."""
        if not self._alive:
            self._check_alive()
        ctx = self._native
        assert ctx is not None
        count = -(-len(view) // MAX_REQUEST_BYTES)
        done = 0
        while done < count:
            if self.reseed_counter > self.reseed_interval:
                self.reseed()  # Generate step 6 -> 7: reseed, then generate
            k = min(count - done, self.reseed_interval - self.reseed_counter + 1)
            try:
                ctx.requests(view[done * MAX_REQUEST_BYTES:(done + k) * MAX_REQUEST_BYTES], k)
            except OSError as exc:  # fail closed: this instantiation is not used again
                self.uninstantiate()
                raise DrbgError(f"{self.mechanism}: {exc}") from exc
            self.reseed_counter += k
            done += k

    def _requests_into(self, view: memoryview, starts: Iterable[int]) -> None:
        """One Generate request (9.3.1 without additional input or prediction resistance,
        10.2.1.5.1) per offset in ``starts``, each of up to 2^19 bits into ``view``.

        WHY one loop: a 2^19-bit request's keystream takes about 8 us; the Python around
        it (a call chain of four methods, slicing, attribute look-ups) had grown to about
        2 us on top of the 2 us a new AES context costs. The checks of 9.3.1 stay per
        request: alive, and the reseed counter (a reseed from the entropy source, with
        its health tests, exactly where request by request would do it)."""
        if not self._alive:
            self._check_alive()
        v, state, skip = self._v, self._state, self._skip
        new_encryptor = self._new_encryptor
        size = len(view)
        for at in starts:
            if self.reseed_counter > self.reseed_interval:
                self.reseed()  # Generate step 6 -> 7: reseed, then generate
            if v[15] != 0xFF:  # V = (V + 1) mod 2^128
                v[15] += 1
            else:
                _count_up(v)
            enc = new_encryptor()
            n = size - at
            if n >= MAX_REQUEST_BYTES:
                enc.update_into(_ZEROS_REQUEST, view[at:at + MAX_REQUEST_BYTES])
            else:
                if n:
                    enc.update_into(_ZEROS[:n], view[at:])
                if n % _BLOCKLEN:
                    enc.update_into(_ZEROS[:-n % _BLOCKLEN], skip)
            enc.update_into(_ZEROS_SEED, state)  # CTR_DRBG_Update: the new Key || V
            self.reseed_counter += 1

    def _zeroize(self) -> None:
        for buf in (getattr(self, "_state", None), getattr(self, "_skip", None),
                    getattr(self, "_out", None)):
            if buf is not None:
                buf[:] = bytes(len(buf))
        if getattr(self, "_native", None) is not None:
            self._native.free()  # type: ignore[union-attr]
            self._native = None
        self._cipher = None
        self._new_encryptor = self._fresh_encryptor

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
