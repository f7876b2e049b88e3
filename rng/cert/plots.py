"""PNG plots for the report (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rng.cert.results import ALPHA, TestResult


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def frequencies(path: Path, title: str, data: dict[str, Any]) -> Path:
    """Observed against expected counts per value, with 99% bands."""
    plt = _plt()
    labels = data["labels"]
    obs = np.asarray(data["observed"], dtype=float)
    exp = np.asarray(data["expected"], dtype=float)
    fig, ax = plt.subplots(figsize=(max(6, 0.22 * len(labels) + 3), 3.6))
    x = np.arange(len(labels))
    ax.bar(x, obs, color="#4878a8", label="observed")
    n = max(float(obs.sum()), 1.0)
    sd = np.sqrt(exp * (1 - exp / n))
    ax.errorbar(x, exp, yerr=2.576 * sd, fmt="_", color="#c03030", capsize=3,
                label="expected, 99% band")
    ax.set_xticks(x, labels, rotation=90 if len(labels) > 12 else 0, fontsize=7)
    ax.set_title(f"{title}: counts per value (N = {int(n):,})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def correlations(path: Path, title: str, data: dict[str, Any]) -> Path:
    plt = _plt()
    r = np.asarray(data["correlations"], dtype=float)
    n = max(int(data["n"]), 1)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    lags = np.arange(1, r.size + 1)
    ax.stem(lags, r)
    band = 2.576 / math.sqrt(n)
    ax.axhline(band, color="#c03030", ls="--", lw=1, label="99% band")
    ax.axhline(-band, color="#c03030", ls="--", lw=1)
    ax.set_xlabel("lag")
    ax.set_ylabel("autocorrelation")
    ax.set_title(f"{title}: serial correlation")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def pvalues(path: Path, results: list[TestResult]) -> Path:
    """Histogram of all p-values (should be flat) and their uniform Q-Q plot."""
    plt = _plt()
    ps = np.sort([r.p_value for r in results if r.applicable])
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    a1.hist(ps, bins=10, range=(0, 1), color="#4878a8", edgecolor="white")
    a1.axhline(len(ps) / 10, color="#c03030", ls="--", lw=1, label="uniform")
    a1.set_xlabel("p-value")
    a1.set_title(f"{len(ps)} p-values")
    a1.legend(fontsize=8)
    q = (np.arange(1, len(ps) + 1) - 0.5) / max(len(ps), 1)
    a2.plot(q, ps, ".", ms=4)
    a2.plot([0, 1], [0, 1], color="#c03030", lw=1)
    a2.axhline(ALPHA, color="grey", lw=0.8, ls=":")
    a2.set_xlabel("uniform quantile")
    a2.set_ylabel("p-value")
    a2.set_title("Q-Q against uniform")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def heatmap(path: Path, title: str, resid: np.ndarray, xlabel: str, ylabel: str) -> Path:
    """Standardized residuals (observed - expected) / sqrt(expected)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 3.8) if resid.shape[1] > 2 * resid.shape[0]
                           else (5.5, 4.8))
    im = ax.imshow(resid, aspect="auto", cmap="RdBu_r", vmin=-4, vmax=4,
                   interpolation="nearest")
    fig.colorbar(im, ax=ax, label="standardized residual")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
