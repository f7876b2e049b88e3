"""The round once betting has closed: dealing, insurance, the check, decisions, dealer.

Functions of the :class:`~firmware.engine.round.Round` that move a round forward. Each is
called only after the input that triggered it was fully validated (see
:mod:`firmware.engine.decisions`), so they mutate freely; money moves through the round's
bank. Mechanism hooks get the round's read-only view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.engine import phases as P
from firmware.engine.cards import VALUE
from firmware.engine.decisions import can_split, stake_for
from firmware.engine.hand import BLACKJACK, BUST, DOUBLED, PLAYING, STOOD, SURRENDERED, Hand, Seat
from firmware.engine.settle import settle_round

if TYPE_CHECKING:
    from firmware.engine.round import Round


# -- dealing (baseline §1.2) ---------------------------------------------------------
def start_dealing(r: Round) -> None:
    firsts = [s.hands[0] for s in r.players]
    r.deal_order = [*firsts, r.dealer, *firsts, r.dealer]
    r.deal_pos = 0
    r.phase = P.DEALING
    r.need = P.CARD


def deal_card(r: Round, card: int) -> None:
    r.deal_order[r.deal_pos].add(card)
    r.deal_pos += 1
    if r.deal_pos == len(r.deal_order):
        _after_deal(r)


def _after_deal(r: Round) -> None:
    for s in r.players:
        h = s.hands[0]
        if h.is_blackjack:
            h.status = BLACKJACK
    if VALUE[r.dealer.cards[0]] == 1:
        r.phase = P.INSURANCE
        r.turn_seat = -1
        next_insurance(r)
    else:
        _check(r)


# -- insurance (baseline §1.5) -------------------------------------------------------
def insure(r: Round, seat: Seat, amount: int) -> None:
    """``seat`` takes ``amount`` of insurance (0: declines); the next seat is asked."""
    if amount:
        r.bank.insure(seat, amount)
    seat.insurance_decided = True
    next_insurance(r)


def next_insurance(r: Round) -> None:
    i = r.turn_seat + 1
    players = r.players
    while i < len(players):
        s = players[i]
        half = s.wager // 2
        if half > 0 and s.credits >= half:
            r.turn_seat = i
            r.need = P.DECISION
            return
        s.insurance_decided = True
        i += 1
    _check(r)


# -- the dealer's Blackjack check (baseline §1.4) ------------------------------------
def _check(r: Round) -> None:
    d = r.dealer
    if r.rules.dealer_check and VALUE[d.cards[0]] in (1, 10) and d.is_blackjack:
        r.dealer_bj = True
        r.hole_revealed = True
        _settle(r)
        return
    r.phase = P.DECISIONS
    r.turn_seat = 0
    r.turn_hand = 0
    _next_turn(r)


# -- decisions (baseline §1.6-1.9) ---------------------------------------------------
def _next_turn(r: Round) -> None:
    """Move to the next hand owing a decision or a card, else to the dealer."""
    players = r.players
    rules = r.rules
    while r.turn_seat < len(players):
        seat = players[r.turn_seat]
        hands = seat.hands
        while r.turn_hand < len(hands):
            h = hands[r.turn_hand]
            if h.status == PLAYING:
                if len(h.cards) == 1:  # a split hand: its second card first
                    r.card_to = h
                    r.need = P.CARD
                    return
                one_card_done = (
                    h.split_ace and rules.split_aces_one_card and not can_split(r, seat, h)
                )
                if (h.total == 21 and rules.auto_stand_21) or one_card_done:
                    h.status = STOOD
                else:
                    r.need = P.DECISION
                    return
            r.turn_hand += 1
        r.turn_seat += 1
        r.turn_hand = 0
    _dealer_turn(r)


def decide(r: Round, seat: Seat, h: Hand, action: str, times: int) -> None:
    """Carry out a decision :func:`~firmware.engine.decisions.decision_plan` accepted."""
    if action == "stand":
        if not r.post_double:
            h.status = STOOD
        r.post_double = False
        r.turn_hand += 1
        _next_turn(r)
    elif action == "hit":
        r.card_to = h
        r.need = P.CARD
    elif action == "double":
        stake = stake_for(r, seat, h, "double", times)
        assert stake is not None
        amount, lammer = stake
        if lammer:
            h.double_lammer = True
        else:
            r.bank.stake(seat, amount, "double")
        h.double = amount
        h.double_times = times
        r.doubling = True
        r.card_to = h
        r.need = P.CARD
    elif action == "split":
        _split(r, seat, h)
    elif action == "surrender":
        h.status = SURRENDERED
        r.turn_hand += 1
        _next_turn(r)
    else:
        view = r.view
        for hook in r.hooks.custom_action:
            if hook(view, seat, h, action):
                break
        r.post_double = False
        if h.status != PLAYING:
            r.turn_hand += 1
        _next_turn(r)


def _split(r: Round, seat: Seat, h: Hand) -> None:
    stake = stake_for(r, seat, h, "split", 1)
    assert stake is not None
    amount, lammer = stake
    new = Hand(0 if lammer else amount)
    if lammer:
        new.lammer = True
        new.lammer_amount = amount
    else:
        r.bank.stake(seat, amount, "blackjack")  # a split hand is a Blackjack wager
    moved = h.cards.pop()
    h.hard -= VALUE[moved]
    if VALUE[moved] == 1:
        h.aces -= 1
    new.add(moved)
    aces = VALUE[moved] == 1 and VALUE[h.cards[0]] == 1
    h.from_split = new.from_split = True
    h.split_ace = new.split_ace = aces
    seat.hands.append(new)
    r.card_to = h
    r.need = P.CARD


def player_card(r: Round, card: int) -> None:
    h = r.card_to
    assert h is not None
    r.card_to = None
    h.add(card)
    if r.doubling:
        r.doubling = False
        if h.total > 21:
            h.status = BUST
            if r.hooks.hand_busted:
                _busted(r, h)
        else:
            h.status = DOUBLED
            seat = r.players[r.turn_seat]
            view = r.view
            if any(k(view, seat, h) for k in r.hooks.keeps_turn_after_double):
                r.post_double = True
                r.need = P.DECISION
                return
        r.turn_hand += 1
    elif h.total > 21:
        h.status = BUST
        if r.hooks.hand_busted:
            _busted(r, h)
        r.turn_hand += 1
    _next_turn(r)


def _busted(r: Round, h: Hand) -> None:
    seat = r.players[r.turn_seat]
    view = r.view
    for hook in r.hooks.hand_busted:
        hook(view, seat, h)


# -- the dealer (baseline §1.10) -----------------------------------------------------
def _dealer_turn(r: Round) -> None:
    r.hole_revealed = True
    r.card_to = None
    if dealer_needed(r):
        r.phase = P.DEALER
        _dealer_step(r)
    else:  # the hole card is only revealed; the cards not drawn stay in the shoe
        _settle(r)


def dealer_needed(r: Round) -> bool:
    """Whether some wager of the round still depends on the dealer's final total
    (baseline §1.10): a hand standing (or doubled) against the dealer, unless a
    mechanism fixes its result whatever the dealer makes (a Spanish 21 player 21),
    or a wager of a mechanism (Blackjack or Bust, Push 22)."""
    fixed = r.hooks.fixed_without_dealer
    view = r.view
    for s in r.players:
        for h in s.hands:
            if (h.status == STOOD or h.status == DOUBLED) and (
                not fixed or not any(hook(view, s, h) for hook in fixed)
            ):
                return True
    needed = r.hooks.dealer_needed
    return bool(needed) and any(hook(view) for hook in needed)


def _dealer_step(r: Round) -> None:
    d = r.dealer
    t = d.total
    if t < 17 or (t == 17 and r.rules.dealer_hits_soft_17 and d.soft):
        r.need = P.CARD
    else:
        _settle(r)


def dealer_card(r: Round, card: int) -> None:
    r.dealer.add(card)
    _dealer_step(r)


def _settle(r: Round) -> None:
    settle_round(r)
    r.phase = P.SETTLED
    r.need = P.SHOE if r.shoe.cut_card_seen else P.WAGERS
