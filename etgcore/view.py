"""The public view's contract: what a published table view holds, as TypedDicts.

The public view is one JSON document that crosses every seam: the engine builds it, the
controller adds its part and publishes it to the screen, the floor link and the bench
read it, the journal's round records carry it. Its shape lives here, in the leaf core,
because all of those may import ``etgcore`` and the screen may not import the engine's
modules (docs/architecture.md).

TypedDicts, not dataclasses, on purpose: the view stays the plain dict the engine already
builds (no conversion on the card-to-screen path, the JSON byte for byte as before), and
mypy still checks every key a reader takes. Keys only some games or only the controller
add are ``NotRequired``; a reader of one uses ``.get``. docs/interfaces.md shows the
document with an example of each field.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

#: the version of the view's shape (``PublicView.schema``)
SCHEMA = 1


class LimitsView(TypedDict):
    """The table's wager limits in cents and its number of seats."""

    seats: int
    min_wager: int
    max_wager: int
    wager_unit: int


class ExpectingView(TypedDict):
    """What the table waits for now (``firmware.engine.expect.Expecting.to_json``)."""

    kind: str  #: wagers | card | decision | draw | new-shoe | console | none
    seat: int | None
    hand: int | None  #: counts from 1 like seats
    legal: list[str]  #: the decisions legal now
    to: str | None  #: who receives the next card ("seat 1 hand 1", "dealer", "burn", ...)
    why: str  #: one human line
    draw: NotRequired[dict[str, list[int]]]  #: only for kind "draw": the values allowed


class CardsView(TypedDict):
    """A hand's cards as the ICD codes (``"??"`` for an unrevealed hole card), its total
    and whether that total is soft (``firmware.engine.hand.Hand.to_json``)."""

    cards: list[str]
    total: int
    soft: bool


class DealerView(TypedDict):
    """The dealer's hand: its total counts only the up card while the hole is hidden."""

    cards: list[str]
    #: None only in a recalled round whose hole card was never shown (the recall screen)
    total: int | None
    soft: bool
    hole_revealed: bool
    blackjack: bool | None  #: None until the hole card is revealed
    bust: bool


class HandExtras(TypedDict, total=False):
    """What a game's mechanisms note on a hand (``Hand.extra``), shown in the view as they
    are: Free Bet's tucked and collected busted hands, Spanish 21's super bonus, Bingo's
    hit. Besides these, each side wager's result (the pay line won, ``push`` or ``lose``)
    is noted on the seat's first hand under the wager's own name, which its mechanism
    declares (``firmware.engine.mechanism.WagerSpec``); the core names no wager, so
    those keys are not listed here (read them as ``hand.get(name)``)."""

    bingo_hit: bool  #: Bingo Multiplier: the winning total is the drawn target
    tucked: bool  #: Free Bet: a busted hand waits under a lammer
    collected: bool  #: Free Bet: a busted hand was collected
    super_bonus: int  #: Spanish 21: the super bonus paid on a suited 7-7-7, cents


class HandView(CardsView):
    """One hand of a seat (hands count from 1 outside the engine)."""

    wager: int  #: cents; the lammer's amount when ``lammer``
    lammer: bool  #: the hand's wager is a Free Bet lammer
    double: int
    double_times: int
    double_lammer: bool
    status: str  #: playing | stood | bust | blackjack | doubled | surrendered | rescued
    result: str | None  #: win | lose | push | surrender | blackjack | rescue once settled
    paid: int  #: cents returned to credits for the hand (stakes and winnings)
    bingo_hit: bool
    tucked: NotRequired[bool]
    collected: NotRequired[bool]
    super_bonus: NotRequired[int]


class SeatView(TypedDict):
    """One player position."""

    seat: int
    credits: int
    playing: bool
    wagers: dict[str, int]  #: blackjack, insurance and every wager the game's mechanisms place
    hands: list[HandView]
    net: int | None  #: once settled: credits after minus before
    #: once settled: cents returned per wager kind (stake and winnings), e.g. a side wager's
    returned: NotRequired[dict[str, int]]


class BingoView(TypedDict):
    """Bingo Multiplier's draw: both None before the draw."""

    target: int | None
    multiplier: int | None


class TiltView(TypedDict):
    """Why the round is paused and what the dealer must do."""

    cause: str
    code: str
    resolve: str


class ShoeView(TypedDict):
    """The shoe in play."""

    decks: int
    cards_dealt: int
    cut_card_seen: bool
    needs_new_shoe: bool


#: why a table cannot play: its journal failed (it takes no input at all) or its RNG cannot
#: draw (the round waits, the supervisor voids it)
FailureKind = Literal["journal", "rng"]


class PendingDoubleView(TypedDict):
    """A 1x-4x double waiting for its size (firmware.table.pending_double)."""

    seat: int
    hand: int
    times: int


class ControllerView(TypedDict):
    """What the controller adds to the engine's public view, under ``"controller"``."""

    pending_double: PendingDoubleView | None
    recall: bool  #: the RECALL key is held (the screen shows the last rounds)
    failure: str | None  #: why the table takes no input (journal) or cannot draw (RNG)
    failure_kind: FailureKind | None  #: which of the two ``failure`` is (None: no failure)
    closed: bool  #: the floor keeps the table closed
    #: why the table holds play (finishes the round in play, deals no new one), or None
    held: NotRequired[str | None]
    #: seats their slot system (SAS) disabled: no new wager there
    closed_seats: list[int]
    #: the round is paused and DEAL would resume it now (the engine's ``resume_refusal``)
    deal_resumes: bool
    #: while ``recall``: the attendant screen's page, DEAL presses since the key was
    #: turned (0: game recall; then meters, events, configuration, round again)
    attendant_page: NotRequired[int]


class AttendantPage(TypedDict):
    """One page of the attendant screen, as the table service builds it and the UI draws
    it (firmware/table/service/attendant.py): plain text in rows under column heads."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str  #: a line under the rows ('' for none)


class MechanismFields(TypedDict, total=False):
    """The keys a game's mechanisms add at the top of the view
    (``Mechanism.public_fields``)."""

    bingo: BingoView | None


class PublicView(TypedDict):
    """All a player may see of the table (``firmware.engine.Game.public_view``)."""

    schema: int
    variant: str  #: blackjack | split-to-double | bingo | free-bet | spanish21
    title: str  #: the game's name from its Rules Submission
    limits: LimitsView
    round: int  #: rounds started since the journal began
    phase: str  #: idle | betting | rng | dealing | insurance | decisions | dealer | ...
    expecting: ExpectingView
    dealer: DealerView
    seats: list[SeatView]
    bingo: BingoView | None  #: None for the games without a Bingo draw
    tilt: TiltView | None
    shoe: ShoeView
    #: added by the table controller before it publishes (absent in the engine's own view)
    controller: NotRequired[ControllerView]


class PrivateView(PublicView):
    """The public view with the hole card shown, plus everything else of the table's state
    (``firmware.engine.Game.private_view``): for the journal, the audit and the tests that
    prove two tables are in the same state. Never published."""

    private: dict[str, Any]  #: rules, shoe composition, house result, cursors, draws, audit
