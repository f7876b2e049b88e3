"""Mechanisms: the small, named pieces of behaviour a variation adds to the base game.

A Rules Submission lists its mechanisms by name in ``[game] mechanisms``. A name such as
``blackjack-or-bust`` is looked up in :data:`MECHANISMS`; if absent, the module
``firmware.engine.mechanisms.blackjack_or_bust`` is imported, which registers it with
:func:`register_mechanism`. So a variation is a TOML file plus mechanism modules: the
engine never asks which variant it is dealing.

A mechanism subclasses :class:`Mechanism` and overrides only the hooks it needs. A hook
never gets the table: its first argument is the round's read-only
:class:`RoundView`, so a mechanism changes only the seat and hand
it is handed (and money only through the settlement ``Ledger``); what it needs to
remember of the round it returns from ``new_round`` and ``apply_draw``. The
engine calls a hook only through the lists built in :func:`build_mechanisms` (one list
per hook, holding just the mechanisms that override it), so an unused hook costs nothing
on the hot path. Every hook is documented with *when* the engine calls it; docs/engine.md
maps the variations onto them.

This module is the plug-in contract and sits low in the engine's layers
(docs/architecture.md, "Inside the engine: layers"): it imports only the leaves (cards,
hands, the settlement ``Ledger``). What a mechanism reads of the rules and of the round
is declared here as the Protocols :class:`RulesInForce` and :class:`RoundView`; the
rules (which build the mechanisms) and the round (which runs them) sit above and satisfy
them, so the contract never imports what uses it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from etgcore.errors import ConfigError

if TYPE_CHECKING:
    from etgcore.view import MechanismFields
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.ledger import Ledger


class _Source(Protocol):
    @property
    def source(self) -> str: ...


class RulesInForce(Protocol):
    """What a mechanism reads of the rules in force (:class:`firmware.engine.rules.Rules`
    satisfies it): the Rules Submission's ``[game]`` facts and settings, and the few
    values of the base game a wager's own limits or odds depend on."""

    @property
    def file(self) -> _Source: ...
    @property
    def title(self) -> str: ...
    @property
    def game(self) -> Mapping[str, Any]: ...
    @property
    def settings(self) -> Mapping[str, Any]: ...
    @property
    def blackjack_pays(self) -> Fraction: ...
    @property
    def dealer_check(self) -> bool: ...
    @property
    def wager_unit(self) -> int: ...
    @property
    def min_wager(self) -> int: ...
    @property
    def max_wager(self) -> int: ...


class RoundView(Protocol):
    """What a hook may read of the round: rules, dealer, players, the turn's state and the
    mechanisms' notes (the round's read-only view, :mod:`firmware.engine.round`, is one).
    The seats and hands it shows are the round's own (not copies, so a hook costs no
    copying); a mechanism changes only the seat and hand a hook is handed."""

    @property
    def rules(self) -> RulesInForce: ...
    @property
    def dealer(self) -> Hand: ...
    @property
    def players(self) -> Sequence[Seat]: ...
    @property
    def hole_revealed(self) -> bool: ...
    @property
    def post_double(self) -> bool: ...
    @property
    def notes(self) -> Mapping[str, Any]: ...
    def hand_result(self, seat: Seat, hand: Hand, result: str) -> str: ...


@dataclass(frozen=True)
class DrawRequest:
    """An RNG draw the table waits for: each named value and the values it may take."""

    values: dict[str, tuple[int, ...]]
    why: str = "RNG draw"


@dataclass(frozen=True)
class WagerSpec:
    """One wager a mechanism places beside the Blackjack wager, declared once, for every
    layer: the engine settles it and notes its result on the seat's first hand under
    ``name``; the meters count it under ``name`` (its meter kind); the layout prints
    ``label`` under its own betting spot (``layout_for``'s ``wagers``, which the UI draws);
    a bench scenario places an optional one with the seat key ``name``; docs/rules.md
    carries ``doc`` as its row; the PAR sheet prices it through ``par``.

    No other file names a wager: tests/engine/test_wager_units.py fails on one."""

    #: the wager's kind: its key in views, layout, meters, round records and scenarios
    name: str
    #: its printed name on the felt (a design label, not a regulated inscription)
    label: str
    #: placed by the player with a ``SideWager`` input (else it comes with every wager)
    optional: bool = False
    #: its PAR hook: the name of the calculation :mod:`firmware.math` prices it by
    #: (``firmware/math/wagers.py`` PRICERS; a hook names how it is priced, not the
    #: wager, so a second wager priced alike names the same one), its figures filed
    #: under ``name``; or None: the math does not price this wager yet (the PAR sheet
    #: says so, and a test lists it). A hook the math does not know is refused by it.
    par: str | None = None
    #: one line for the wager's row in docs/rules.md ("Wagers")
    doc: str = ""


