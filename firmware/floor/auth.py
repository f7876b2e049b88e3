"""Floor staff: scrypt-hashed passwords, two roles, throttled logins, server-side sessions.

A password is never stored: ``scrypt$N$r$p$salt$hash`` (hex), compared in constant time.
An unknown name costs the same one scrypt as a known one (against a hash made once), so
the time of a refusal does not tell which names exist. A session is a random token in an
HttpOnly, SameSite=Strict cookie, looked up in the floor database with its expiry and its
own CSRF token, which every state-changing form must carry; the role is read from the
login at every request, and a password reset or a removal deletes the login's sessions.

Roles: ``viewer`` (sees every page) and ``supervisor`` (may also disable, enable, check
software, acknowledge alarms and clear quarantines). A login made before roles existed is
a supervisor (it could do all of that then).

Throttling (:class:`Throttle`): failed logins are counted per name and per address over
:data:`WINDOW_S`; past :data:`PER_NAME` (or :data:`PER_ADDRESS`) failures every attempt
from that name (address) is refused unchecked until the window has passed. Every login
and every failure is logged with name and address (at most :data:`LOG_PER_MINUTE` lines a
minute; beyond, one line with the count). An attempt counts as a failure from the moment
it is admitted until it succeeds, so a burst of parallel guesses gets no more tries.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from etgcore.errors import UserError
from firmware.floor.db import Database

log = logging.getLogger("etg.floor.staff")

SESSION_S = 12 * 3600
_N, _R, _P = 1 << 14, 8, 1
ROLES = ("viewer", "supervisor")
WINDOW_S = 15 * 60.0
PER_NAME = 5
PER_ADDRESS = 20
LOG_PER_MINUTE = 30
#: names the command line keeps for itself (``etg floor staff remove NAME``)
RESERVED = ("remove", "list")


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


@functools.cache
def _dummy_hash() -> str:
    """What an unknown name's password is checked against: one scrypt, like a known one."""
    return hash_password(secrets.token_hex(16))


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


def add_staff(db: Database, name: str, password: str, role: str = "supervisor") -> None:
    """Add a login, or reset its password (and role): its sessions end."""
    if not name or not name.isprintable() or len(name) > 64 or name in RESERVED:
        raise UserError(f"staff name {name!r}: 1 to 64 printable characters, not "
                        f"{' or '.join(RESERVED)}")
    if role not in ROLES:
        raise UserError(f"staff role {role!r}: {' or '.join(ROLES)}")
    if len(password) < 8:
        raise UserError("a floor staff password has at least 8 characters")
    db.run([("INSERT INTO floor_staff(name, pwhash, role) VALUES (?, ?, ?) ON CONFLICT(name)"
             " DO UPDATE SET pwhash = excluded.pwhash, role = excluded.role",
             (name, hash_password(password), role)),
            ("DELETE FROM floor_sessions WHERE name = ?", (name,))])
    log.info("floor staff %s: password set (%s); its sessions ended", name, role)


def remove_staff(db: Database, name: str) -> bool:
    """Remove a login and end its sessions; False when there was none."""
    if db.one("SELECT name FROM floor_staff WHERE name = ?", (name,)) is None:
        return False
    db.run([("DELETE FROM floor_sessions WHERE name = ?", (name,)),
            ("DELETE FROM floor_staff WHERE name = ?", (name,))])
    log.info("floor staff %s removed; its sessions ended", name)
    return True


@dataclass(frozen=True)
class Session:
    token: str
    name: str
    csrf: str
    role: str = "supervisor"

    @property
    def supervisor(self) -> bool:
        return self.role == "supervisor"


class Throttle:
    """Failed logins per name and per address within :data:`WINDOW_S` (in memory: a
    restarted floor forgets them, which costs an attacker a restart he cannot cause)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._fails: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        q = self._fails.setdefault(key, deque(maxlen=max(PER_NAME, PER_ADDRESS)))
        while q and q[0] <= now - WINDOW_S:
            q.popleft()
        return q

    def admit(self, name: str, address: str) -> float:
        """Seconds to wait before this name or address may try again (0: it may, and the
        attempt counts as a failure until :meth:`succeeded` says otherwise — so parallel
        attempts cannot all pass before the first failure is counted)."""
        now = self.clock()
        with self._lock:
            wait = 0.0
            for key, limit in ((("name", name), PER_NAME), (("addr", address), PER_ADDRESS)):
                q = self._recent(key, now)
                if len(q) >= limit:
                    wait = max(wait, q[0] + WINDOW_S - now)
            if len(self._fails) > 100_000:  # bounded: the oldest keys go first
                for k in list(self._fails)[:50_000]:
                    del self._fails[k]
            if wait == 0.0:
                self._recent(("name", name), now).append(now)
                self._recent(("addr", address), now).append(now)
            return wait

    def succeeded(self, name: str, address: str) -> None:
        with self._lock:
            self._fails.pop(("name", name), None)
            q = self._fails.get(("addr", address))
            if q:
                q.pop()  # this attempt, counted when admitted


class _LoginLog:
    """At most :data:`LOG_PER_MINUTE` lines a minute about logins; the rest counted."""

    def __init__(self) -> None:
        self.minute, self.lines, self.dropped = 0, 0, 0
        self._lock = threading.Lock()

    def line(self, level: int, text: str, *args: object) -> None:
        with self._lock:  # (logins are checked on the web server's worker threads)
            self._line(level, text, *args)

    def _line(self, level: int, text: str, *args: object) -> None:
        m = int(time.time() // 60)
        if m != self.minute:
            if self.dropped:
                log.warning("%d more login lines in the last minute not logged", self.dropped)
            self.minute, self.lines, self.dropped = m, 0, 0
        if self.lines >= LOG_PER_MINUTE:
            self.dropped += 1
            return
        self.lines += 1
        log.log(level, text, *args)


login_log = _LoginLog()


def log_in(db: Database, name: str, password: str, address: str = "",
           throttle: Throttle | None = None) -> Session | None:
    """A session, or None (logged either way, with the name and address)."""
    shown = repr(name[:64])
    row = db.one("SELECT pwhash, role FROM floor_staff WHERE name = ?", (name,))
    ok = check_password(password, str(row[0]) if row is not None else _dummy_hash())
    if row is None or not ok:  # (the throttle counted the attempt when it admitted it)
        login_log.line(logging.WARNING, "floor login failed: %s from %s (%s)", shown,
                  address or "?", "unknown name" if row is None else "wrong password")
        return None
    if throttle is not None:
        throttle.succeeded(name, address)
    s = Session(secrets.token_urlsafe(32), name, secrets.token_urlsafe(16),
                str(row[1] or "supervisor"))
    db.run([("DELETE FROM floor_sessions WHERE expires < ?", (time.time(),)),
            ("INSERT INTO floor_sessions(token, name, csrf, expires) VALUES (?, ?, ?, ?)",
             (s.token, s.name, s.csrf, time.time() + SESSION_S))])
    login_log.line(logging.INFO, "floor login: %s (%s) from %s", shown, s.role, address or "?")
    return s


def session(db: Database, token: str | None) -> Session | None:
    if not token:
        return None
    row = db.one("SELECT s.name, s.csrf, s.expires, f.role FROM floor_sessions s"
                 " JOIN floor_staff f ON f.name = s.name WHERE s.token = ?", (token,))
    if row is None or float(row[2]) < time.time():
        return None
    return Session(token, str(row[0]), str(row[1]), str(row[3] or "supervisor"))


def log_out(db: Database, token: str) -> None:
    db.run([("DELETE FROM floor_sessions WHERE token = ?", (token,))])
