"""The certified RNG: SP 800-90A DRBGs, SP 800-90B health tests, unbiased scaling.

Public API (stable; documented in docs/rng.md):

* :func:`open_table_rng` -> :class:`TableRng` (``draw_bingo``, ``randbelow``,
  ``weighted_choice``, ``shuffle``, ``random_bytes``, ``close``), :class:`BingoDraw`;
* :class:`RngUnavailable`: the RNG cannot be used; the table tilts with ``cause``;
* :mod:`rng.shoe` (``shuffled_shoe``), :mod:`rng.scaling` and :mod:`rng.batch`
  (integer-only scaling on any byte source), :mod:`rng.mechanisms` (the DRBGs).
"""

from rng.errors import DrbgError, EntropyError, RngError, RngUnavailable, SeedRefused
from rng.table_rng import BingoDraw, TableRng, open_table_rng

__all__ = [
    "BingoDraw",
    "DrbgError",
    "EntropyError",
    "RngError",
    "RngUnavailable",
    "SeedRefused",
    "TableRng",
    "open_table_rng",
]
