"""Ed25519 release keys: make them, read them, sign and check with them.

Ed25519 because a signature is deterministic (the same release signed twice is the same
bytes), small (64 bytes), and checkable with stock tools: ``openssl pkeyutl -verify
-rawin`` on the Pi verifies a bundle before any of its code runs.

Keys are standard PEM: the private key PKCS#8, the public key SubjectPublicKeyInfo. A
private key may be encrypted; its passphrase is then read from the environment variable
``ETG_RELEASE_KEY_PASSPHRASE`` (never from the command line, where ``ps`` would show it).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from deploy.errors import ReleaseInputError

PASSPHRASE_ENV = "ETG_RELEASE_KEY_PASSPHRASE"
SIGNATURE_SIZE = 64


def key_id(public: Ed25519PublicKey) -> str:
    """SHA-256 of the raw 32-byte public key, hex: how reports and manifests name a key."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def generate(name: str | Path, *, encrypt: bool = False) -> tuple[Path, Path, str]:
    """Write ``NAME.key`` (PKCS#8 PEM, mode 0600) and ``NAME.pub``; return both and the key id.

    Refuses to overwrite either file: replacing a release key by accident would orphan
    every table that trusts the old one.
    """
    base = Path(name)
    key_path, pub_path = Path(f"{base}.key"), Path(f"{base}.pub")
    for path in (key_path, pub_path):
        if path.exists():
            raise ReleaseInputError(f"{path}: already exists; refusing to overwrite a release key")
    if base.parent.exists() and not base.parent.is_dir():
        raise ReleaseInputError(f"{base.parent}: not a directory")
    try:  # `--out keys/etg-release` as the README says: a private directory for the keys
        base.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise ReleaseInputError(f"{base.parent}: cannot create: {exc.strerror or exc}") from None
    encryption: serialization.KeySerializationEncryption = serialization.NoEncryption()
    if encrypt:
        passphrase = os.environ.get(PASSPHRASE_ENV, "")
        if len(passphrase) < 8:
            raise ReleaseInputError(
                f"--encrypt needs a passphrase of 8+ characters in ${PASSPHRASE_ENV}")
        encryption = serialization.BestAvailableEncryption(passphrase.encode())
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    public = private.public_key()
    pub_path.write_bytes(
        public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return key_path, pub_path, key_id(public)


def _read(path: str | Path | bytes, what: str) -> tuple[bytes, str]:
    if isinstance(path, bytes):
        return path, f"<{what}>"
    try:
        return Path(path).read_bytes(), str(path)
    except FileNotFoundError:
        raise ReleaseInputError(f"{path}: no such {what} file") from None
    except OSError as exc:
        raise ReleaseInputError(f"{path}: cannot read {what}: {exc}") from None


def load_private_key(path: str | Path | bytes) -> Ed25519PrivateKey:
    data, label = _read(path, "private key")
    passphrase = os.environ.get(PASSPHRASE_ENV)
    try:
        key = serialization.load_pem_private_key(
            data, password=passphrase.encode() if passphrase else None
        )
    except TypeError:
        raise ReleaseInputError(f"{label}: the key is encrypted; set ${PASSPHRASE_ENV}") from None
    except ValueError:
        raise ReleaseInputError(
            f"{label}: not a PEM private key (or a wrong ${PASSPHRASE_ENV})"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ReleaseInputError(f"{label}: not an Ed25519 key (etg release keygen makes one)")
    return key


def load_public_key(path: str | Path | bytes) -> Ed25519PublicKey:
    data, label = _read(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError:
        raise ReleaseInputError(f"{label}: not a PEM public key (SubjectPublicKeyInfo)") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ReleaseInputError(f"{label}: not an Ed25519 public key")
    return key


def sign(private: Ed25519PrivateKey, domain: bytes, message: bytes) -> bytes:
    """Sign ``domain + message``; the domain keeps the two kinds of signature apart."""
    return private.sign(domain + message)


def verify(public: Ed25519PublicKey, domain: bytes, message: bytes, signature: bytes) -> bool:
    if len(signature) != SIGNATURE_SIZE:
        return False
    try:
        public.verify(signature, domain + message)
    except InvalidSignature:
        return False
    return True
