"""From hardware happenings to engine inputs: pure functions, no state of their own.

The controller asks these what a shoe event or a button press *means* given what the
table expects now. Keeping them pure makes every mapping testable without a thread,
a pty or a pin, and keeps game logic out of the drivers (they only report what happened).

Panel conventions (the panel ICD leaves them to us; docs/table.md lists them):

- ``BET``: the first press places the table minimum (one wager unit below it would not
  be a legal wager), each further press adds one wager unit, up to the maximum.
- ``STAND`` declines insurance when insurance is offered; ``INSURANCE`` takes it.
- ``SURRENDER`` means *rescue* when the engine offers rescue (Spanish 21, after a double).
- ``DOUBLE`` where the game allows several double sizes (Split to Double: 1x–4x) starts a
  pending double at the smallest size; each further press raises it one step; it is
  placed when the largest size is reached or when no press came for the confirm time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from drivers.shoe.reports import (
    CardDealt,
    CutCardReached,
    LinkDown,
    LinkUp,
    ProtocolFault,
    ShoeEmpty,
    ShoeFault,
    ShoeHello,
    ShoeReport,
    ShoeStatus,
)
from etgcore.view import LimitsView, PublicView, SeatView
from firmware.engine.inputs import (
    Card,
    Console,
    Cut,
    Decision,
    Empty,
    Fault,
    FaultCleared,
    Hello,
    Input,
    SideWager,
    Wager,
)

#: the decision a button asks for, in decision phases
BUTTON_ACTION = {
    "HIT": "hit",
    "STAND": "stand",
    "DOUBLE": "double",
    "SPLIT": "split",
    "SURRENDER": "surrender",
    "INSURANCE": "insurance",
}


def shoe_inputs(ev: ShoeReport) -> list[Input]:
    """The engine inputs a shoe event stands for (none for ack/nak/heartbeat)."""
    match ev:
        case CardDealt():
            return [Card.of(ev.card)]
        case CutCardReached():
            return [Cut()]
        case ShoeEmpty():
            return [Empty()]
        case ShoeFault():
            return [Fault(ev.code, ev.detail or "")]
        case ProtocolFault():
            # every frame the driver refused (malformed, unknown type) and every ERR code
            # the ICD does not name pauses the round: a card that physically left the shoe
            # may be behind it (docs/shoe.md, "Which frames tilt")
            return [Fault("PROTOCOL", f"{ev.detail} ({ev.raw})" if ev.raw else ev.detail)]
        case LinkDown():
            return [Fault("LINK", ev.detail or "no frame from the shoe")]
        case LinkUp():
            return [FaultCleared("LINK")]
        case ShoeHello():
            return [Hello(ev.proto, ev.model, ev.firmware, ev.serial)]
        case ShoeStatus(state="READY" | "LOCKED" | "EMPTY"):
            return [FaultCleared(ev.state)]
    return []


def current_wager(view: PublicView, seat: SeatView) -> int:
    """The seat's Blackjack wager for the coming round (the last round's does not count)."""
    return int(seat["wagers"].get("blackjack", 0)) if view["phase"] == "betting" else 0


def wager_after_bet(current: int, limits: LimitsView, credits: int) -> int | None:
    """The seat's new Blackjack wager after one ``BET`` press (None: no change possible)."""
    lo, hi, unit = limits["min_wager"], limits["max_wager"], limits["wager_unit"]
    new = lo if current < lo else current + unit
    if new > hi:
        return None
    return new


def button_legal(phase_kind: str, legal: Sequence[str]) -> set[str]:
    """Which panel buttons of the seat whose turn it is are lit for ``expecting``."""
    if phase_kind != "decision":
        return set()
    lit: set[str] = set()
    for button, action in BUTTON_ACTION.items():
        if action in legal:
            lit.add(button)
    if "no-insurance" in legal:
        lit.add("STAND")
    if "rescue" in legal:
        lit.add("SURRENDER")
    return lit


#: the engine's answer to "would ``Wager(seat, amount)`` be taken now?": a reason, or None
#: (``firmware.engine.game.Game.wager_refusal``)
WagerRefusal = Callable[[int, int], "str | None"]
#: why SideWager(seat, name, amount) would be refused (the engine's pure query)
SideRefusal = Callable[[int, str, int], "str | None"]
#: the optional wagers a table offers (e.g. Free Bet's Push 22), in their declared order,
#: and the engine's judge of them
OptionalWager = tuple[tuple[str, ...], SideRefusal]


