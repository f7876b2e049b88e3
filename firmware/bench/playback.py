"""Playing a scenario through a :class:`~firmware.bench.target.TableTarget`.

The loop asks the table what it expects and supplies it from the scenario: the next card
of the shoe list, the next action, the forced draw. Faults and console presses go in
right after the n-th card of the round (faults before presses at the same n). A
question the scenario does not answer is answered as the dealer would without a signal
from the player (:data:`UNSCRIPTED`): insurance is declined, after a Spanish 21
double the Double Down wager is kept (no rescue), and a 21 that may still double (Split
to Double, Spanish 21) stands, so a scenario only lists the decisions it is about. A
scripted action for the very seat and hand the table waits on is always tried first,
also while a question is open: a `rejected = true` action there checks a refusal.
"""

from __future__ import annotations

from collections import deque

from etgcore.view import ExpectingView
from firmware.bench.compare import differences, observe
from firmware.bench.errors import BenchError
from firmware.bench.scenario import START_CREDITS, Action, Round, Scenario
from firmware.bench.target import TableTarget

#: an offer the table may make without the file scripting it (recognised by the action it
#: offers) -> the answer taken without a signal, and the actions that answer it
UNSCRIPTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "insurance": ("no-insurance", ("insurance", "no-insurance")),  # baseline §1.5
    "rescue": ("stand", ("stand", "rescue")),                      # § 635a.10(d)
}


class Mismatch(BenchError):
    """The table and the scenario disagree; the message is the FAIL reason."""


def play_scenario(scenario: Scenario, driver: TableTarget) -> list[str]:
    """Play every round; the list of differences (empty when the scenario passes)."""
    driver.start(scenario)
    try:
        seats = driver.view()["seats"]
        for s in seats:
            why = driver.set_credits(s["seat"], START_CREDITS)
            if why:
                raise Mismatch(f"setting the starting credits: {why}")
        shoe: deque[str] = deque()
        problems: list[str] = []
        between = getattr(driver, "between_rounds", None)  # a depth's own still instant
        for index, rnd in enumerate(scenario.rounds):
            if between is not None:
                between(index)
            problems.extend(_play_round(rnd, driver, shoe))
        return problems
    except Mismatch as exc:
        return [str(exc)]
    finally:
        driver.stop()


def _play_round(rnd: Round, driver: TableTarget, shoe: deque[str]) -> list[str]:
    where = f"round {rnd.number}"
    shoe.extend(rnd.shoe)
    events = list(rnd.events)
    dealt = 0

    def inject(n: int, shuffle_only: bool = False) -> None:
        while events and events[0].after == n:
            e = events[0]
            if shuffle_only and e.press != "SHUFFLE":
                break
            events.pop(0)
            why = driver.shoe_frame(e.shoe) if e.shoe is not None else driver.console(str(e.press))
            if why:
                raise Mismatch(f"{where}: rejected: {e.describe()} after card {n}: {why}")

    # A new shoe before the round (console SHUFFLE after = 0) comes before the wagers.
    inject(0, shuffle_only=True)
    while driver.expecting()["kind"] == "card" and shoe:  # burn card(s) of a new shoe
        card = shoe.popleft()
        why = driver.card(card)
        if why:
            raise Mismatch(f"{where}: rejected: card {card} (burn): {why}")
        dealt += 1
        inject(dealt)
    before = _place_wagers(where, rnd, driver)
    inject(dealt)
    actions = list(rnd.actions)
    drew = False
    while True:
        exp = driver.expecting()
        kind = exp["kind"]
        if kind == "card":
            if not shoe:
                raise Mismatch(
                    f"{where}: too few cards in shoe: the table waits for a card to {exp['to']}"
                )
            card = shoe.popleft()
            why = driver.card(card)
            if why:
                raise Mismatch(f"{where}: rejected: card {card}: {why}")
            dealt += 1
            inject(dealt)
        elif kind == "decision":
            _decide(where, exp, actions, driver)
        elif kind == "draw":
            if not rnd.draws:
                raise Mismatch(f"{where}: the table asks for an RNG draw; give `draws`")
            why = driver.draw(dict(rnd.draws))
            if why:
                raise Mismatch(f"{where}: rejected: draws {dict(rnd.draws)}: {why}")
            drew = True
        else:
            break
    if events:
        e = events[0]
        raise Mismatch(
            f"{where}: {e.describe()} after card {e.after} never happened: "
            f"the round ended after {dealt} cards"
        )
    if actions:
        raise Mismatch(f"{where}: action {actions[0].describe()} was never asked for")
    if rnd.draws and not drew:
        raise Mismatch(f"{where}: `draws` given but the table never asked for a draw")
    return differences(rnd, observe(driver.view(), before))


