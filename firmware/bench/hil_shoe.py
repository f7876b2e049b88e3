"""The hil bench's shoe: the shoe simulator, dealing exactly the cards the bench hands it.

A scenario says which card leaves the shoe next and what the shoe reports right after the
n-th card. A simulator that deals a stacked shoe on its own, at its own pace, cannot
promise that a fault lands between card n and card n+1, nor that a card is not already
in flight when the controller locks the gate. So the bench plays the dealer: it hands the
shoe one card at a time (:meth:`BenchShoeMachine.load_cards`), and the shoe deals it,
through the ICD, as soon as the controller's gate is open. Everything else — framing,
sequence numbers, ACK/NAK, retransmission, heartbeats, ``HEL`` on attach, sticky faults,
``NEW`` — is the shoe engineer's :class:`~drivers.shoe.sim_machine.ShoeMachine`
unchanged, running in a :class:`~drivers.shoe.simulator.ShoeSimulator` on a real
pseudo-terminal that the table service opens as its serial port.

The bench shoe never sends ``CUT`` or ``EMP`` by itself (no cut-card position, never
empty): those come from the scenario, like every other frame.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from drivers.shoe.reports import is_card
from drivers.shoe.sim_machine import STICKY, ShoeMachine, SimSettings
from drivers.shoe.simulator import ShoeSimulator


def _no_shuffle(decks: int, spanish: bool, seed: bytes | None) -> list[str]:
    return []  # the bench hands over every card itself


class BenchShoeMachine(ShoeMachine):
    """A :class:`ShoeMachine` whose dealer draws only the cards the bench hands it."""

    def __init__(self, settings: SimSettings, now: float) -> None:
        self.ready: list[str] = []  # handed over by the bench, not yet dealt
        super().__init__(settings, now, _no_shuffle)

    def _load(self, decks: int) -> None:
        super()._load(decks)
        self.cut_at = None  # CUT only when the scenario sends it

    def load_cards(self, cards: Sequence[str], now: float, *, append: bool = False) -> None:
        """Hand ``cards`` to the dealer; dealt in order while the gate is open."""
        for card in cards:
            if not is_card(card):
                raise ValueError(f"{card!r} is not a card (rank A2-9TJQK then suit SHDC)")
        self.ready = (self.ready if append else []) + list(cards)

    def send_body(self, body: str, now: float) -> None:
        """Send a frame body, and be in the state it reports: ``ERR,JAM`` / ``LID`` /
        ``SENSOR`` leave the shoe in FAULT (it answers ``QRY`` with ``STA,FAULT`` until
        cleared) and ``STA,READY`` / ``STA,LOCKED`` report it cleared."""
        parts = body.strip().split(",")
        if parts[0] == "ERR" and len(parts) > 1 and parts[1] in STICKY:
            self.fault_code = parts[1]
        elif parts[0] == "STA" and len(parts) > 1 and parts[1] in ("READY", "LOCKED"):
            self.fault_code = None
        super().send_body(body, now)

    def state(self) -> str:
        if self.fault_code is not None:
            return "FAULT"
        return "LOCKED" if self.gate_locked else "READY"  # the bench shoe is never empty

    def _dealable(self, now: float) -> bool:
        return bool(self.ready) and not (
            self.gate_locked or self.fault_code is not None or self.link.pending
        )

    def _deal(self, now: float) -> None:
        if not self._dealable(now) or now < self.next_deal:
            return
        self.next_deal = now + self.s.pace_s
        card = self.ready.pop(0)
        self.content.append(card)
        self.pos = len(self.content)
        self.count += 1
        self.dealt_total += 1
        self.counters["cards"] += 1
        self.link.send("CRD", card, now=now)

    def _deal_deadlines(self) -> list[float]:
        return [self.next_deal] if self._dealable(0.0) else []


def bench_shoe(decks: int, spanish: bool = False, pace_s: float = 0.0) -> ShoeSimulator:
    """A started bench shoe on a fresh pseudo-terminal (``.path`` is the port to open)."""
    settings = SimSettings(decks=decks, spanish=spanish, pace_s=pace_s)
    sim = ShoeSimulator.on_pty(settings, clock=time.monotonic)
    sim.machine = BenchShoeMachine(settings, time.monotonic())
    return sim.start()
