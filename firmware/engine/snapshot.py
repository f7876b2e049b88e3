"""A game's whole state as plain JSON, and the same game restored from it, exactly.

Why: the journal's checkpoints (firmware.journal.checkpoint) hold the engine's state
every few hundred rounds so a start replays only the inputs after the last one, not a
journal's whole life. A restored game must be the game, to the last field: it then takes
the inputs that follow exactly as the live one did. So nothing is summarised: every data
field of every part (the round, the bank and its seats and hands, the shoe, the tilt) is
written, and the tests check that each class's ``__slots__`` is covered field by field
(a field added to the engine later must be added here, or the test fails) and that a
restored game goes on identically through recorded play of every variant.

Values are JSON with three tags, so they come back as the same Python types: a tuple is
``{"()": [...]}``, a Fraction ``{"/": [n, d]}``, a dict ``{"{}": [[key, value], ...]}``.

**One canonical form.** A snapshot is compared with another (a checkpoint written by the
live table against the game the journal's replay makes), so equal states must give equal
snapshots, whatever order a dict was filled in: the live table fills a round's draws in
the order its RNG drew them, the replay of the journaled draw (canonical JSON, keys
sorted) in sorted order (issue 42, finding 1: every Bingo journal was called broken at
its first checkpoint). So a dict's pairs are written sorted by their key's canonical JSON,
and :func:`canonical` is the one form both sides of a checkpoint are compared in: the
snapshot as the journal stores it (canonical JSON text).
Objects that appear twice (a seat among the players, a hand in the dealing order or the
one a card goes to) are written once and referred to: a seat by its number, a hand as
``"dealer"`` or ``[seat, index]``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from firmware.engine.errors import EngineError
from firmware.engine.game import Game
from firmware.engine.hand import Hand, Seat
from firmware.engine.mechanism import DrawRequest
from firmware.engine.tilts import Tilt

#: format of a snapshot; restored only by the same (2: the tilt an input paused on)
VERSION = 2

#: the data fields written per class; the rest of each class's ``__slots__`` are its
#: wiring (rules, hooks, the parts it talks to), rebuilt by constructing a Game
HAND = ("aces", "cards", "double", "double_lammer", "double_times", "extra", "from_split",
        "hard", "lammer", "lammer_amount", "paid", "result", "split_ace", "status", "wager")
SEAT = ("credits", "insurance", "insurance_decided", "net", "returned", "returned_by_kind",
        "side", "staked", "staked_by_kind", "wager")  # + hands, number
ROUND = ("audit", "burn_left", "dealer_bj", "deal_pos", "doubling", "draws", "extra",
         "hole_revealed", "need", "phase", "post_double", "round_no", "turn_hand",
         "turn_seat")  # + card_to, deal_order, dealer, draw_request, players
SHOE = ("cards_dealt", "counts", "cut_card_seen", "deck_kind", "decks", "in_play")
TILT = ("active", "causes", "code", "resume_need", "resume_phase")
BANK = ("funded", "house")  # + seats
#: wiring, per class (never written)
WIRING = {
    "Round": ("bank", "hooks", "rules", "shoe", "view"),
    "Bank": ("hooks", "nseats", "rules"),
    "Seat": ("number",),
    "Tilts": ("bank", "round", "shoe"),
    "Game": ("_dispatch", "bench", "rules"),
}


class SnapshotError(EngineError):
    """A snapshot that cannot be this game's (another format, seats or shape)."""


def plain(v: Any) -> Any:
    """``v`` as JSON with tags for tuples, Fractions and dicts (module docstring)."""
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, tuple):
        return {"()": [plain(x) for x in v]}
    if isinstance(v, Fraction):
        return {"/": [v.numerator, v.denominator]}
    if isinstance(v, dict):
        pairs = [[plain(k), plain(x)] for k, x in v.items()]
        pairs.sort(key=lambda kv: json.dumps(kv[0], sort_keys=True))
        return {"{}": pairs}
    raise TypeError(f"the engine holds a {type(v).__name__}, which a snapshot cannot keep")


def canonical(snap: Any) -> str:
    """The one form two snapshots are compared in: canonical JSON text (keys sorted, no
    spaces, as the journal stores a checkpoint's body), every dict's pairs in key order
    (also those of a checkpoint written before they were sorted)."""
    return json.dumps(_pairs_sorted(snap), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True)


def _pairs_sorted(v: Any) -> Any:
    if isinstance(v, list):
        return [_pairs_sorted(x) for x in v]
    if isinstance(v, dict):
        out = {k: _pairs_sorted(x) for k, x in v.items()}
        pairs = out.get("{}")
        if len(out) == 1 and isinstance(pairs, list):
            out["{}"] = sorted(pairs, key=lambda kv: json.dumps(kv[0] if isinstance(
                kv, list) and kv else kv, sort_keys=True))
        return out
    return v


