"""The automatic players' strategy, kept on disk between starts.

Why: a table started with ``--auto-play`` (the demo, the bench's soaks, the floor's
simulated tables) plays the card-removal basic strategy, whose solve takes about a
second here and several on a Raspberry Pi, at every start and every restart of a soak.
The players need only the solved rankings
(:class:`~firmware.math.strategy.card_removal_solver.UpStrategy` per up card, about 100 KB), not the
solve's working arrays, so those are what is kept: in the math cache (``$ETG_CACHE_DIR``, else
``~/.cache/etg``), keyed by the rules hash and a digest of every source file of ``firmware/math`` (a
changed solve recomputes).

The file is read with an unpickler that builds nothing but numpy arrays, plain
containers and the two dataclasses of the rankings: a file someone else planted in the
cache cannot run code. A file that cannot be read is ignored and the strategy solved.
``ETG_NO_CACHE=1`` skips the cache.
"""

from __future__ import annotations

import io
import os
import pickle
from typing import Any

from firmware.math.cache import cache_dir, source_digest
from firmware.math.ruleset import GameRules, as_game_rules
from firmware.math.strategy.basic import strategy_for
from firmware.math.strategy.card_removal import RemovalStrategy
from firmware.math.strategy.card_removal_solver import UpStrategy

#: what the unpickler may build: (module, name)
_ALLOWED = {
    ("builtins", "dict"), ("builtins", "list"), ("builtins", "tuple"), ("builtins", "set"),
    ("builtins", "frozenset"), ("builtins", "bool"), ("builtins", "int"), ("builtins", "float"),
    ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("firmware.math.strategy.card_removal_solver", "UpStrategy"),
    ("firmware.math.strategy.card_removal_solver", "Exception_"),
}


class _RankingsOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"not a strategy file: {module}.{name}")
        return super().find_class(module, name)


def players_strategy(rules: Any) -> Any:
    """The strategy :func:`~firmware.math.strategy.basic.strategy_for` gives ``rules``; for a
    hitting game at a finite deck count read from the cache when it holds it."""
    r = as_game_rules(rules)
    if not r.hitting or r.shoe.infinite or os.environ.get("ETG_NO_CACHE"):
        return strategy_for(rules)
    path = cache_dir() / f"players-{_key(r)}-{source_digest()}.pickle"
    try:
        ups = _RankingsOnly(io.BytesIO(path.read_bytes())).load()
        return _from_rankings(r, ups)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, TypeError,
            ValueError, KeyError):
        pass
    solved = strategy_for(rules)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(solved.ups, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, path)
    except OSError:
        pass
    return solved


def _key(rules: GameRules) -> str:
    """The rules hash the solve depends on (strategy_for shares one solve across what a
    Blackjack pays)."""
    from fractions import Fraction

    return str(rules.with_(blackjack_pays=Fraction(3, 2)).rules_hash)


def _from_rankings(rules: GameRules, ups: Any) -> RemovalStrategy:
    if not isinstance(ups, dict) or not ups or not all(
            isinstance(u, UpStrategy) for u in ups.values()):
        raise ValueError("no rankings")
    return RemovalStrategy(rules, ups)


__all__ = ["players_strategy"]
