"""Floor staff: scrypt-hashed passwords and server-side sessions.

A password is never stored: ``scrypt$N$r$p$salt$hash`` (hex), compared in constant time.
A session is a random token in an HttpOnly, SameSite=Strict cookie, looked up in the floor
database with its expiry and its own CSRF token, which every state-changing form must
carry (the disable and enable buttons).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from etgcore.errors import UserError
from firmware.floor.db import Database

SESSION_S = 12 * 3600
_N, _R, _P = 1 << 14, 8, 1


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, want = stored.split("$")
        if scheme != "scrypt":
            return False
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                             p=int(p), dklen=len(want) // 2)
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), want)


def add_staff(db: Database, name: str, password: str) -> None:
    if not name or not name.isprintable() or len(name) > 64:
        raise UserError(f"staff name {name!r}: 1 to 64 printable characters")
    if len(password) < 8:
        raise UserError("a floor staff password has at least 8 characters")
    db.run([("INSERT INTO floor_staff(name, pwhash) VALUES (?, ?) ON CONFLICT(name)"
             " DO UPDATE SET pwhash = excluded.pwhash", (name, hash_password(password)))])


@dataclass(frozen=True)
class Session:
    token: str
    name: str
    csrf: str


def log_in(db: Database, name: str, password: str) -> Session | None:
    row = db.one("SELECT pwhash FROM floor_staff WHERE name = ?", (name,))
    if row is None:
        check_password(password, hash_password("x" * 8))  # same time for an unknown name
        return None
    if not check_password(password, str(row[0])):
        return None
    s = Session(secrets.token_urlsafe(32), name, secrets.token_urlsafe(16))
    db.run([("DELETE FROM floor_sessions WHERE expires < ?", (time.time(),)),
            ("INSERT INTO floor_sessions(token, name, csrf, expires) VALUES (?, ?, ?, ?)",
             (s.token, s.name, s.csrf, time.time() + SESSION_S))])
    return s


def session(db: Database, token: str | None) -> Session | None:
    if not token:
        return None
    row = db.one("SELECT name, csrf, expires FROM floor_sessions WHERE token = ?", (token,))
    if row is None or float(row[2]) < time.time():
        return None
    return Session(token, str(row[0]), str(row[1]))


def log_out(db: Database, token: str) -> None:
    db.run([("DELETE FROM floor_sessions WHERE token = ?", (token,))])
