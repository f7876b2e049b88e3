"""Game math: exact dealer probabilities, computed basic strategy, PAR sheet, RTP simulation.

Nothing here holds a rule value of its own: every figure is computed from the Rules
Submission the engine loads (:mod:`firmware.math.ruleset` adapts it), and the Monte Carlo
plays rounds through the real engine.
"""