class Mechanism:
    """Base of every mechanism; each hook's default does nothing."""

    #: the name a Rules Submission uses in ``[game] mechanisms``
    name: ClassVar[str] = ""
    #: every wager this mechanism can place, declared for every layer (:class:`WagerSpec`)
    wagers: ClassVar[tuple[WagerSpec, ...]] = ()
    #: the names of those in force (all declared by default); an instance may narrow it
    #: and :attr:`optional_wagers` to what its settings offer (e.g. an optional wager off)
    wager_names: tuple[str, ...] = ()
    #: of those, the optional ones a player places with a SideWager input
    optional_wagers: tuple[str, ...] = ()
    #: ``[game]`` keys of a Rules Submission this mechanism reads (name -> default): the
    #: regulation's facts it applies (odds, paytables), so they live in the rules file
    game_keys: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "wager_names" not in cls.__dict__:
            cls.wager_names = tuple(w.name for w in cls.wagers)
        if "optional_wagers" not in cls.__dict__:
            cls.optional_wagers = tuple(w.name for w in cls.wagers if w.optional)

    def __init__(self, rules: RulesInForce) -> None:
        self.rules = rules

    def wagers_in_force(self) -> tuple[WagerSpec, ...]:
        """The declarations of the wagers this instance offers (:attr:`wager_names`)."""
        return tuple(w for w in self.wagers if w.name in self.wager_names)

    # -- rules and layout ------------------------------------------------------------
    def check_rules(self, rules: RulesInForce, source: str) -> None:
        """Raise ConfigError(source, 'rules.KEY', ...) when settings do not fit together."""

    def inscriptions(self, rules: RulesInForce) -> list[str]:
        """Extra regulated layout inscriptions (after the base game's)."""
        return []

    def paytables(self, rules: RulesInForce) -> list[dict[str, Any]]:
        """Paytables in force: ``[{"title": str, "rows": [[hand, odds], ...]}]``."""
        return []

    # -- betting ---------------------------------------------------------------------
    def paired_wagers(self, view: RoundView, seat: Seat, amount: int) -> dict[str, int]:
        """Mandatory wagers placed with a Blackjack wager of ``amount`` (name -> cents)."""
        return {}

    def wager_refusal(self, view: RoundView, seat: Seat, amount: int) -> str | None:
        """Why a Blackjack wager of ``amount`` cannot be placed (None: it can)."""
        return None

    def side_wager_refusal(self, view: RoundView, seat: Seat, name: str, amount: int) -> str | None:
        """Why an optional wager ``name`` of ``amount`` cannot be placed."""
        return None

    # -- the round -------------------------------------------------------------------
    def new_round(self, view: RoundView) -> Mapping[str, Any]:
        """Betting closed, a round starts: this mechanism's notes on the new round (the
        engine keeps them; ``view.notes`` reads them back)."""
        return {}

    def draw_request(self, view: RoundView) -> DrawRequest | None:
        """After betting closes, before the first card: an RNG draw the round needs."""
        return None

    def apply_draw(self, view: RoundView, values: dict[str, int]) -> Mapping[str, Any]:
        """Notes to keep of a validated draw (values already checked against the request)."""
        return {}

    def adjust_legal(self, view: RoundView, seat: Seat, hand: Hand, legal: list[str]) -> None:
        """Add or remove decisions from ``legal`` for this hand now (in place)."""

    def custom_action(self, view: RoundView, seat: Seat, hand: Hand, action: str) -> bool:
        """Carry out an action the base game does not know (it was legal); True if done.

        The mechanism sets ``hand.status``; the engine then moves play on.
        """
        return False

    def split_stake(self, view: RoundView, seat: Seat, hand: Hand) -> tuple[int, bool] | None:
        """(cents, is_lammer) wagered on the new hand of a split; None: the base rule."""
        return None

    def double_stake(
        self, view: RoundView, seat: Seat, hand: Hand, times: int
    ) -> tuple[int, bool] | None:
        """(cents, is_lammer) of a Double Down wager; None: ``times`` x the initial wager."""
        return None

    def keeps_turn_after_double(self, view: RoundView, seat: Seat, hand: Hand) -> bool:
        """True when a doubled hand still owes a decision after its card (rescue)."""
        return False

    def hand_busted(self, view: RoundView, seat: Seat, hand: Hand) -> None:
        """A player's hand just went over 21 (before play moves on): e.g. collect it now."""

    def dealer_needed(self, view: RoundView) -> bool:
        """True when a wager of this mechanism depends on the dealer's final total."""
        return False

    def fixed_without_dealer(self, view: RoundView, seat: Seat, hand: Hand) -> bool:
        """True when ``hand`` (standing or doubled, play over) wins or loses whatever total
        the dealer makes, so the dealer need not draw for it (baseline §1.10)."""
        return False

    # -- settlement ------------------------------------------------------------------
    def hand_result(self, view: RoundView, seat: Seat, hand: Hand, result: str) -> str:
        """Amend a hand's result against the dealer ('win'/'lose'/'push'); also asked for a
        player Blackjack against a dealer Blackjack ('push'; 'win' pays Blackjack odds)."""
        return result

    def hand_odds(
        self, view: RoundView, seat: Seat, hand: Hand, part: str, odds: Fraction
    ) -> Fraction:
        """Amend winning odds of a hand's ``part`` ('wager' or 'double')."""
        return odds

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        """Settle this mechanism's wagers and fixed bonuses through ``ledger``."""

    def public_fields(self, view: RoundView) -> MechanismFields:
        """Keys this mechanism adds to the public view (e.g. ``bingo``)."""
        return {}


