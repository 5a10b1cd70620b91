"""Coverage of the 95 % intervals a suite gives for each method's mean score and average rank, by simulation.

The population is a finished suite's per-dataset table (``datasets.csv``: each dataset's mean score per
method): a simulated suite draws N of its datasets with replacement, and an interval covers when it holds
the population's value (the mean over all its datasets). Three intervals over the drawn datasets: the
percentile bootstrap and BCa (``scipy.stats.bootstrap``) and Student's t. Coverage is pooled over the
methods; ``docs/statistics.md`` records what this printed.

    .venv/bin/python benchmarks/bench_interval_coverage.py results/adbench_classical --sizes 7 36 --runs 400
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from kpca_bench.report import statistics

INTERVALS = ("percentile", "BCa", "t")


def interval(values: np.ndarray, method: str, rng: np.random.Generator, resamples: int) -> tuple[np.ndarray, ...]:
    """The 95 % interval of each column's mean by ``method`` (one of :data:`INTERVALS`)."""
    if method == "t":
        low, high = statistics.t_mean_interval(pd.DataFrame(values)).to_numpy().T
        return low, high
    result = stats.bootstrap((values,), np.mean, axis=0, method=method, n_resamples=resamples, rng=rng)
    return result.confidence_interval.low, result.confidence_interval.high


def coverage(population: pd.DataFrame, size: int, runs: int, resamples: int, seed: int) -> dict[str, float]:
    """Share of the simulated suites of ``size`` datasets whose interval holds the population's mean, pooled
    over the columns; an interval of zero width (every drawn value equal) covers only the value itself."""
    rng = np.random.default_rng(seed)
    truth = population.mean().to_numpy()
    hits = dict.fromkeys(INTERVALS, 0)
    for _ in range(runs):
        drawn = population.to_numpy()[rng.integers(0, len(population), size)]
        for method in INTERVALS:
            with np.errstate(all="ignore"):
                low, high = interval(drawn, method, rng, resamples)
            hits[method] += int(np.sum((low <= truth) & (truth <= high)))
    return {method: count / (runs * population.shape[1]) for method, count in hits.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path, help="a finished suite's results folder (with datasets.csv)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 36])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--metric", default="auroc")
    args = parser.parse_args()
    table = pd.read_csv(args.suite / "datasets.csv")
    scores = table.pivot(index="dataset", columns="method", values=f"{args.metric}_mean").dropna()
    print(f"{args.suite}: {len(scores)} datasets x {scores.shape[1]} methods, {args.runs} simulated suites per size")
    for name, population in (("mean score", scores), ("average rank", statistics.ranks(scores))):
        for size in args.sizes:
            found = coverage(population, size, args.runs, args.resamples, seed=size)
            print(f"{name}, {size} datasets: " + ", ".join(f"{m} {v:.3f}" for m, v in found.items()))


if __name__ == "__main__":
    main()
