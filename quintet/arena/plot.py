"""A plot of each pair's running mean difference (needs matplotlib)."""

from __future__ import annotations

import importlib
import math

from quintet.arena.results import ArenaResult
from quintet.arena.stats import t_quantile


def plot_running(result: ArenaResult, path: str) -> None:
    """Write a PNG of each pair's running mean difference with its 95% band.

    Raises:
        ImportError: matplotlib is not installed.
    """
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError as e:
        raise ImportError("--plot needs matplotlib: pip install matplotlib") from e
    matplotlib.use("Agg")
    plt = importlib.import_module("matplotlib.pyplot")

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for p in result.pairs:
        xs, means, lows, highs = [], [], [], []
        mean = m2 = 0.0
        for k, d in enumerate(p.deals, start=1):
            delta = d.diff - mean
            mean += delta / k
            m2 += delta * (d.diff - mean)
            xs.append(k)
            means.append(mean)
            hw = t_quantile(k) * math.sqrt(m2 / (k - 1) / k) if k > 1 else math.nan
            lows.append(mean - hw)
            highs.append(mean + hw)
        (line,) = ax.plot(xs, means, label=f"{p.a} - {p.b}")
        ax.fill_between(xs[2:], lows[2:], highs[2:], color=line.get_color(), alpha=0.15)
    ax.axhline(0.0, color="grey", linewidth=0.8)
    cfg = result.config
    ax.set_title(f"{cfg.game} {cfg.variant}: running mean points per deal (seed {cfg.seed})")
    ax.set_xlabel("deals")
    ax.set_ylabel("A - B points per deal (95% band)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


__all__ = ["plot_running"]
