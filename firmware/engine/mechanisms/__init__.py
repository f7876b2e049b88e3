"""The named mechanisms the variations are built from (docs/games.md).

Each module registers one or two :class:`~firmware.engine.mechanism.Mechanism` classes
under the name a Rules Submission lists in ``[game] mechanisms``; the engine imports a
module here the first time a rules file names it. A mechanism holds one rule of one or
more games (a paired wager, a lammer, a bonus, a dealer rule) and reads its regulated
values from the rules file, never from constants of its own.
"""