def unplain(v: Any) -> Any:
    if isinstance(v, list):
        return [unplain(x) for x in v]
    if isinstance(v, dict):
        ((tag, inner),) = v.items()
        if tag == "()":
            return tuple(unplain(x) for x in inner)
        if tag == "/":
            return Fraction(int(inner[0]), int(inner[1]))
        if tag == "{}":
            return {unplain(k): unplain(x) for k, x in inner}
        raise SnapshotError(f"unknown tag {tag!r}")
    return v


def _fields(obj: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {n: plain(getattr(obj, n)) for n in names}


def _set(obj: Any, names: tuple[str, ...], data: dict[str, Any]) -> None:
    for n in names:
        setattr(obj, n, unplain(data[n]))


def snapshot(game: Game) -> dict[str, Any]:
    """The game's whole state (see the module docstring)."""
    r = game.round
    refs = _hand_refs(game)

    def ref(h: Hand | None) -> Any:
        if h is None:
            return None
        if id(h) not in refs:
            raise SnapshotError("a hand in play belongs to no seat and is not the dealer's")
        return refs[id(h)]

    tilt = game.tilts.tilt
    rq = r.draw_request
    return {
        "v": VERSION,
        "seats": [{**_fields(s, SEAT), "hands": [_fields(h, HAND) for h in s.hands]}
                  for s in game.seats],
        "bank": _fields(game.bank, BANK),
        "shoe": _fields(game.shoe, SHOE),
        "round": {**_fields(r, ROUND), "dealer": _fields(r.dealer, HAND),
                  "players": [s.number for s in r.players],
                  "deal_order": [ref(h) for h in r.deal_order], "card_to": ref(r.card_to),
                  "draw_request": None if rq is None else {"values": plain(rq.values),
                                                           "why": rq.why}},
        "tilt": None if tilt is None else _fields(tilt, TILT),
        "paused_on": game.tilts.paused_on,
    }


def restore(game: Game, snap: dict[str, Any]) -> Game:
    """Put ``snap`` into ``game``, a fresh Game built with the same rules, seats and mode
    (SnapshotError if it cannot be this game's); returns ``game``."""
    if snap.get("v") != VERSION:
        raise SnapshotError(f"a snapshot of format {snap.get('v')!r}, not {VERSION}")
    if len(snap["seats"]) != game.nseats:
        raise SnapshotError(f"a snapshot of {len(snap['seats'])} seats for a table of "
                            f"{game.nseats}")
    for seat, data in zip(game.seats, snap["seats"], strict=True):
        _set(seat, SEAT, data)
        seat.hands = [_hand(h) for h in data["hands"]]
    _set(game.bank, BANK, snap["bank"])
    _set(game.shoe, SHOE, snap["shoe"])
    r = game.round
    rd = snap["round"]
    _set(r, ROUND, rd)
    r.dealer = _hand(rd["dealer"])
    r.players = [game.seats[n - 1] for n in rd["players"]]
    r.deal_order = [_deref(game, x) for x in rd["deal_order"]]
    r.card_to = None if rd["card_to"] is None else _deref(game, rd["card_to"])
    rq = rd["draw_request"]
    r.draw_request = None if rq is None else DrawRequest(unplain(rq["values"]), rq["why"])
    game.tilts.paused_on = snap["paused_on"]
    t = snap["tilt"]
    if t is None:
        game.tilts.tilt = None
    else:
        tilt = Tilt(t["code"], "", bool(t["active"]), t["resume_phase"], t["resume_need"])
        _set(tilt, TILT, t)
        game.tilts.tilt = tilt
    return game


def _hand(data: dict[str, Any]) -> Hand:
    h = Hand()
    _set(h, HAND, data)
    return h


def _hand_refs(game: Game) -> dict[int, Any]:
    refs: dict[int, Any] = {id(game.round.dealer): "dealer"}
    for s in game.seats:
        for i, h in enumerate(s.hands):
            refs[id(h)] = [s.number, i]
    return refs


def _deref(game: Game, ref: Any) -> Hand:
    if ref == "dealer":
        return game.round.dealer
    seat, index = ref
    return game.seats[int(seat) - 1].hands[int(index)]


def covered() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Per engine class: (its ``__slots__``, the fields written + wiring): the tests
    check that the two are equal, so no field is ever left out of a checkpoint."""
    from firmware.engine.bank import Bank
    from firmware.engine.round import Round
    from firmware.engine.shoe import Shoe
    from firmware.engine.tilts import Tilts

    written = {
        "Hand": (Hand, HAND), "Seat": (Seat, (*SEAT, "hands")), "Shoe": (Shoe, SHOE),
        "Tilt": (Tilt, TILT), "Bank": (Bank, (*BANK, "seats")),
        "Round": (Round, (*ROUND, "dealer", "players", "deal_order", "card_to",
                          "draw_request")),
        "Tilts": (Tilts, ("tilt", "paused_on")),
        "Game": (Game, ("bank", "round", "shoe", "tilts")),
    }
    return {name: (frozenset(getattr(cls, "__slots__")),  # noqa: B009 (mypy: type)
                   frozenset((*fields, *WIRING.get(name, ()))))
            for name, (cls, fields) in written.items()}
