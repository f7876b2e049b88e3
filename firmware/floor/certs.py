"""The floor's certificates: one CA, a broker certificate, the floor service's and one
per table, made with ``cryptography`` (ECDSA P-256, SHA-256).

Each client's identity is its certificate's common name: the broker takes it as the MQTT
user name (``use_identity_as_username``) and its ACL grants topics by it, so a table's
certificate names the table. The CA key signs every certificate and should be kept off the
floor network once they are issued (docs/floor.md: "Certificates on a real property").
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from etgcore.errors import UserError
from firmware.floor.topics import valid_table_id

FLOOR_SERVICE = "floor"  # common name of the floor service's certificate
BROKER = "broker"
VALID_DAYS = 825


@dataclass(frozen=True)
class Identity:
    """Where one identity's files are under the floor directory."""

    cert: Path
    key: Path


def ca_paths(root: Path) -> Identity:
    return Identity(root / "ca.pem", root / "ca.key")


def identity(root: Path, name: str) -> Identity:
    if name in (FLOOR_SERVICE, BROKER):
        return Identity(root / f"{name}.pem", root / f"{name}.key")
    return Identity(root / "tables" / f"{name}.pem", root / "tables" / f"{name}.key")


def _write_private(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(path, 0o600)


def _new_key() -> object:
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1())


def _key_pem(key: object) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(  # type: ignore[attr-defined]
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())


def _load_ca(root: Path) -> tuple[object, object]:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    p = ca_paths(root)
    cert = x509.load_pem_x509_certificate(p.cert.read_bytes())
    key = serialization.load_pem_private_key(p.key.read_bytes(), password=None)
    return cert, key


def ensure_ca(root: Path, name: str = "ETG floor CA") -> bool:
    """Create the CA unless it exists; True when it was created."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID

    p = ca_paths(root)
    if p.cert.exists() and p.key.exists():
        return False
    key = _new_key()
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
        .public_key(key.public_key())  # type: ignore[attr-defined]
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False,
                                     False), critical=True)
        .sign(key, hashes.SHA256())  # type: ignore[arg-type]
    )
    _write_private(p.key, _key_pem(key))
    p.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return True


def issue(root: Path, name: str, *, server: bool = False) -> bool:
    """Issue ``name``'s key and certificate unless they exist; True when issued."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    if not server and name != FLOOR_SERVICE and not valid_table_id(name):
        raise UserError(f"table id {name!r}: use letters, digits, '-', '_' or '.' only")
    ident = identity(root, name)
    if ident.cert.exists() and ident.key.exists():
        return False
    ca_cert, ca_key = _load_ca(root)
    key = _new_key()
    now = dt.datetime.now(dt.UTC)
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_cert.subject)  # type: ignore[attr-defined]
        .public_key(key.public_key())  # type: ignore[attr-defined]
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    )
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
    cert = builder.sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    _write_private(ident.key, _key_pem(key))
    ident.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return True


def make_floor_certs(root: Path, tables: list[str]) -> list[str]:
    """The CA, the broker's and floor service's certificates and one per table; what was
    created (existing files are kept: re-running adds tables)."""
    made = []
    if ensure_ca(root):
        made.append("ca")
    if issue(root, BROKER, server=True):
        made.append(BROKER)
    if issue(root, FLOOR_SERVICE):
        made.append(FLOOR_SERVICE)
    for t in tables:
        if not valid_table_id(t):
            raise UserError(f"table id {t!r}: letters, digits, '-', '_' or '.' (not starting "
                            "with '_', '-' or '.'), and not floor, broker or ca (the floor's "
                            "own identities)")
    for t in tables:
        if issue(root, t):
            made.append(t)
    return made


def known_tables(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "tables").glob("*.pem"))
