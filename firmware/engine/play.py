"""The round once betting has closed: dealing, insurance, the check, decisions, dealer.

These are the methods of :class:`~firmware.engine.table.Table` that move a round forward;
they live here so each module holds one job. Every method is called only after the input
that triggered it was fully validated, so they mutate freely.
"""

from __future__ import annotations

from firmware.engine import phases as P
from firmware.engine.cards import VALUE
from firmware.engine.hand import (
    BLACKJACK,
    BUST,
    DOUBLED,
    PLAYING,
    STOOD,
    SURRENDERED,
    Hand,
    Seat,
)
from firmware.engine.settle import settle_round
from firmware.engine.state import TableState


class RoundPlay(TableState):
    """Dealing and playing a round (a base of Table; the state is declared in
    :class:`~firmware.engine.state.TableState`)."""

    __slots__ = ()

    # -- dealing (baseline §1.2) -----------------------------------------------------
    def _start_dealing(self) -> None:
        firsts = [s.hands[0] for s in self.players]
        self.deal_order = [*firsts, self.dealer, *firsts, self.dealer]
        self.deal_pos = 0
        self.phase = P.DEALING
        self.need = P.CARD

    def _deal_card(self, card: int) -> None:
        self.deal_order[self.deal_pos].add(card)
        self.deal_pos += 1
        if self.deal_pos == len(self.deal_order):
            self._after_deal()

    def _after_deal(self) -> None:
        for s in self.players:
            h = s.hands[0]
            if h.is_blackjack:
                h.status = BLACKJACK
        if VALUE[self.dealer.cards[0]] == 1:
            self.phase = P.INSURANCE
            self.turn_seat = -1
            self._next_insurance()
        else:
            self._check()

    # -- insurance (baseline §1.5) ---------------------------------------------------
    def insurance_offer(self, seat: Seat) -> int:
        """The insurance the bench action takes: exactly half the Blackjack wager."""
        return seat.wager // 2

    def _next_insurance(self) -> None:
        i = self.turn_seat + 1
        players = self.players
        while i < len(players):
            s = players[i]
            half = s.wager // 2
            if half > 0 and s.credits >= half:
                self.turn_seat = i
                self.need = P.DECISION
                return
            s.insurance_decided = True
            i += 1
        self._check()

    # -- the dealer's Blackjack check (baseline §1.4) --------------------------------
    def _check(self) -> None:
        d = self.dealer
        if self.rules.dealer_check and VALUE[d.cards[0]] in (1, 10) and d.is_blackjack:
            self.dealer_bj = True
            self.hole_revealed = True
            self._settle()
            return
        self.phase = P.DECISIONS
        self.turn_seat = 0
        self.turn_hand = 0
        self._next_turn()

    # -- decisions (baseline §1.6-1.9) -----------------------------------------------
    def _next_turn(self) -> None:
        """Move to the next hand owing a decision or a card, else to the dealer."""
        players = self.players
        rules = self.rules
        while self.turn_seat < len(players):
            seat = players[self.turn_seat]
            hands = seat.hands
            while self.turn_hand < len(hands):
                h = hands[self.turn_hand]
                if h.status == PLAYING:
                    if len(h.cards) == 1:  # a split hand: its second card first
                        self.card_to = h
                        self.need = P.CARD
                        return
                    one_card_done = (
                        h.split_ace and rules.split_aces_one_card and not self._can_split(seat, h)
                    )
                    if (h.total == 21 and rules.auto_stand_21) or one_card_done:
                        h.status = STOOD
                    else:
                        self.need = P.DECISION
                        return
                self.turn_hand += 1
            self.turn_seat += 1
            self.turn_hand = 0
        self._dealer_turn()

    def _can_split(self, seat: Seat, h: Hand) -> bool:
        rules = self.rules
        if len(h.cards) != 2 or len(seat.hands) >= rules.max_hands:
            return False
        c0, c1 = h.cards
        if VALUE[c0] != VALUE[c1] and not (
            rules.split_any_initial and not h.from_split and len(seat.hands) == 1
        ):
            return False
        if h.split_ace and not rules.resplit_aces and VALUE[c0] == 1 == VALUE[c1]:
            return False
        return self._stake_for(seat, h, "split", 1) is not None

    def _stake_for(self, seat: Seat, h: Hand, what: str, times: int) -> tuple[int, bool] | None:
        """(cents, lammer) a split or double costs, or None if the seat cannot afford it."""
        stake: tuple[int, bool] | None = None
        hooks = self.hooks.split_stake if what == "split" else self.hooks.double_stake
        for hook in hooks:
            stake = hook(self, seat, h) if what == "split" else hook(self, seat, h, times)
            if stake is not None:
                break
        if stake is None:
            stake = (h.wager if what == "split" else seat.wager * times, False)
        if not stake[1] and stake[0] > seat.credits:
            return None
        return stake

    def legal_now(self, seat: Seat, h: Hand) -> list[str]:
        """The decisions legal for ``h`` now, in panel order."""
        rules = self.rules
        if self.post_double:
            legal = ["stand"]
        else:
            one_card = h.split_ace and rules.split_aces_one_card
            n = len(h.cards)
            legal = []
            if rules.hitting and not one_card:
                legal.append("hit")
            legal.append("stand")
            if (
                not one_card
                and not h.double
                and (n == 2 or (rules.double_any_cards and n >= 2))
                and (rules.double_after_split or not h.from_split)
                and (rules.double_totals is None or (n == 2 and h.total in rules.double_totals))
                and any(self._stake_for(seat, h, "double", t) for t in rules.double_times)
            ):
                legal.append("double")
            if self._can_split(seat, h):
                legal.append("split")
            if (
                rules.late_surrender
                and rules.dealer_check
                and n == 2
                and len(seat.hands) == 1
                and not h.from_split
            ):
                legal.append("surrender")
        for hook in self.hooks.adjust_legal:
            hook(self, seat, h, legal)
        return legal

    def _decide(self, seat: Seat, h: Hand, action: str, times: int) -> None:
        if action == "stand":
            if not self.post_double:
                h.status = STOOD
            self.post_double = False
            self.turn_hand += 1
            self._next_turn()
        elif action == "hit":
            self.card_to = h
            self.need = P.CARD
        elif action == "double":
            stake = self._stake_for(seat, h, "double", times)
            assert stake is not None
            amount, lammer = stake
            if lammer:
                h.double_lammer = True
            else:
                seat.credits -= amount
                seat.staked += amount
            h.double = amount
            h.double_times = times
            self.doubling = True
            self.card_to = h
            self.need = P.CARD
        elif action == "split":
            self._split(seat, h)
        elif action == "surrender":
            h.status = SURRENDERED
            self.turn_hand += 1
            self._next_turn()
        else:
            for hook in self.hooks.custom_action:
                if hook(self, seat, h, action):
                    break
            self.post_double = False
            if h.status != PLAYING:
                self.turn_hand += 1
            self._next_turn()

    def _split(self, seat: Seat, h: Hand) -> None:
        stake = self._stake_for(seat, h, "split", 1)
        assert stake is not None
        amount, lammer = stake
        new = Hand(0 if lammer else amount)
        if lammer:
            new.lammer = True
            new.lammer_amount = amount
        else:
            seat.credits -= amount
            seat.staked += amount
        moved = h.cards.pop()
        h.hard -= VALUE[moved]
        if VALUE[moved] == 1:
            h.aces -= 1
        new.add(moved)
        aces = VALUE[moved] == 1 and VALUE[h.cards[0]] == 1
        h.from_split = new.from_split = True
        h.split_ace = new.split_ace = aces
        seat.hands.append(new)
        self.card_to = h
        self.need = P.CARD

    def _player_card(self, card: int) -> None:
        h = self.card_to
        assert h is not None
        self.card_to = None
        h.add(card)
        if self.doubling:
            self.doubling = False
            if h.total > 21:
                h.status = BUST
                if self.hooks.hand_busted:
                    self._busted(h)
            else:
                h.status = DOUBLED
                seat = self.players[self.turn_seat]
                if any(k(self, seat, h) for k in self.hooks.keeps_turn_after_double):
                    self.post_double = True
                    self.need = P.DECISION
                    return
            self.turn_hand += 1
        elif h.total > 21:
            h.status = BUST
            if self.hooks.hand_busted:
                self._busted(h)
            self.turn_hand += 1
        self._next_turn()

    def _busted(self, h: Hand) -> None:
        seat = self.players[self.turn_seat]
        for hook in self.hooks.hand_busted:
            hook(self, seat, h)

    # -- the dealer (baseline §1.10) -------------------------------------------------
    def _dealer_turn(self) -> None:
        self.hole_revealed = True
        self.card_to = None
        if self.dealer_needed():
            self.phase = P.DEALER
            self._dealer_step()
        else:  # the hole card is only revealed; the cards not drawn stay in the shoe
            self._settle()

    def dealer_needed(self) -> bool:
        """Whether some wager of the round still depends on the dealer's final total
        (baseline §1.10): a hand standing (or doubled) against the dealer, unless a
        mechanism fixes its result whatever the dealer makes (a Spanish 21 player 21),
        or a wager of a mechanism (Blackjack or Bust, Push 22)."""
        fixed = self.hooks.fixed_without_dealer
        for s in self.players:
            for h in s.hands:
                if (h.status == STOOD or h.status == DOUBLED) and not any(
                    hook(self, s, h) for hook in fixed
                ):
                    return True
        return any(hook(self) for hook in self.hooks.dealer_needed)

    def _dealer_step(self) -> None:
        d = self.dealer
        t = d.total
        if t < 17 or (t == 17 and self.rules.dealer_hits_soft_17 and d.soft):
            self.need = P.CARD
        else:
            self._settle()

    def _dealer_card(self, card: int) -> None:
        self.dealer.add(card)
        self._dealer_step()

    def _settle(self) -> None:
        settle_round(self)  # type: ignore[arg-type]
        self.phase = P.SETTLED
        self.need = P.SHOE if self.shoe.cut_card_seen else P.WAGERS
