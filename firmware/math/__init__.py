"""Game math: exact dealer probabilities, computed basic strategy, PAR sheet, RTP simulation.

Nothing here holds a rule value of its own: every figure is computed from the Rules
Submission the engine loads (:mod:`firmware.math.ruleset` derives the math's view of it
and refuses a key it does not know), and the Monte Carlo plays rounds through the real
engine. Grouped by job: :mod:`.dealer` (the dealer's laws), :mod:`.hands` (one hand's
value, splits), :mod:`.strategy`, :mod:`.games` (each game's return), :mod:`.par` (the
PAR sheet), :mod:`.simulation`; the rule model and the shared types at the top
(docs/math.md, "Where things are").
"""