def optional_step(view: PublicView, seat: SeatView, opt: OptionalWager) -> (
    Input | None
):
    """The optional wager one ``INSURANCE`` press places during betting (our panel
    convention, docs/table.md): the first press the table minimum, then one unit more;
    only beside a Blackjack wager, and only when the engine would take it. With several
    optional wagers on the table the press raises the least staked one the engine would
    take (the first declared among equals), so presses go round them in turn and each is
    reachable from the one button the panel has for them."""
    names, refusal = opt
    if not current_wager(view, seat):
        return None
    betting = view["phase"] == "betting"
    steps = []
    for i, name in enumerate(names):
        have = int(seat["wagers"].get(name, 0)) if betting else 0
        new = wager_after_bet(have, view["limits"], seat["credits"])
        if new is not None and not refusal(seat["seat"], name, new):
            steps.append((have, i, name, new))
    if not steps:
        return None
    _, _, name, new = min(steps)
    return SideWager(seat["seat"], name, new)


def lamps_for(
    view: PublicView, wager_refusal: WagerRefusal | None = None,
    optional: OptionalWager | None = None,
) -> dict[int, set[str]]:
    """Every seat's lit buttons for a public view: lit when, and only when, the press
    would be taken now.

    ``BET``: the engine judges the wager the press would place (``wager_refusal``), with
    the paired wagers of the variation (Bingo's activator, Split to Double's equal
    Blackjack or Bust wager) against the seat's credits; without the engine at hand, only
    the Blackjack wager's step is weighed against the credits.
    """
    exp = view["expecting"]
    kind = exp["kind"]
    lamps: dict[int, set[str]] = {s["seat"]: set() for s in view["seats"]}
    if kind == "wagers":
        limits = view["limits"]
        for s in view["seats"]:
            bj = current_wager(view, s)
            new = wager_after_bet(bj, limits, s["credits"])
            if new is not None:
                if wager_refusal is not None:
                    ok = wager_refusal(s["seat"], new) is None
                else:
                    ok = s["credits"] >= new - bj
                if ok:
                    lamps[s["seat"]].add("BET")
            if bj:
                lamps[s["seat"]].add("CLEAR")
            if optional is not None and optional_step(view, s, optional) is not None:
                lamps[s["seat"]].add("INSURANCE")
    elif kind == "decision" and exp["seat"] is not None:
        lamps[exp["seat"]] = button_legal(kind, exp["legal"])
    return lamps


def press_input(
    button: str,
    seat: int,
    view: PublicView,
    *,
    double_times: Sequence[int] = (1,),
    wager_refusal: WagerRefusal | None = None,
    optional: OptionalWager | None = None,
) -> Input | str | None:
    """The input a player's press means now; ``"pending-double"`` starts a 1x–4x double;
    None: the press is not accepted now (its lamp is dark, and it is not journaled)."""
    exp = view["expecting"]
    kind = exp["kind"]
    if kind == "wagers":
        s = next((x for x in view["seats"] if x["seat"] == seat), None)
        if s is None:
            return None
        bj = current_wager(view, s)
        if button == "BET":
            new = wager_after_bet(bj, view["limits"], s["credits"])
            if new is None or (wager_refusal is not None and wager_refusal(seat, new)):
                return None
            return Wager(seat, new)
        if button == "CLEAR" and bj:
            return Wager(seat, 0)
        if button == "INSURANCE" and optional is not None:
            return optional_step(view, s, optional)
        return None
    if kind != "decision" or exp["seat"] != seat:
        return None
    legal = exp["legal"]
    hand = exp["hand"] or 1  # hands count from 1, like seats
    if "insurance" in legal or "no-insurance" in legal:
        if button == "INSURANCE" and "insurance" in legal:
            return Decision(seat, hand, "insurance")
        if button == "STAND" and "no-insurance" in legal:
            return Decision(seat, hand, "no-insurance")
        return None
    if button == "SURRENDER" and "rescue" in legal:
        return Decision(seat, hand, "rescue")
    action = BUTTON_ACTION.get(button)
    if action is None or action not in legal:
        return None
    if action == "double" and len(double_times) > 1:
        return "pending-double"
    if action == "double":
        return Decision(seat, hand, "double", times=double_times[0])
    return Decision(seat, hand, action)


def console_input(button: str, view: PublicView) -> Input | None:
    """The input a dealer console press means now, or None when it would be refused (so
    idle presses do not fill the journal). RECALL is a display matter only."""
    phase = view["phase"]
    staked = phase == "betting" and any(current_wager(view, s) for s in view["seats"])
    if button == "DEAL":
        ok = phase == "tilt" or staked
    elif button == "VOID":
        ok = phase in ("rng", "dealing", "insurance", "decisions", "dealer", "tilt") or staked
    elif button == "SHUFFLE":
        # with wagers placed only when the table holds for a new shoe (the shoe it had
        # cannot be trusted any more: after a restart, docs/shoe.md)
        due = view["expecting"]["kind"] == "new-shoe"
        ok = phase in ("new-shoe", "settled", "voided") or (
            phase == "betting" and (not staked or due))
    else:
        ok = False
    return Console(button) if ok else None
