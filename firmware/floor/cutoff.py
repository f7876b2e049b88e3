"""A quarantined table cut off at the broker: its traffic never reaches the floor.

Dropping a quarantined table's messages at the floor's edge is not enough: each still
costs the floor's one network thread its TLS record, its packet, its callback — a table
flooding thousands of messages a second delays every other table's ingest. So at
quarantine the floor asks the broker to refuse the table, through Mosquitto's dynamic
security plugin (``$CONTROL/dynamic-security/v1``, configured by
:mod:`firmware.floor.broker`):

- ``createClient <table>`` with the role :data:`ROLE`, whose one ACL denies every
  publish (``publishClientSend #``), then ``disableClient <table>``, which disconnects
  it. Mosquitto checks a dynamic-security client before the ACL file, so from then on the
  broker refuses everything the table publishes — nothing of it is routed to the floor.
- A table authenticates by its certificate (``use_identity_as_username``), which
  Mosquitto 2.0 does not pass to the plugin's password check: a disabled table *can*
  connect again, but whatever it publishes is refused at the broker (the role). Mosquitto
  acknowledges a refused QoS 1 publish, so the table's link keeps its records until the
  floor acknowledges them — nothing is lost.
- Clearing the quarantine is ``deleteClient <table>``: the broker disconnects it once
  more, the table reconnects and sends again everything after the floor's last
  acknowledgement (an honest table quarantined by mistake loses nothing).

The state lives in the plugin's own file, which the broker saves at each change, so a
quarantine survives a broker restart; and at every connection the floor makes it agree
with the floor's own list of quarantined tables (a floor restart, a broker whose file was
lost). A broker that does not answer (no plugin) or refuses a command is never silent:
the floor's health says so on every page and in the log, and the floor still drops the
table's messages at its edge.

Two losses Mosquitto 2.0.11 keeps to itself (the red team's attack on the plugin's file,
found by trying): a file that is not valid JSON is one line in the broker's log, and the
broker runs on with the plugin's state empty; a file the plugin cannot save (its
directory or its ``.new`` not writable) is not even that — the cut holds in the broker's
memory and is gone at its next start. So a table quarantined at the floor that the
plugin's listing does not hold is an alarm on that table (``cutoff``: the broker had lost
it; cut off again at once), and where the floor runs the broker itself (its plugin's
file in the floor directory: ``--start-broker``), the floor reads it every
:data:`FILE_CHECK_S`: a table the broker holds cut off but its file does not, twice
running, or a file that cannot be read as the plugin's, is the banner.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

log = logging.getLogger("etg.floor.cutoff")

CONTROL_TOPIC = "$CONTROL/dynamic-security/v1"
RESPONSE_TOPIC = f"{CONTROL_TOPIC}/response"
#: the dynamic-security role of a quarantined table: every publish refused
ROLE = "etg-quarantined"
ROLE_ACLS = [{"acltype": "publishClientSend", "topic": "#", "priority": 0, "allow": False}]
#: what the plugin grants when none of a client's roles decides: nothing, so that the
#: floor's ACL file decides for every client the plugin holds (Mosquitto's own default
#: lets a plugin client receive any topic it subscribes to)
DEFAULT_ACCESS = {"publishClientSend": False, "publishClientReceive": False,
                  "subscribe": False, "unsubscribe": False}
#: seconds the broker has to answer a command before it is a problem on every page
ANSWER_S = 10.0
#: answers larger than this are not read (the plugin's listing of a large floor fits)
MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: errors that mean "already so" (the floor's commands are idempotent; a cut-off is then
#: judged by the client the plugin holds at its end)
BENIGN = {("createClient", "Client already exists"), ("createRole", "Role already exists"),
          ("deleteClient", "Client not found")}
#: seconds between two looks at the plugin's roles and clients while connected (a change
#: made at the broker meanwhile — a role added to a cut-off table — is put right)
RECHECK_S = 15.0

#: seconds between two readings of the plugin's file (where it is this machine's)
FILE_CHECK_S = 5.0
#: the plugin's file is not read past this size (it holds only the quarantined tables)
MAX_FILE_BYTES = 16 * 1024 * 1024

Publish = Callable[[str, bytes], None]
Problem = Callable[[str | None], None]
Lost = Callable[[str], None]


def plugin_config() -> dict[str, Any]:
    """The plugin's file as the floor's broker set-up writes it (when there is none): the
    quarantine role, nothing granted by default, no clients."""
    return {"defaultACLAccess": DEFAULT_ACCESS, "clients": [], "groups": [],
            "roles": [{"rolename": ROLE, "acls": ROLE_ACLS}]}


def cut_commands(tid: str) -> list[dict[str, Any]]:
    return [{"command": "createClient", "username": tid, "roles": [{"rolename": ROLE}]},
            # exactly the one role, no group: another role of a higher priority that
            # allows publishing would win over ROLE's refusal (red team r43 F2)
            {"command": "modifyClient", "username": tid, "roles": [{"rolename": ROLE}],
             "groups": []},
            {"command": "disableClient", "username": tid},
            # what decides: the client as the plugin now holds it (createClient answers
            # an error when it already exists)
            {"command": "getClient", "username": tid}]


def restore_commands(tid: str) -> list[dict[str, Any]]:
    return [{"command": "deleteClient", "username": tid}]


class BrokerCutoff:
    """The floor's side of the cut-off: commands out (``publish(topic, payload)``, paho's
    thread-safe publish), answers in (:meth:`answered`, paho's thread), deadlines on the
    watchdog's tick; ``problem(text | None)``: the health's banner; ``lost(table)``: the
    broker's listing did not hold a quarantined table (the table's alarm);
    ``state_file``: the plugin's file, where the floor can read it (else None)."""

    def __init__(self, publish: Publish, problem: Problem, *, lost: Lost | None = None,
                 state_file: Path | None = None) -> None:
        self.publish = publish
        self.problem = problem
        self.lost = lost or (lambda tid: None)
        self.state_file = state_file
        self._file_at = float("-inf")
        self._unsaved: set[str] = set()  # held by the broker, not in its file, last look
        self._unread = False  # the file could not be read at the last look
        self._live = False  # connected to the broker (a look now is answered)
        self._probed = float("-inf")
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        #: correlation id -> (sent at, what it was for)
        self._pending: dict[str, tuple[float, str]] = {}
        self._errors: dict[str, str] = {}  # what failed, by what it was for
        self._overdue = False
        #: tables the broker reported cut off at the last listing (the floor's view)
        self.cut: set[str] = set()
        self.wanted: set[str] = set()
        self.answers = 0

    # -- what the floor asks ------------------------------------------------------------

    def connected(self, quarantined: Iterable[str]) -> None:
        """The floor (re)connected: the plugin's defaults and role made sure of, and its
        list of cut-off tables asked for (the answer is compared with ``quarantined``)."""
        with self._lock:
            self.wanted = set(quarantined)
            # what was asked before is settled by this listing (an answer lost with the
            # old connection would otherwise stay overdue for good)
            self._pending.clear()
            self._overdue = False
            self._live = True
        self._probe()

    def disconnected(self) -> None:
        """The floor's connection ended: no looks until the next one (its own banner)."""
        self._live = False

    def _probe(self) -> None:
        self._probed = time.monotonic()
        self._send("probe", [
            {"command": "setDefaultACLAccess", "acls": [
                {"acltype": k, "allow": v} for k, v in DEFAULT_ACCESS.items()]},
            {"command": "createRole", "rolename": ROLE, "acls": ROLE_ACLS},
            {"command": "getRole", "rolename": ROLE},
            {"command": "listClients", "verbose": True, "count": -1, "offset": 0}])

    def quarantine(self, tid: str) -> None:
        with self._lock:
            self.wanted.add(tid)
        log.warning("table %s: quarantined; the broker is told to refuse it", tid)
        self._send(f"cut {tid}", cut_commands(tid))

    def release(self, tid: str) -> None:
        with self._lock:
            self.wanted.discard(tid)
        log.info("table %s: quarantine cleared; the broker is told to let it in again", tid)
        self._send(f"restore {tid}", restore_commands(tid))

    def _send(self, what: str, commands: list[dict[str, Any]]) -> None:
        corr = f"etg-{next(self._ids)}"
        for c in commands:
            c["correlationData"] = corr
        with self._lock:
            self._pending[corr] = (time.monotonic(), what)
        try:
            self.publish(CONTROL_TOPIC, orjson.dumps({"commands": commands}))
        except Exception as exc:  # the next connection's probe puts it right
            log.error("the broker's cut-off (%s) could not be sent: %s", what, exc)

    # -- what the broker answers (paho's thread) ----------------------------------------

    def answered(self, payload: bytes) -> None:
        if len(payload) > MAX_ANSWER_BYTES:
            log.error("the broker's dynamic-security answer is %d bytes: not read",
                      len(payload))
            return
        try:
            responses = orjson.loads(payload).get("responses")
        except (orjson.JSONDecodeError, AttributeError):
            responses = None
        if not isinstance(responses, list):
            log.error("the broker's dynamic-security answer is not what the plugin sends")
            return
        done: dict[str, str] = {}
        failed: dict[str, str] = {}
        with self._lock:
            for r in responses:
                corr = r.get("correlationData") if isinstance(r, dict) else None
                if not isinstance(corr, str) or corr not in self._pending:
                    continue
                what = done[corr] = self._pending[corr][1]
                err = r.get("error")
                if isinstance(err, str) and (r.get("command"), err) not in BENIGN:
                    failed[what] = f"{r.get('command')}: {err}"[:200]
                elif r.get("command") == "getRole" and not _denies_all(r.get("data")):
                    failed[what] = (f"the role {ROLE} does not refuse every publish "
                                    "(someone changed it: docs/floor.md)")
                elif r.get("command") == "getClient" and not _held_cut(r.get("data")):
                    failed[what] = (f"the plugin does not hold the table disabled in the "
                                    f"role {ROLE} alone")
                elif r.get("command") == "listClients":
                    self._listed(r.get("data"))
            for corr, what in done.items():
                self._pending.pop(corr, None)
                if what in failed:
                    self._errors[what] = failed[what]
                    continue
                self._errors.pop(what, None)
                verb, _sp, tid = what.partition(" ")
                if verb == "cut":  # the broker holds it so (getClient said)
                    self.cut.add(tid)
                elif verb == "restore":
                    self.cut.discard(tid)
            self.answers += bool(done)
            self._overdue = False
        for what, err in failed.items():
            log.error("the broker refused the floor's cut-off (%s): %s", what, err)
        if done:
            self._report()

    def _listed(self, data: Any) -> None:
        """The plugin's clients: the tables it holds in :data:`ROLE` made to agree with
        the floor's quarantines (both ways)."""
        clients = (data or {}).get("clients") if isinstance(data, dict) else None
        held, ours = set(), set()
        for c in clients if isinstance(clients, list) else []:
            if isinstance(c, dict) and any(isinstance(r, dict) and r.get("rolename") == ROLE
                                           for r in c.get("roles") or []):
                ours.add(str(c.get("username")))
                if _held_cut(c):  # disabled, in ROLE alone, in no group
                    held.add(str(c.get("username")))
        self.cut = held
        missing, extra = sorted(self.wanted - held), sorted(ours - self.wanted)
        threading.Thread(target=self._reconcile, args=(missing, extra), daemon=True,
                         name="floor-cutoff").start()

    def _reconcile(self, missing: list[str], extra: list[str]) -> None:
        for tid in missing:
            log.error("table %s: quarantined but the broker did not hold its cut-off (the "
                      "plugin's file lost, corrupt or not saved?): cut off now", tid)
            self._send(f"cut {tid}", cut_commands(tid))
            try:
                self.lost(tid)
            except Exception:  # the alarm's trouble never stops the cut
                log.exception("table %s: the lost cut-off could not be alarmed", tid)
        for tid in extra:
            log.warning("table %s: cut off at the broker but not quarantined: let in", tid)
            self._send(f"restore {tid}", restore_commands(tid))

    # -- deadlines (the watchdog's tick) ------------------------------------------------

    def tick(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            late = [w for t, w in self._pending.values() if now - t > ANSWER_S]
            changed = bool(late) != self._overdue
            self._overdue = bool(late)
        if self._live and now - self._probed >= RECHECK_S:
            with self._lock:  # a look still unanswered is settled by this one (its answer
                # may have been dropped: the broker's queue for the floor full, say)
                for corr in [k for k, (_t, w) in self._pending.items() if w == "probe"]:
                    del self._pending[corr]
            self._probe()
        if self.state_file is not None and now - self._file_at >= FILE_CHECK_S:
            self._file_at = now
            changed |= self._check_file()
        if changed:
            self._report(now)

    def _check_file(self) -> bool:
        """The plugin's file against what the broker holds: a table cut off in the
        broker's memory but not in its file, or a file that cannot be read as the
        plugin's, at two looks running (the plugin writes its file in place at each
        change: one look may catch it half written), is an error until it is put right.
        Whether the errors changed."""
        assert self.state_file is not None
        why: str | None = None
        try:
            with open(self.state_file, "rb") as f:
                held = _file_held(orjson.loads(f.read(MAX_FILE_BYTES + 1)))
        except (OSError, orjson.JSONDecodeError, ValueError) as exc:
            held = None
            why = (f"the plugin's file {self.state_file} cannot be read as the plugin's "
                   f"({type(exc).__name__}): at its next start the broker forgets every "
                   "quarantine until the floor connects (docs/floor.md)")
        with self._lock:
            if held is None:
                if not self._unread:
                    why = None  # unreadable once: looked at again before it is an error
                self._unread, self._unsaved = True, set()
            else:
                unsaved = (self.cut & self.wanted) - held
                twice = sorted(unsaved & self._unsaved)
                self._unread, self._unsaved = False, unsaved
                if twice and not self._pending:
                    why = (f"the broker's plugin did not save the cut-off of {twice[0]} "
                           f"({len(twice)} in all) in its file {self.state_file} (is it "
                           "writable by the broker?): at its next start the broker lets "
                           "them in until the floor connects (docs/floor.md)")
            was = self._errors.get("the plugin's file")
            if why is None:
                self._errors.pop("the plugin's file", None)
            else:
                self._errors["the plugin's file"] = why
        if why != was and why is not None:
            log.error("%s", why)
        return why != was

    def state(self, now: float | None = None) -> str | None:
        """What is wrong with the cut-off now (None: the broker does what it is asked)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            overdue = [w for t, w in self._pending.values()
                       if now - t > ANSWER_S] if self._overdue else []
            errors = dict(self._errors)
        if overdue:
            return (f"the broker did not answer the floor's cut-off ({overdue[0]}) within "
                    f"{ANSWER_S:.0f} s: is Mosquitto's dynamic security plugin loaded? "
                    "A quarantined table's flood still reaches the floor (docs/floor.md)")
        if errors:
            what, err = next(iter(errors.items()))
            if what == "the plugin's file":
                return err
            return f"the broker refused the floor's cut-off ({what}): {err}"
        return None

    def _report(self, now: float | None = None) -> None:
        self.problem(self.state(now))


def _file_held(config: Any) -> set[str]:
    """The tables the plugin's file holds disabled in :data:`ROLE` (ValueError: a file
    not shaped as the plugin's)."""
    clients = config.get("clients") if isinstance(config, dict) else None
    if not isinstance(clients, list):
        raise ValueError("no list of clients")
    return {str(c.get("username")) for c in clients if _held_cut(c)}


def _denies_all(data: Any) -> bool:
    """Whether the plugin's answer to getRole shows :data:`ROLE` refusing every publish."""
    role = data.get("role") if isinstance(data, dict) else None
    acls = role.get("acls") if isinstance(role, dict) else None
    return isinstance(acls, list) and any(
        isinstance(a, dict) and a.get("acltype") == "publishClientSend"
        and a.get("topic") == "#" and a.get("allow") is False for a in acls)


def _held_cut(data: Any) -> bool:
    """Whether the plugin's answer to getClient (or a client of its listing or file) shows
    the table disabled in :data:`ROLE` and nothing else: no other role (one of a higher
    priority allowing a publish would win), no group."""
    client = data.get("client", data) if isinstance(data, dict) else None
    if not isinstance(client, dict) or client.get("disabled") is not True:
        return False
    roles = client.get("roles") or []
    return (isinstance(roles, list) and len(roles) == 1 and isinstance(roles[0], dict)
            and roles[0].get("rolename") == ROLE and not client.get("groups"))
