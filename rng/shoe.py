"""Card codes and shuffled shoes (Fisher–Yates on DRBG output).

A card code is rank then suit: rank ``A 2 3 4 5 6 7 8 9 T J Q K``, suit ``S H D C``
(``"TD"`` is the ten of diamonds). A Spanish deck has 48 cards: the four tens removed
(§ 635a). The unshuffled order of a deck is spades A..K, hearts, diamonds, clubs; a shoe
is that deck repeated; the card *index* used by binary lab files is the position of a
code in one unshuffled deck (0 = ``AS`` ... 51 = ``KC``; Spanish 0..47).
"""

from __future__ import annotations

from etgcore.cards import deck
from rng.scaling import BitSource, shuffle


def unshuffled_shoe(decks: int, *, spanish: bool = False) -> list[str]:
    if not 1 <= decks <= 16:
        raise ValueError(f"a shoe holds 1 to 16 decks, got {decks}")
    return deck(spanish=spanish) * decks


def shuffled_shoe(decks: int, *, spanish: bool = False, seed: bytes | None = None) -> list[str]:
    """A shoe of ``decks`` decks in uniformly random order.

    Without ``seed`` the order comes from a fresh CTR_DRBG seeded by the OS entropy
    source (health tested); with ``seed`` (bench and simulator only) the same seed gives
    the same shoe on every machine.
    """
    from rng.entropy import SeededSource, open_source
    from rng.mechanisms import DEFAULT_MECHANISM, mechanism_class

    source = SeededSource(seed) if seed is not None else open_source("os")
    drbg = mechanism_class(DEFAULT_MECHANISM)(source, personalization=b"ETG shoe shuffle")
    try:
        cards = unshuffled_shoe(decks, spanish=spanish)
        shuffle(BitSource(drbg.generate, min_read=256), cards)
        return cards
    finally:
        drbg.uninstantiate()
