"""SP 800-90A DRBGs: every shipped CAVP case, prediction resistance from the standard, and
the rules of the Generate function (request limit, reseed counter, lengths, uninstantiate).
"""

from __future__ import annotations

import hmac as std_hmac
from hashlib import sha256
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from rng.cavp import parse_rsp, run_file, shipped_vectors
from rng.ctr_drbg import CtrDrbg, CtrDrbgNoDf, block_cipher_df
from rng.drbg import MAX_REQUEST_BYTES, Drbg, ScriptedEntropy
from rng.errors import DrbgError
from rng.hmac_drbg import HmacDrbg
from rng.mechanisms import MECHANISMS

VECTORS = shipped_vectors()


def test_vectors_are_shipped_inside_the_package() -> None:
    names = {f"{p.parent.name}/{p.name}" for p in VECTORS}
    for sub in ("no_reseed", "pr_false"):
        for f in ("CTR_DRBG_AES-256_use_df", "CTR_DRBG_AES-256_no_df", "HMAC_DRBG_SHA-256"):
            assert f"{sub}/{f}.rsp" in names
    assert all(Path(p).resolve().is_relative_to(Path(__file__).resolve().parents[2] / "rng")
               for p in VECTORS)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_case_of_every_implemented_group_passes(path: Path) -> None:
    results = list(run_file(path))
    implemented = [r for r in results if r.mechanism is not None]
    skipped = [r for r in results if r.mechanism is None]
    if path.name.startswith("Hash_DRBG"):
        # Skipped group: Hash_DRBG is not one of the table's mechanisms (issue 5 asks for
        # HMAC_DRBG and CTR_DRBG); the runner lists it with that reason.
        assert not implemented and len(skipped) == 16
        assert all("Hash_DRBG is not implemented" in r.skip_reason for r in skipped)
        return
    assert len(implemented) == 16 and not skipped
    assert sum(r.passed for r in implemented) == 240
    assert [c for r in implemented for c in r.failed_counts] == []


def test_a_wrong_answer_is_caught() -> None:
    path = next(p for p in VECTORS if p.name == "HMAC_DRBG_SHA-256.rsp")
    text = path.read_text()
    i = text.index("ReturnedBits = ") + len("ReturnedBits = ")
    flipped = text[:i] + ("0" if text[i] != "0" else "1") + text[i + 1:]
    tampered = parse_rsp(flipped, "tampered.rsp")
    from rng.cavp import run_case

    group = tampered[0]
    assert not run_case(group, group.cases[0], "hmac-drbg")
    assert run_case(group, group.cases[1], "hmac-drbg")


# -- prediction resistance, from the standard ------------------------------------------------
# No PR vectors ship; instead an independent, block-by-block re-derivation of SP 800-90A
# 10.2.1 / 10.1.2 on the raw primitives (AES-ECB, HMAC from the standard library) gives the
# expected output, and the scripted source shows that each PR generate took fresh entropy.


def _ecb(key: bytes, block: bytes) -> bytes:
    return Cipher(algorithms.AES(key), modes.ECB()).encryptor().update(block)


class RefCtr:
    """CTR_DRBG (AES-256) written straight from 10.2.1, one block at a time."""

    def __init__(self, use_df: bool) -> None:
        self.use_df = use_df
        self.key, self.v = bytes(32), bytes(16)

    def _update(self, provided: bytes) -> None:
        temp = b""
        v = self.v
        while len(temp) < 48:
            v = ((int.from_bytes(v, "big") + 1) % (1 << 128)).to_bytes(16, "big")
            temp += _ecb(self.key, v)
        temp = bytes(a ^ b for a, b in zip(temp[:48], provided, strict=True))
        self.key, self.v = temp[:32], temp[32:]

    def _material(self, data: bytes, entropy: bytes = b"") -> bytes:
        if self.use_df:
            return block_cipher_df(entropy + data, 48)
        padded = data + bytes(48 - len(data))
        return bytes(a ^ b for a, b in zip(entropy, padded, strict=True)) if entropy else padded

    def instantiate(self, entropy: bytes, nonce: bytes, pers: bytes) -> None:
        self._update(self._material(nonce + pers if self.use_df else pers, entropy))

    def reseed(self, entropy: bytes, add: bytes) -> None:
        self._update(self._material(add, entropy))

    def generate(self, n: int, add: bytes = b"") -> bytes:
        add = self._material(add) if add else bytes(48)
        if any(add):
            self._update(add)
        out = b""
        while len(out) < n:
            self.v = ((int.from_bytes(self.v, "big") + 1) % (1 << 128)).to_bytes(16, "big")
            out += _ecb(self.key, self.v)
        self._update(add)
        return out[:n]


