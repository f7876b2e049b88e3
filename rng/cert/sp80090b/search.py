"""Solving the estimators' equations for p: bisection on a monotone function.

The collision, compression and predictor estimates each solve ``f(p) = target`` for p on
an interval where f is monotone (90B 6.3.2 step 7, 6.3.4 step 7, 6.3.7-10 P_local). The
standard does not say how; bisection is robust (no derivative, no overshoot) and here
runs until the interval cannot shrink further in double precision, so the root is as
exact as the function's own rounding allows.
"""

from __future__ import annotations

from collections.abc import Callable


def bisect_decreasing(f: Callable[[float], float], target: float, lo: float, hi: float,
                      *, iterations: int = 200, ends: bool = True) -> float | None:
    """The p in [lo, hi] with f(p) = target for a decreasing f, or None when the target
    lies outside [f(hi), f(lo)]. ``ends=False``: the caller knows the target is inside
    (f is not evaluated at the ends, where it may be undefined)."""
    if ends and not f(hi) <= target <= f(lo):
        return None
    for _ in range(iterations):
        mid = (lo + hi) / 2.0
        if mid <= lo or mid >= hi:
            break
        fm = f(mid)
        if fm == target:
            return mid
        if fm > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0
