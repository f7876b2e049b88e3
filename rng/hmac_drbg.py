"""HMAC_DRBG with HMAC-SHA-256 (SP 800-90A Rev.1, 10.1.2), on ``cryptography``'s HMAC."""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes, hmac

from rng.drbg import Drbg

_OUTLEN = 32  # SHA-256 output, bytes


def _hmac(key: bytes | bytearray, *parts: bytes | bytearray) -> bytes:
    h = hmac.HMAC(bytes(key), hashes.SHA256())
    for part in parts:
        h.update(bytes(part))
    return h.finalize()


class HmacDrbg(Drbg):
    """HMAC_DRBG (SHA-256): security strength 256, entropy 256 bits, nonce 128 bits."""

    mechanism = "hmac-drbg"
    entropy_bytes = 32
    nonce_bytes = 16

    _key: bytearray
    _v: bytearray

    def _update(self, provided: bytes) -> None:
        """HMAC_DRBG_Update (10.1.2.2)."""
        key = _hmac(self._key, self._v, b"\x00", provided)
        v = _hmac(key, self._v)
        if provided:
            key = _hmac(key, v, b"\x01", provided)
            v = _hmac(key, v)
        self._key[:] = key
        self._v[:] = v

    def _instantiate_algorithm(self, entropy: bytes, nonce: bytes, pers: bytes) -> None:
        self._key = bytearray(_OUTLEN)
        self._v = bytearray(b"\x01" * _OUTLEN)
        self._update(entropy + nonce + pers)

    def _reseed_algorithm(self, entropy: bytes, additional_input: bytes) -> None:
        self._update(entropy + additional_input)

    def _generate_algorithm(self, n_bytes: int, additional_input: bytes) -> bytes | None:
        if self._due_for_reseed():
            return None
        if additional_input:
            self._update(additional_input)
        keyed = hmac.HMAC(bytes(self._key), hashes.SHA256())
        v = bytes(self._v)
        blocks: list[bytes] = []
        for _ in range(-(-n_bytes // _OUTLEN)):
            h = keyed.copy()
            h.update(v)
            v = h.finalize()
            blocks.append(v)
        self._v[:] = v
        self._update(additional_input)
        return b"".join(blocks)[:n_bytes]

    def _zeroize(self) -> None:
        for buf in (getattr(self, "_key", None), getattr(self, "_v", None)):
            if buf is not None:
                buf[:] = bytes(len(buf))

    def state_is_zero(self) -> bool:
        return not any(self._key) and not any(self._v)