class RefHmac:
    """HMAC_DRBG (SHA-256) written straight from 10.1.2 with the standard library's hmac."""

    def __init__(self) -> None:
        self.k, self.v = bytes(32), b"\x01" * 32

    def _h(self, key: bytes, data: bytes) -> bytes:
        return std_hmac.new(key, data, sha256).digest()

    def _update(self, data: bytes) -> None:
        self.k = self._h(self.k, self.v + b"\x00" + data)
        self.v = self._h(self.k, self.v)
        if data:
            self.k = self._h(self.k, self.v + b"\x01" + data)
            self.v = self._h(self.k, self.v)

    def instantiate(self, entropy: bytes, nonce: bytes, pers: bytes) -> None:
        self._update(entropy + nonce + pers)

    def reseed(self, entropy: bytes, add: bytes) -> None:
        self._update(entropy + add)

    def generate(self, n: int, add: bytes = b"") -> bytes:
        if add:
            self._update(add)
        out = b""
        while len(out) < n:
            self.v = self._h(self.k, self.v)
            out += self.v
        self._update(add)
        return out[:n]


def _bytes(n: int, tag: int) -> bytes:
    return bytes((7 * i + 13 * tag + 1) % 256 for i in range(n))


@pytest.mark.parametrize("mech", list(MECHANISMS))
def test_prediction_resistance_reseeds_from_the_source_every_generate(mech: str) -> None:
    """SP 800-90A 9.3.1 step 7: with prediction resistance each Generate first reseeds
    (fresh entropy input, the caller's additional input), then generates without it."""
    cls = MECHANISMS[mech]
    entropy = [_bytes(cls.entropy_bytes, t) for t in range(4)]
    nonce = _bytes(16, 9)
    pers = _bytes(32 if mech != "ctr-drbg-no-df" else 48, 10)
    adds = [_bytes(32, 11), b"", _bytes(20, 12)]
    script = [entropy[0], *([nonce] if cls.nonce_bytes else []), *entropy[1:]]
    source = ScriptedEntropy(*script)
    drbg = cls(source, personalization=pers, prediction_resistance=True)
    ref = RefHmac() if mech == "hmac-drbg" else RefCtr(use_df=mech == "ctr-drbg")
    ref.instantiate(entropy[0], nonce, pers)
    asked = len(source.requests)
    for i, add in enumerate(adds):
        out = drbg.generate(100, add, prediction_resistance=True)
        assert len(source.requests) == asked + i + 1, "no fresh entropy for this generate"
        ref.reseed(entropy[1 + i], add)
        assert out == ref.generate(100), f"generate {i} differs from the re-derivation"
    assert source.remaining == 0


@pytest.mark.parametrize("mech", list(MECHANISMS))
def test_reference_agrees_without_prediction_resistance(mech: str) -> None:
    """The re-derivation itself is checked against our KAT-verified DRBG (no PR)."""
    cls = MECHANISMS[mech]
    e0, nonce = _bytes(cls.entropy_bytes, 1), _bytes(16, 2)
    drbg = cls(ScriptedEntropy(e0, *([nonce] if cls.nonce_bytes else [])))
    ref = RefHmac() if mech == "hmac-drbg" else RefCtr(use_df=mech == "ctr-drbg")
    ref.instantiate(e0, nonce, b"")
    for n, add in ((16, b""), (33, _bytes(40, 3)), (1000, b"")):
        assert drbg.generate(n, add) == ref.generate(n, add)


def test_prediction_resistance_needs_a_pr_instantiation() -> None:
    drbg = CtrDrbg(ScriptedEntropy(_bytes(32, 1), _bytes(16, 2)))
    with pytest.raises(DrbgError, match="prediction resistance"):
        drbg.generate(16, prediction_resistance=True)


# -- the rules of the functions ---------------------------------------------------------------


def _drbg(cls: type[Drbg], extra: int = 0, **kw: int) -> tuple[Drbg, ScriptedEntropy]:
    script = [_bytes(cls.entropy_bytes, 1)]
    if cls.nonce_bytes:
        script.append(_bytes(cls.nonce_bytes, 2))
    script += [_bytes(cls.entropy_bytes, 3 + i) for i in range(extra)]
    src = ScriptedEntropy(*script)
    return cls(src, **kw), src  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", [CtrDrbg, CtrDrbgNoDf, HmacDrbg])
def test_reseed_counter_forces_a_reseed_after_the_interval(cls: type[Drbg]) -> None:
    drbg, src = _drbg(cls, extra=2, reseed_interval=3)
    for _ in range(3):
        drbg.generate(8)
    assert src.remaining == 2 and drbg.reseeds == 0
    drbg.generate(8)  # the fourth request exceeds the interval: reseed first
    assert src.remaining == 1 and drbg.reseeds == 1 and drbg.reseed_counter == 2


