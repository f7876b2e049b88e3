"""The hil depth: a scenario played against the real table service, switch by switch.

:class:`HilTarget` implements :class:`~firmware.bench.target.TableTarget`, so the shared
:func:`~firmware.bench.playback.play_scenario` plays the scenario and the shared
comparison judges it. Per scenario file it starts one `etg run` process (bench mode,
fresh journal, simulated panel, its shoe port on the bench shoe's pseudo-terminal) and
then only does what a bench rig does:

- cards: hands the next card to the bench shoe, which deals it over the ICD when the
  controller opens the gate (:mod:`firmware.bench.hil_shoe`);
- wagers, decisions and console presses: closes and opens switches of the simulated key
  matrix (through the scanner and debouncer) as a player would press them, following the
  panel conventions of ``firmware.table.devices.translate``: ``BET`` places the minimum then one
  wager unit per press, ``STAND`` declines insurance, ``SURRENDER`` is rescue when offered,
  and a 3x double in Split to Double is ``DOUBLE`` three times then ``STAND``;
- shoe faults: the frame from the bench shoe (a sticky ``JAM``/``LID``/``SENSOR`` keeps
  the shoe in FAULT until a ``STA,READY``), ``LINK-DOWN`` as real silence on the line;
- credits and forced draws: attendant and bench commands of the control channel;
- outcome: the round record in the journal file and the ``credits`` meters.

Every step waits for the controller to report that it handled the happening (the
``wait`` command of the control channel), never for a guessed delay, so a loaded machine
makes the bench slower, not wrong.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from drivers.shoe.framing import frame_text
from etgcore.view import ExpectingView, PublicView, SeatView
from firmware.bench.frames import LINK_DOWN, frame_events
from firmware.bench.hil_buttons import BUTTON, button_meaning
from firmware.bench.hil_config import bench_rules, service_sections
from firmware.bench.hil_journal_waits import fault_cleared, shoe_greeted, until_journaled
from firmware.bench.hil_service import ACT_TIMEOUT_S, ServiceError, ServiceProcess
from firmware.bench.hil_shoe import bench_shoe
from firmware.bench.scenario import Round, Scenario
from firmware.engine.cards import CODE, DECKS
from firmware.engine.rules import Rules, load_rules
from firmware.table.devices.translate import current_wager

#: silence on the shoe line for a link down: past the ICD's 3000 ms, and back
SILENCE_S = 3.4
#: the shoe event each frame type produces at the controller
EVENT_OF = {"ERR": "fault", "HEL": "hello", "CUT": "cut", "EMP": "empty", "CRD": "card",
            "STA": "status"}


class HilTarget:
    """See the module docstring. ``pace_s``: the bench shoe's pause between cards."""

    #: more configuration sections of the table (a SAS link: :mod:`firmware.bench.hil_sas`)
    extra_sections: ClassVar[dict[str, dict[str, Any]]] = {}

    def __init__(self, pace_s: float = 0.0,
                 table: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.pace_s = pace_s
        self.table = table or {}  #: the table's own sections (hil_config.service_sections)
        self.svc: ServiceProcess | None = None
        self.shoe: Any = None
        self.rules: Rules | None = None
        self.st: dict[str, Any] = {}
        self._betting_rounds: list[Round] = []
        self._closes = 0
        self._drawn: dict[str, int] | None = None
        self._uses: Counter[int] = Counter()

    # -- life ------------------------------------------------------------------------------

    def start(self, scenario: Scenario) -> None:
        rules = load_rules(scenario.variant, bench_rules(self.table, scenario), scenario.path)
        self.rules = rules
        self._betting_rounds = [r for r in scenario.rounds if r.seats]
        self._uses = Counter(_code(c) for r in scenario.rounds for c in r.shoe)
        self.shoe = bench_shoe(rules.decks, rules.deck_kind == "spanish", self.pace_s)
        self.svc = ServiceProcess(
            {**service_sections(self.table, scenario, rules.max_seats, self.shoe.path),
             **self.extra_sections},
            seats=rules.max_seats,
        )
        try:
            self.svc.start()
            self._wait_shoe_greeted()
            self._shoe_in_play()
        except BaseException:
            self.stop()
            raise

    def _wait_shoe_greeted(self) -> None:
        """Until the table has the shoe's status after its HEL (:func:`shoe_greeted`)."""
        until_journaled(self._svc().journal, shoe_greeted,
                        "the table never had the shoe's status after its hello")

    def _shoe_in_play(self) -> None:
        """The scenario starts with a shoe in play: SHUFFLE and burn before its first card
        (a card the scenario leaves to spare, so its own cards are all still possible)."""
        st = self._status()
        if st["view"]["phase"] != "new-shoe":
            return
        why = self.console("SHUFFLE")
        if why:
            raise ServiceError(f"loading the first shoe: {why}")
        assert self.rules is not None
        spare = Counter({c: self.rules.decks for c in DECKS[self.rules.deck_kind]})
        spare.subtract(self._uses)
        while self.expecting()["kind"] == "card":
            card = max(spare, key=lambda c: (spare[c], -c))
            spare[card] -= 1
            why = self.card(CODE[card])
            if why:
                raise ServiceError(f"burning the first shoe's card: {why}")

    def stop(self) -> None:
        if self.svc is not None:
            self.svc.cleanup()
            self.svc = None
        if self.shoe is not None:
            self.shoe.stop()
            self.shoe = None

    # -- talking to the service ------------------------------------------------------------

    def _svc(self) -> ServiceProcess:
        if self.svc is None:
            raise ServiceError("the table service is not running")
        return self.svc

    def _check(self, reply: dict[str, Any], what: str) -> dict[str, Any]:
        if not reply.get("ok"):
            raise ServiceError(f"{what}: {reply.get('error')}")
        if reply.get("failure"):
            raise ServiceError(f"the table stopped: {reply['failure']}")
        if "view" in reply:
            self.st = reply
        return reply

    def _status(self) -> dict[str, Any]:
        svc = self._svc()
        if not svc.alive():
            raise ServiceError(f"etg run died: {svc.last_log_line()}")
        return self._check(svc.control("status"), "status")

    def _wait(self, what: str, more: dict[str, int],
              timeout: float = ACT_TIMEOUT_S) -> dict[str, Any]:
        """Wait until the controller handled ``more`` more happenings of each kind."""
        have = self.st.get("handled", {})
        want = {k: int(have.get(k, 0)) + n for k, n in more.items()}
        svc = self._svc()
        reply = self._check(svc.control("wait", handled=want, timeout_s=timeout), what)
        if not reply.get("waited"):
            alive = "" if svc.alive() else f" (etg run died: {svc.last_log_line()})"
            raise ServiceError(f"{what}: the table did not react within {timeout:.0f} s{alive}"
                               f" ({self._diagnosis(reply)})")
        return reply

    def _diagnosis(self, reply: dict[str, Any]) -> str:
        """What the table waits for and what the shoe is doing, for a stuck step."""
        why = (reply.get("view") or {}).get("expecting", {}).get("why", "?")
        shoe = ""
        with contextlib.suppress(Exception):
            st = self.shoe.status()
            shoe = (f"; shoe {st['state']}, gate {st['gate']}, {st['pending_frames']} frames "
                    f"unanswered, {len(self.shoe.machine.ready)} cards handed over, "
                    f"last received {[frame_text(f) for f in self.shoe.received()[-3:]]}")
        return f"table: {why}{shoe}; service log: {self._svc().last_log_line()}"

    def _counts(self, source: str) -> tuple[int, int]:
        h = self.st.get("handled", {})
        return int(h.get("input:accepted:" + source, 0)), int(h.get("input:refused:" + source, 0))

    def _took(self, source: str, before: tuple[int, int], what: str) -> str | None:
        """None when an input from ``source`` was accepted since ``before``, else why not."""
        acc, ref = self._counts(source)
        if acc > before[0]:
            return None
        if ref > before[1]:
            return f"the table refused {what}"
        legal = self.st["view"]["expecting"].get("legal") or []
        hint = f"; legal: {', '.join(legal)}" if legal else ""
        return f"the table ignored {what} (its lamp is dark{hint})"

    def _tap(self, seat: int | None, button: str) -> None:
        """A finger on a switch: closed until the scanner reported the press, then opened
        until it reported the release (a press is never lost to a slow scan)."""
        svc = self._svc()
        where = f"seat {seat} {button}" if seat is not None else f"console {button}"
        self._check(svc.control("press", seat=seat, button=button), f"pressing {where}")
        self._wait(f"pressing {where}", {"panel:press": 1})
        self._check(svc.control("release", seat=seat, button=button), f"releasing {where}")
        self._wait(f"releasing {where}", {"panel:release": 1})

    # -- TableTarget -----------------------------------------------------------------------

    def expecting(self) -> ExpectingView:
        if self._drawn is not None:  # the controller served the draw at once; report it
            return {"kind": "draw", "seat": None, "hand": None, "legal": [], "to": None,
                    "why": "the RNG draw of this round"}
        exp: ExpectingView = self._status()["view"]["expecting"]
        return exp

    def view(self) -> PublicView:
        """The public view; once a round is over, its outcome as the files say it: the
        round record of the journal and each seat's ``credits`` meter."""
        v: PublicView = self._status()["view"]
        phase = v["phase"]
        journal = self._svc().journal
        if phase in ("settled", "voided"):
            recs = [r for r in journal.records("round") if r["round"] == v["round"]]
            if len(recs) != 1:
                raise ServiceError(f"round {v['round']} is {phase} but the journal holds "
                                   f"{len(recs)} round records for it")
            rec = recs[0]["body"]
            meters = journal.seat_credits()
            played = {s["seat"]: s for s in rec["seats"]}
            seats: list[SeatView] = []
            for s in v["seats"]:
                credits = meters.get(s["seat"], 0)
                js = played.get(s["seat"])
                if js is not None and js["credits"] != credits:
                    raise ServiceError(f"round {v['round']}: the round record gives seat "
                                       f"{s['seat']} {js['credits']} cents, its meter {credits}")
                seats.append({**(js or s), "credits": credits})
            return {**v, "phase": rec["state"], "seats": seats, "dealer": rec["dealer"]}
        if phase == "tilt":  # nothing settled: the meters must not have moved
            meters = journal.seat_credits()
            for s in v["seats"]:
                live = s["credits"] + _on_table(s)
                if meters.get(s["seat"], 0) != live:
                    raise ServiceError(f"round {v['round']} is tilted but seat {s['seat']}'s "
                                       f"meter says {meters.get(s['seat'], 0)} cents, not "
                                       f"{live}")
        return v

    def set_credits(self, seat: int, cents: int) -> str | None:
        seats = {s["seat"]: s for s in self._status()["view"]["seats"]}
        if seat not in seats:
            return f"no seat {seat} at this table (seats 1..{len(seats)})"
        have = seats[seat]["credits"]
        if cents == have:
            return None
        cmd = "credits-in" if cents > have else "credits-out"
        reply = self._svc().control(cmd, seat=seat, cents=abs(cents - have))
        return None if reply.get("ok") else str(reply.get("error"))

    def wager(self, seat: int, amount: int) -> str | None:
        assert self.rules is not None
        r = self.rules
        v = self._status()["view"]
        s = next((x for x in v["seats"] if x["seat"] == seat), None)
        if s is None:
            return f"no seat {seat} at this table"
        have = current_wager(v, s)
        if amount == have:
            return None
        if have and (amount < have or amount == 0):
            why = self._press_for(seat, "CLEAR", "CLEAR")
            if why or amount == 0:
                return why
            have = 0
        lo, hi, unit = r.min_wager, r.max_wager, r.wager_unit
        if amount < lo or amount > hi or (amount - lo) % unit:
            return (f"the panel cannot place {amount} cents: BET places {lo}, then {unit} "
                    f"more per press, up to {hi}")
        presses = (amount - lo) // unit + 1 - (0 if have < lo else (have - lo) // unit + 1)
        for _ in range(presses):
            why = self._press_for(seat, "BET", "BET")
            if why:
                return why
        return None

    def side_wager(self, seat: int, name: str, amount: int) -> str | None:
        """An optional wager (Push 22): the panel ICD has no button of its own for one, so
        the table's convention is INSURANCE during betting (docs/table.md): the first
        press places the table minimum, each further press one unit more."""
        assert self.rules is not None
        r = self.rules
        lo, hi, unit = r.min_wager, r.max_wager, r.wager_unit
        if amount < lo or amount > hi or (amount - lo) % unit:
            return (f"the panel cannot place a {name} wager of {amount} cents: INSURANCE "
                    f"places {lo}, then {unit} more per press, up to {hi}")
        for _ in range((amount - lo) // unit + 1):
            why = self._press_for(seat, "INSURANCE", f"{name} (INSURANCE)")
            if why:
                return why
        return None

    def _press_for(self, seat: int | None, button: str, what: str) -> str | None:
        source = "panel" if seat is not None else "console"
        before = self._counts(source)
        self._tap(seat, button)
        return self._took(source, before, what)

    def close_betting(self) -> str | None:
        rnd = (self._betting_rounds[self._closes]
               if self._closes < len(self._betting_rounds) else None)
        self._closes += 1
        svc = self._svc()
        if rnd is not None and rnd.draws:
            reply = svc.control("force-draw", values=dict(rnd.draws))
            if not reply.get("ok"):
                return str(reply.get("error"))
        why = self._press_for(None, "DEAL", "DEAL")
        if why:
            return why
        bingo = self.st["view"].get("bingo") or {}
        if bingo.get("target") is not None:
            self._drawn = {"bingo_target": bingo["target"],
                           "bingo_multiplier": bingo["multiplier"]}
        return None

    def card(self, code: str) -> str | None:
        before = self._counts("shoe")
        self.shoe.load_cards([code], append=True)
        self._wait(f"dealing {code}", {"shoe:card": 1})
        return self._took("shoe", before, f"card {code}")

    def decide(self, seat: int, hand: int, do: str, times: int) -> str | None:
        assert self.rules is not None
        sizes = sorted(self.rules.double_times)
        meaning = button_meaning(BUTTON[do], self.st["view"]["expecting"].get("legal") or [])
        if meaning != do:  # STAND / SURRENDER mean something else now: a player cannot ask
            return (f"the panel has no way to ask for {do} now: {BUTTON[do]} means "
                    f"{meaning} here")
        if do != "double" or len(sizes) == 1:
            if do == "double" and times not in sizes:
                return f"the panel has no {times}x double (this game doubles {sizes[0]}x)"
            return self._press_for(seat, BUTTON[do], do)
        if times not in sizes:
            return f"the panel has no {times}x double (this game doubles {sizes})"
        before = self._counts("panel")
        for step, size in enumerate(sizes[: sizes.index(times) + 1]):
            self._tap(seat, "DOUBLE")
            pending = self.st.get("pending_double")
            if size == sizes[-1]:
                break  # the largest size is placed at once
            if pending is None:
                if step == 0:
                    return self._took("panel", before, f"{times}x double")
                return f"the pending double was placed before {times}x was pressed"
            if pending["times"] != size:
                return f"the pending double shows {pending['times']}x, not {size}x"
        if self.st.get("pending_double") is not None:
            self._tap(seat, "STAND")  # STAND confirms the pending double
        return self._took("panel", before, f"{times}x double")

    def draw(self, values: dict[str, int]) -> str | None:
        drawn, self._drawn = self._drawn, None
        if drawn is None:
            return "the table did not ask for a draw"
        if drawn != values:
            return f"the table drew {drawn}, not the forced {values}"
        return None

    def shoe_frame(self, body: str) -> str | None:
        self._status()  # a fresh baseline: the table's own QRYs move the counters too
        before = self._counts("shoe")
        if body == LINK_DOWN:
            self.shoe.inject("silence", SILENCE_S)
            wait = ACT_TIMEOUT_S + SILENCE_S
            self._wait("the shoe's link going down", {"shoe:link-down": 1}, wait)
            self._wait("the shoe's link coming back", {"shoe:link-up": 1}, wait)
        else:
            frame_events(body)  # checked by the scenario loader; a clear error if not
            kind = EVENT_OF[body.split(",")[0]]
            since = self._svc().journal.last_seq()
            self.shoe.send_frame(body)
            self._wait(f"the shoe sending {body}", {"shoe:" + kind: 1})
            if kind == "status" and not body.startswith("STA,FAULT"):
                self._wait_cleared(body, since)
        acc, ref = self._counts("shoe")
        if ref > before[1] and acc == before[0]:
            return f"the table refused the shoe's {body}"
        return None

    def _wait_cleared(self, body: str, since_seq: int) -> None:
        """Until the table journaled the clearing STA as its input. Counting statuses or
        shoe inputs is not enough: while tilted the table asks the shoe (QRY) once a
        second, and those answers may be handled before the bench's STA."""
        until_journaled(self._svc().journal, fault_cleared,
                        f"the table did not take the shoe's {body}", since_seq)
        self._status()  # the controller applied it before it answers this

    def console(self, press: str) -> str | None:
        return self._press_for(None, press, f"console {press}")


def _code(card: str) -> int:
    with contextlib.suppress(ValueError):
        return CODE.index(card)
    return -1


def _on_table(seat: SeatView) -> int:
    from firmware.bench.compare import _stake_on_table

    return 0 if seat["net"] is not None else _stake_on_table(seat)