#: name -> class of every mechanism known so far
MECHANISMS: dict[str, type[Mechanism]] = {}

HOOKS = (
    "paired_wagers", "wager_refusal", "side_wager_refusal", "new_round", "draw_request",
    "apply_draw", "adjust_legal", "custom_action", "split_stake", "double_stake",
    "keeps_turn_after_double", "hand_busted", "dealer_needed", "fixed_without_dealer",
    "hand_result", "hand_odds", "settle_seat", "public_fields",
)


def register_mechanism(cls: type[Mechanism]) -> type[Mechanism]:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    MECHANISMS[cls.name] = cls
    return cls


def mechanism_class(name: str, source: str) -> type[Mechanism]:
    if name not in MECHANISMS:
        module = "firmware.engine.mechanisms." + name.replace("-", "_")
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module and not module.startswith(str(exc.name)):
                raise
    if name not in MECHANISMS:
        have = ", ".join(sorted(MECHANISMS)) or "none registered"
        raise ConfigError(source, "game.mechanisms", f"unknown mechanism {name!r} (known: {have})")
    return MECHANISMS[name]


class Hooks:
    """Per hook, the bound methods of the mechanisms that override it (often empty)."""

    def __init__(self, mechanisms: Sequence[Mechanism]) -> None:
        for hook in HOOKS:
            base = getattr(Mechanism, hook)
            bound = [getattr(m, hook) for m in mechanisms if getattr(type(m), hook) is not base]
            setattr(self, hook, tuple(bound))

    def __getattr__(self, name: str) -> tuple[Any, ...]:  # for type checkers only
        raise AttributeError(name)


def build_mechanisms(names: Sequence[str], rules: RulesInForce, source: str) -> list[Mechanism]:
    """The mechanisms a Rules Submission lists; a wager in force that its mechanism does
    not declare (:attr:`Mechanism.wagers`) is a programming error, refused here."""
    built = [mechanism_class(n, source)(rules) for n in names]
    for m in built:
        declared = {w.name for w in m.wagers}
        stray = [n for n in (*m.wager_names, *m.optional_wagers) if n not in declared]
        if stray:
            raise TypeError(f"mechanism {m.name!r} places {stray[0]!r} without declaring it "
                            "in its wagers (WagerSpec)")
    return built


def every_mechanism() -> dict[str, type[Mechanism]]:
    """Every mechanism the engine ships (each module of :mod:`firmware.engine.mechanisms`
    imported), name -> class: for the layers that collect from all of them (a bench
    scenario's optional wager keys, the docs' wager rows, the tests)."""
    import pkgutil

    from firmware.engine import mechanisms as package

    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{info.name}")
    return dict(MECHANISMS)


def every_wager() -> dict[str, WagerSpec]:
    """Every wager any shipped mechanism declares, by name (a name declared twice is
    refused: one wager, one unit)."""
    out: dict[str, WagerSpec] = {}
    for cls in every_mechanism().values():
        for w in cls.wagers:
            if w.name in out:
                raise TypeError(f"wager {w.name!r} is declared by two mechanisms")
            out[w.name] = w
    return out