@pytest.mark.parametrize("cls", [CtrDrbg, CtrDrbgNoDf, HmacDrbg])
def test_request_limit_is_2_to_the_19_bits(cls: type[Drbg]) -> None:
    drbg, _ = _drbg(cls)
    assert len(drbg.generate(MAX_REQUEST_BYTES)) == MAX_REQUEST_BYTES == 65536
    with pytest.raises(DrbgError, match="2\\^19"):
        drbg.generate(MAX_REQUEST_BYTES + 1)


@pytest.mark.parametrize("cls", [CtrDrbg, CtrDrbgNoDf, HmacDrbg])
def test_uninstantiate_zeroizes_and_refuses(cls: type[Drbg]) -> None:
    drbg, _ = _drbg(cls)
    drbg.generate(16)
    assert not drbg.state_is_zero()
    drbg.uninstantiate()
    assert drbg.state_is_zero() and not drbg.alive
    with pytest.raises(DrbgError, match="uninstantiate"):
        drbg.generate(1)
    with pytest.raises(DrbgError):
        drbg.reseed()


def test_security_strength_and_interval_limits() -> None:
    with pytest.raises(DrbgError, match="security strength"):
        _drbg(HmacDrbg, security_strength=384)
    with pytest.raises(DrbgError, match="reseed interval"):
        _drbg(HmacDrbg, reseed_interval=(1 << 48) + 1)
    with pytest.raises(DrbgError, match="reseed interval"):
        _drbg(HmacDrbg, reseed_interval=0)


def test_no_df_limits_inputs_to_seedlen() -> None:
    with pytest.raises(DrbgError, match="longer than"):
        CtrDrbgNoDf(ScriptedEntropy(_bytes(48, 1)), personalization=bytes(49))
    drbg, _ = _drbg(CtrDrbgNoDf)
    with pytest.raises(DrbgError, match="longer than"):
        drbg.generate(16, bytes(49))


def test_entropy_of_the_wrong_length_is_an_error() -> None:
    class Short:
        name = "short"

        def get_entropy(self, n: int) -> bytes:
            return bytes(n - 1)

    with pytest.raises(DrbgError, match="returned 31 bytes"):
        CtrDrbg(Short())


def test_ctr_counter_wraps_modulo_2_to_the_128() -> None:
    """V = 2^128 - 1 increments to 0 (ctr_len = blocklen): our one-call keystream and the
    block-by-block re-derivation agree across the wrap."""
    drbg, _ = _drbg(CtrDrbg)
    assert isinstance(drbg, CtrDrbg)
    drbg._v[:] = b"\xff" * 16
    ref = RefCtr(use_df=True)
    ref.key, ref.v = bytes(drbg._key), b"\xff" * 16
    assert drbg.generate(64) == ref.generate(64)


def _pr_true_rsp(mech: str) -> str:
    """A CAVP-format PredictionResistance = True file written from the re-derivation."""
    cls = MECHANISMS[mech]
    header = {"hmac-drbg": ("HMAC", "SHA-256"), "ctr-drbg": ("CTR", "AES-256 use df"),
              "ctr-drbg-no-df": ("CTR", "AES-256 no df")}[mech]
    lines = [f"# {header[0]}_DRBG options: test", "", f"[{header[1]}]",
             "[PredictionResistance = True]", f"[EntropyInputLen = {cls.entropy_bytes * 8}]",
             f"[NonceLen = {cls.nonce_bytes * 8}]", "[PersonalizationStringLen = 256]",
             "[AdditionalInputLen = 256]", "[ReturnedBitsLen = 512]", ""]
    for count in range(3):
        e = [_bytes(cls.entropy_bytes, 20 + 3 * count + i) for i in range(3)]
        nonce, pers = _bytes(cls.nonce_bytes, 40 + count), _bytes(32, 50 + count)
        adds = [_bytes(32, 60 + count), _bytes(32, 70 + count)]
        ref = RefHmac() if mech == "hmac-drbg" else RefCtr(use_df=mech == "ctr-drbg")
        ref.instantiate(e[0], nonce, pers)
        for i in range(2):
            ref.reseed(e[1 + i], adds[i])
            out = ref.generate(64)
        lines += [f"COUNT = {count}", f"EntropyInput = {e[0].hex()}", f"Nonce = {nonce.hex()}",
                  f"PersonalizationString = {pers.hex()}",
                  f"AdditionalInput = {adds[0].hex()}", f"EntropyInputPR = {e[1].hex()}",
                  f"AdditionalInput = {adds[1].hex()}", f"EntropyInputPR = {e[2].hex()}",
                  f"ReturnedBits = {out.hex()}", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("mech", list(MECHANISMS))
def test_prediction_resistance_groups_of_a_cavp_file_run(mech: str, tmp_path: Path) -> None:
    """`etg rng kat --vectors` runs PredictionResistance = True groups a lab brings."""
    path = tmp_path / "pr_true.rsp"
    path.write_text(_pr_true_rsp(mech))
    (result,) = list(run_file(path))
    assert result.mechanism == mech and (result.passed, result.failed) == (3, 0)
    lines = path.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("ReturnedBits"))
    lines[i] = lines[i][:-1] + ("0" if lines[i][-1] != "0" else "1")
    path.write_text("\n".join(lines))
    (result,) = list(run_file(path))
    assert (result.passed, result.failed, result.failed_counts) == (2, 1, [0])


