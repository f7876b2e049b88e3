"""Settlement: every wager of the round paid, pushed or collected, exactly.

Odds are Fractions; a payout that is not a whole number of cents is rounded DOWN to the
cent and the remainder is recorded in the round's audit record (baseline §12). The
payout limitation (§ 633a.13(o), ``max_payout_per_round``) caps what a seat wins in the
round; the amount withheld is recorded too.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from firmware.engine.hand import BLACKJACK, BUST, RESCUED, SURRENDERED, Hand, Seat
from firmware.engine.ledger import Ledger

if TYPE_CHECKING:
    from firmware.engine.mechanism import RoundView
    from firmware.engine.round import Round

ONE = Fraction(1)


def _compare(player: int, dealer: int) -> str:
    if dealer > 21 or player > dealer:
        return "win"
    return "push" if player == dealer else "lose"


def _pay_blackjack(t: Round, seat: Seat, h: Hand, ledger: Ledger, w: int, lam: bool) -> None:
    odds = t.rules.blackjack_pays
    view = t.view
    for hook in t.hooks.hand_odds:
        odds = hook(view, seat, h, "wager", odds)
    ledger.win("blackjack", w, odds, lam)


def _settle_hand(t: Round, seat: Seat, h: Hand, idx: int, ledger: Ledger, dealer_bj: bool) -> None:
    rules = t.rules
    hooks = t.hooks
    view: RoundView = t.view
    before = ledger.returned
    st = h.status
    w, lam = (h.lammer_amount, True) if h.lammer else (h.wager, False)
    d, dlam = (h.double, h.double_lammer)
    if st == BUST:
        result = "lose"  # a busted hand lost at once, whatever the dealer holds
    elif st == RESCUED:
        result = "rescue"
        ledger.lose("blackjack", w)
        ledger.push("double", d, dlam)
    elif dealer_bj:
        # § 633a.11(d), § 635a.10(b): only the original wager is collected.
        if st == BLACKJACK:
            # A player Blackjack pushes unless the variant says otherwise (baseline §1.4).
            result = "push"
            for rhook in hooks.hand_result:
                result = rhook(view, seat, h, result)
            if result == "win":
                result = "blackjack"
                _pay_blackjack(t, seat, h, ledger, w, lam)
            else:
                ledger.push("blackjack", w, lam)
        elif idx == 0 and st != SURRENDERED:
            result = "lose"
            ledger.lose("blackjack", w)
            if d:
                ledger.push("double", d, dlam)
        elif st == SURRENDERED:
            result = "surrender"
            ledger.refund("surrender", w, rules.surrender_refund)
        else:
            result = "push"
            ledger.push("split", w, lam)
            if d:
                ledger.push("double", d, dlam)
    elif st == SURRENDERED:
        result = "surrender"
        ledger.refund("surrender", w, rules.surrender_refund)
    elif st == BLACKJACK:
        result = "blackjack"
        _pay_blackjack(t, seat, h, ledger, w, lam)
    else:
        result = _compare(h.total, t.dealer.total)
        for rhook in hooks.hand_result:
            result = rhook(view, seat, h, result)
        if result == "win":
            odds = ONE
            for hook in hooks.hand_odds:
                odds = hook(view, seat, h, "wager", odds)
            ledger.win("blackjack", w, odds, lam)
            if d:
                odds = ONE
                for hook in hooks.hand_odds:
                    odds = hook(view, seat, h, "double", odds)
                ledger.win("double", d, odds, dlam)
        elif result == "push":
            ledger.push("blackjack", w, lam)
            if d:
                ledger.push("double", d, dlam)
    h.result = result
    h.paid = ledger.returned - before


def settle_round(t: Round) -> None:
    """Settle every seat of the round; the bank moves the money (the round is then over)."""
    rules = t.rules
    dealer_bj = t.dealer_bj or t.dealer.is_blackjack
    t.dealer_bj = dealer_bj
    limit = None if rules.payout_limit_exempt else rules.max_payout_per_round
    audit = t.audit
    bank = t.bank
    for seat in t.players:
        ledger = Ledger(seat, audit)
        for idx, h in enumerate(seat.hands):
            _settle_hand(t, seat, h, idx, ledger, dealer_bj)
        if seat.insurance:
            if dealer_bj:
                ledger.win("insurance", seat.insurance, rules.insurance_pays)
            else:
                ledger.lose("insurance", seat.insurance)
        for hook in t.hooks.settle_seat:
            hook(t.view, seat, ledger)
        returned = ledger.returned
        if limit is not None and ledger.won > limit:
            withheld = ledger.won - limit
            returned -= withheld
            audit.append(("payout-limit", seat.number, "withheld", withheld))
            ledger._back("blackjack", -withheld)
        bank.settled(seat, returned, ledger.by_kind)
