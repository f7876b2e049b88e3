"""The PAR sheet's plots (matplotlib's Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bingo_grid(path: Path, by_lane: dict[tuple[int, int], float]) -> None:
    """The main wager's return for each drawn target and multiplier, as a heat map."""
    import numpy as np

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 5))
    grid = np.array([[by_lane[(t, m)] for m in BINGO_MULTIPLIERS] for t in BINGO_TARGETS])
    im = ax.imshow(grid, aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(BINGO_MULTIPLIERS)), [f"{m}x" for m in BINGO_MULTIPLIERS])
    ax.set_yticks(range(len(BINGO_TARGETS)), [str(t) for t in BINGO_TARGETS])
    ax.set_xlabel("multiplier")
    ax.set_ylabel("target")
    ax.set_title("Main wager return by Bingo target and multiplier")
    fig.colorbar(im, ax=ax, label="expected net per unit")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def outcomes(path: Path, variant: str, items: list[tuple[int, float]], n: float) -> None:
    """The distribution of a round's net result (``items``: milli-units, count or
    probability; ``n``: the total)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar([c / 1000 for c, _ in items], [k / n for _, k in items], width=0.4)
    ax.set_yscale("log")
    ax.set_xlabel("net result of a round (units of the Blackjack wager)")
    ax.set_ylabel("probability")
    ax.set_title(f"{variant}: outcome distribution")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
