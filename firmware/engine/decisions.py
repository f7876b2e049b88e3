"""Which decisions a hand may take now, what a split or a double costs, and the plans.

Pure questions about a :class:`~firmware.engine.round.Round`: nothing here changes the
round. A *plan* checks an input completely and raises :class:`Rejected` with the reason,
so the table can both refuse an input before it mutates anything and answer "would this
decision be refused?" (the panel asks before it offers the sizes of a 1x-4x double).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.engine.cards import VALUE
from firmware.engine.hand import Hand, Seat
from firmware.engine.inputs import ACTIONS, Decision
from firmware.engine.rejected import Rejected

if TYPE_CHECKING:
    from firmware.engine.round import Round


def insurance_offer(seat: Seat) -> int:
    """The insurance the bench action takes: exactly half the Blackjack wager."""
    return seat.wager // 2


def can_split(r: Round, seat: Seat, h: Hand) -> bool:
    rules = r.rules
    if len(h.cards) != 2 or len(seat.hands) >= rules.max_hands:
        return False
    c0, c1 = h.cards
    if VALUE[c0] != VALUE[c1] and not (
        rules.split_any_initial and not h.from_split and len(seat.hands) == 1
    ):
        return False
    if h.split_ace and not rules.resplit_aces and VALUE[c0] == 1 == VALUE[c1]:
        return False
    return stake_for(r, seat, h, "split", 1) is not None


def stake_for(r: Round, seat: Seat, h: Hand, what: str, times: int) -> tuple[int, bool] | None:
    """(cents, lammer) a split or double costs, or None if the seat cannot afford it."""
    stake: tuple[int, bool] | None = None
    if what == "split":
        for hook in r.hooks.split_stake:
            stake = hook(r.view, seat, h)
            if stake is not None:
                break
    else:
        for hook in r.hooks.double_stake:
            stake = hook(r.view, seat, h, times)
            if stake is not None:
                break
    if stake is None:
        stake = (h.wager if what == "split" else seat.wager * times, False)
    if not stake[1] and stake[0] > seat.credits:
        return None
    return stake


def _may_hit(r: Round, h: Hand, one_card: bool) -> bool:
    # a 21 owes a decision only where a section lets it double (auto_stand_21 false,
    # e.g. § 635a.10(a)); no section lets it draw, so baseline §1.6 still forbids a hit
    return r.rules.hitting and not one_card and h.total < 21


def _may_double(r: Round, seat: Seat, h: Hand, one_card: bool) -> bool:
    rules = r.rules
    if one_card or h.double:
        return False
    n = len(h.cards)
    if not (n == 2 or (rules.double_any_cards and n >= 2)):
        return False
    if not (rules.double_after_split or not h.from_split):
        return False
    if rules.double_totals is not None and not (n == 2 and h.total in rules.double_totals):
        return False
    for t in rules.double_times:  # noqa: SIM110 - a loop, not any(generator): every decision
        if stake_for(r, seat, h, "double", t):
            return True
    return False


def _may_surrender(r: Round, seat: Seat, h: Hand) -> bool:
    rules = r.rules
    return bool(rules.late_surrender and rules.dealer_check and len(h.cards) == 2
                and len(seat.hands) == 1 and not h.from_split)


def legal_now(r: Round, seat: Seat, h: Hand) -> list[str]:
    """The decisions legal for ``h`` now, in panel order."""
    if r.post_double:
        legal = ["stand"]
    else:
        one_card = h.split_ace and r.rules.split_aces_one_card
        legal = ["hit", "stand"] if _may_hit(r, h, one_card) else ["stand"]
        if _may_double(r, seat, h, one_card):
            legal.append("double")
        if can_split(r, seat, h):
            legal.append("split")
        if _may_surrender(r, seat, h):
            legal.append("surrender")
    view = r.view
    for hook in r.hooks.adjust_legal:
        hook(view, seat, h, legal)
    return legal


def is_legal(r: Round, seat: Seat, h: Hand, action: str) -> bool:
    """Whether ``action`` is in :func:`legal_now` for ``h``: the same rules, only the one
    asked about evaluated (a mechanism that adjusts the list: the whole list).

    WHY: the engine checks every decision it applies; building the whole list each time
    (every stake a double or split would cost) was a tenth of a round's engine time for
    the stand or hit that most decisions are."""
    if r.hooks.adjust_legal:
        return action in legal_now(r, seat, h)
    if r.post_double or action == "stand":
        return action == "stand"
    one_card = h.split_ace and r.rules.split_aces_one_card
    if action == "hit":
        return _may_hit(r, h, one_card)
    if action == "double":
        return _may_double(r, seat, h, one_card)
    if action == "split":
        return can_split(r, seat, h)
    if action == "surrender":
        return _may_surrender(r, seat, h)
    return False


def checked_action(inp: Decision) -> Decision:
    """``inp`` if its action is one the engine knows (the table has checked that a
    decision is due)."""
    if inp.action not in ACTIONS:
        raise Rejected(f"unknown action {inp.action!r} (allowed: {', '.join(ACTIONS)})")
    return inp


def decision_plan(r: Round, inp: Decision) -> tuple[Seat, Hand]:
    """The seat and hand a (non-insurance) decision acts on, or :class:`Rejected`;
    changes nothing (the action is one :func:`checked_action` accepted)."""
    action = inp.action
    seat = r.players[r.turn_seat]
    number = r.turn_hand + 1  # hands are numbered from 1 outside the engine
    if inp.seat != seat.number or inp.hand != number:
        raise Rejected(
            f"{action}: the table waits for seat {seat.number} hand {number}, "
            f"not seat {inp.seat} hand {inp.hand}"
        )
    h = seat.hands[r.turn_hand]
    if not is_legal(r, seat, h, action):
        legal = legal_now(r, seat, h)
        raise Rejected(f"{action} is not legal now (legal: {', '.join(legal)})")
    times = inp.times
    if action == "double":
        if times not in r.rules.double_times:
            raise Rejected(
                f"double {times!r}x is not allowed (allowed: {list(r.rules.double_times)})"
            )
        if stake_for(r, seat, h, "double", times) is None:
            raise Rejected(f"seat {seat.number} cannot cover a {times}x double")
    return seat, h


def insurance_plan(r: Round, inp: Decision) -> tuple[Seat, int]:
    """The seat asked and the insurance it takes (0: declined), or :class:`Rejected`."""
    seat = r.players[r.turn_seat]
    if inp.seat != seat.number or inp.hand != 1:
        raise Rejected(
            f"insurance is asked of seat {seat.number} hand 1, not seat {inp.seat} "
            f"hand {inp.hand}"
        )
    if inp.action == "insurance":
        half = insurance_offer(seat)
        amount = half if inp.amount is None else inp.amount
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= half:
            raise Rejected(f"insurance must be 1..{half} cents (half the wager): {amount!r}")
        if amount > seat.credits:
            raise Rejected(f"seat {seat.number} has {seat.credits} cents, not {amount}")
        return seat, amount
    if inp.action != "no-insurance":
        raise Rejected(f"{inp.action} is not legal now (legal: insurance, no-insurance)")
    return seat, 0
