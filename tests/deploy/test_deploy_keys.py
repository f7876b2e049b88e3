"""Release keys: Ed25519, PKCS#8 and SubjectPublicKeyInfo PEM, never overwritten."""

from __future__ import annotations

import stat

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from deploy import signing
from deploy.errors import DeployError


def test_keygen_writes_pkcs8_and_spki_pem(tmp_path, no_release_env) -> None:
    key, pub, kid = signing.generate(tmp_path / "lab")
    assert (key.name, pub.name) == ("lab.key", "lab.pub")
    assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----")  # PKCS#8
    assert pub.read_text().startswith("-----BEGIN PUBLIC KEY-----")  # SubjectPublicKeyInfo
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    private = serialization.load_pem_private_key(key.read_bytes(), password=None)
    public = serialization.load_pem_public_key(pub.read_bytes())
    assert isinstance(private, Ed25519PrivateKey) and isinstance(public, Ed25519PublicKey)
    assert signing.key_id(public) == kid and len(kid) == 64
    signature = signing.sign(private, b"d", b"message")
    assert signing.verify(public, b"d", b"message", signature)
    assert not signing.verify(public, b"e", b"message", signature)  # domains are kept apart
    assert not signing.verify(public, b"d", b"message", signature[:-1])


def test_keygen_makes_the_key_directory_as_the_readme_shows(tmp_path, no_release_env) -> None:
    """`etg release keygen --out keys/etg-release` on a fresh checkout: keys/ is made,
    private (0700); a file in the way is one clear error."""
    key, pub, _ = signing.generate(tmp_path / "keys" / "etg-release")
    assert key.is_file() and pub.is_file()
    assert stat.S_IMODE((tmp_path / "keys").stat().st_mode) == 0o700
    (tmp_path / "afile").write_text("x")
    with pytest.raises(DeployError, match="not a directory"):
        signing.generate(tmp_path / "afile" / "k")


def test_keygen_never_overwrites(tmp_path, no_release_env) -> None:
    signing.generate(tmp_path / "k")
    before = (tmp_path / "k.key").read_bytes()
    with pytest.raises(DeployError, match="already exists"):
        signing.generate(tmp_path / "k")
    assert (tmp_path / "k.key").read_bytes() == before


def test_encrypted_key_needs_its_passphrase(tmp_path, monkeypatch, no_release_env) -> None:
    monkeypatch.setenv(signing.PASSPHRASE_ENV, "correct horse battery")
    key, _, _ = signing.generate(tmp_path / "enc", encrypt=True)
    assert key.read_text().startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert isinstance(signing.load_private_key(key), Ed25519PrivateKey)
    monkeypatch.setenv(signing.PASSPHRASE_ENV, "wrong passphrase")
    with pytest.raises(DeployError, match="PASSPHRASE"):
        signing.load_private_key(key)
    monkeypatch.delenv(signing.PASSPHRASE_ENV)
    with pytest.raises(DeployError, match="encrypted"):
        signing.load_private_key(key)


def test_bad_key_files_are_one_clear_error(tmp_path, no_release_env) -> None:
    with pytest.raises(DeployError, match="no such public key"):
        signing.load_public_key(tmp_path / "missing.pub")
    (tmp_path / "junk.pem").write_text("not a key")
    with pytest.raises(DeployError, match="not a PEM public key"):
        signing.load_public_key(tmp_path / "junk.pem")
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    (tmp_path / "rsa.key").write_bytes(
        rsa_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    with pytest.raises(DeployError, match="not an Ed25519"):
        signing.load_private_key(tmp_path / "rsa.key")