def _place_wagers(where: str, rnd: Round, driver: TableTarget) -> dict[int, int]:
    """The round's credits and wagers, then betting closed; each seat's credits before."""
    before: dict[int, int] = {}
    at_table = {x["seat"] for x in driver.view()["seats"]}
    for s in rnd.seats:
        if s.seat not in at_table:
            raise Mismatch(f"{where}: no seat {s.seat} at this table (seats 1..{len(at_table)})")
        if s.credits is not None:
            why = driver.set_credits(s.seat, s.credits)
            if why:
                raise Mismatch(f"{where}: seat {s.seat} credits {s.credits}: {why}")
        before[s.seat] = next(x["credits"] for x in driver.view()["seats"] if x["seat"] == s.seat)
        why = driver.wager(s.seat, s.wager)
        if why:
            raise Mismatch(f"{where}: seat {s.seat} wager {s.wager} refused: {why}")
        for name, amount in s.side.items():
            place = getattr(driver, "side_wager", None)  # a depth may not offer it yet
            why = place(s.seat, name, amount) if place else "this depth places no side wager"
            if why:
                raise Mismatch(f"{where}: seat {s.seat} {name} {amount} refused: {why}")
    if rnd.seats:
        why = driver.close_betting()
        if why:
            raise Mismatch(f"{where}: closing betting refused: {why}")
    return before


def _decide(where: str, exp: ExpectingView, actions: list[Action], driver: TableTarget) -> None:
    seat, hand, legal = exp["seat"], exp["hand"], exp["legal"]
    if seat is None or hand is None:  # a decision is always some seat's hand's
        raise Mismatch(f"{where}: the table waits for a decision of no seat: {exp['why']}")
    nxt = actions[0] if actions else None
    fits = nxt is not None and nxt.seat == seat and nxt.hand == hand
    # the format: actions are consumed in order when the table waits for that seat, so a
    # refusal scripted for this seat and hand is tried even while a question is open
    scripted = fits and nxt is not None and nxt.rejected
    for offer, (answer, answers) in UNSCRIPTED.items():
        if offer in legal and not (scripted or (fits and nxt is not None and nxt.do in answers)):
            _unscripted(where, driver, seat, hand, answer)
            return
    if not fits and _owes_on_21(driver, int(seat), int(hand)):
        _unscripted(where, driver, seat, hand, "stand")
        return
    if nxt is None:
        raise Mismatch(
            f"{where}: no action left, the table waits for seat {seat} hand {hand} "
            f"(legal: {', '.join(legal)})"
        )
    if not fits:
        raise Mismatch(
            f"{where}: next action is {nxt.describe()}, the table waits for seat {seat} "
            f"hand {hand}"
        )
    actions.pop(0)
    why = driver.decide(nxt.seat, int(hand), nxt.do, nxt.times)
    if why and not nxt.rejected:
        raise Mismatch(f"{where}: rejected: {nxt.describe()}: {why}")
    if not why and nxt.rejected:
        raise Mismatch(f"{where}: accepted: {nxt.describe()} (the scenario expects it refused)")


def _unscripted(where: str, driver: TableTarget, seat: int, hand: int, answer: str) -> None:
    why = driver.decide(int(seat), int(hand), answer, 1)
    if why:
        raise Mismatch(f"{where}: rejected: seat {seat} hand {hand} {answer} "
                       f"(not scripted, taken without a signal): {why}")


def _owes_on_21(driver: TableTarget, seat: int, hand: int) -> bool:
    """The hand the table waits on totals 21: a game that lets a 21 double asks (§ 633b.26
    (e)(2), § 635a.10(a)); without a signal from the player the dealer passes it."""
    for s in driver.view()["seats"]:
        if s["seat"] == seat and 0 < hand <= len(s["hands"]):
            return s["hands"][hand - 1]["total"] == 21
    return False