@pytest.mark.parametrize("cls", [CtrDrbg, CtrDrbgNoDf, HmacDrbg])
def test_generate_into_gives_the_bits_generate_gives(cls: type[Drbg]) -> None:
    """The stream's path is the same Generate: identical output, state and counter as
    `generate` from the same seed, request after request (full and partial blocks, into
    a slice of a larger buffer, whose other bytes it leaves alone); the DRBG's own
    buffers are wiped on uninstantiate."""
    a, _ = _drbg(cls)
    b, _ = _drbg(cls)
    buf = bytearray(b"\xee" * (MAX_REQUEST_BYTES + 64))
    for n in (MAX_REQUEST_BYTES, 17, 0, MAX_REQUEST_BYTES, 1000, 31):
        buf[:] = b"\xee" * len(buf)
        a.generate_into(memoryview(buf)[16:16 + n])
        assert buf[16:16 + n] == b.generate(n)
        assert buf[:16] + buf[16 + n:] == b"\xee" * (len(buf) - n)
        assert a.reseed_counter == b.reseed_counter
    assert a.generate(64) == b.generate(64)
    with pytest.raises(DrbgError, match="2\\^19"):
        a.generate_into(bytearray(MAX_REQUEST_BYTES + 1))
    a.uninstantiate()
    assert a.state_is_zero()


def test_ctr_drbg_gives_the_same_bits_with_a_cipher_per_request(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``cryptography`` would copy the key and counter buffers, the CTR_DRBG builds
    a Cipher per request: the same output either way, and the CTR_DRBG KATs hold."""
    from rng import ctr_drbg

    fast, _ = _drbg(CtrDrbg)
    assert fast._cipher is not None  # the installed library keys from buffers
    monkeypatch.setattr(ctr_drbg, "_cipher_reads_buffers_at_each_encryptor", lambda: False)
    slow, _ = _drbg(CtrDrbg)
    assert slow._cipher is None
    a, b = bytearray(MAX_REQUEST_BYTES), bytearray(MAX_REQUEST_BYTES)
    for n in (MAX_REQUEST_BYTES, 5, 48):
        fast.generate_into(memoryview(a)[:n])
        slow.generate_into(memoryview(b)[:n])
        assert a == b
        assert fast.generate(n, b"extra") == slow.generate(n, b"extra")
    for path in VECTORS:
        if path.name.startswith("CTR_DRBG"):
            for result in run_file(path):
                assert result.passed and not result.failed_counts, result


def test_ctr_drbg_gives_the_same_bits_without_the_direct_constructor(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49: the stream's AES contexts come from ``cryptography``'s own constructor
    where a once-per-process check finds it gives ``Cipher.encryptor()``'s keystream;
    where it does not (a changed private API), the public call gives the same bits: a
    stream of whole and partial requests across a carry of V, then the CAVP vectors."""
    from rng import ctr_drbg

    fast, _ = _drbg(CtrDrbg)
    assert ctr_drbg._direct_encryptor_agrees()  # the installed library's constructor
    monkeypatch.setattr(ctr_drbg, "_direct_encryptor_agrees", lambda: False)
    slow, _ = _drbg(CtrDrbg)
    assert slow._new_encryptor == slow._cipher.encryptor
    for d in (fast, slow):
        d._state[-1] = 0xFF  # V's last byte: the first request's V + 1 carries
    a, b = bytearray(3 * MAX_REQUEST_BYTES + 100), bytearray(3 * MAX_REQUEST_BYTES + 100)
    fast.stream_into(a)
    slow.stream_into(b)
    assert a == b and fast._state == slow._state
    assert fast.reseed_counter == slow.reseed_counter == 5
    assert fast.generate(100, b"extra") == slow.generate(100, b"extra")
    for path in VECTORS:
        if path.name.startswith("CTR_DRBG"):
            for result in run_file(path):
                assert result.passed and not result.failed_counts, result
