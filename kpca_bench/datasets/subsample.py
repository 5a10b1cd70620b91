"""Fewer rows of a large dataset: a stratified, seeded subsample (``dataset.max_rows``).

Kernel methods need an n x n kernel, so ADBench's largest sets (up to 620,000
rows) can be named only with fewer rows. Each class keeps its share of the rows
(largest-remainder rounding, at least one row per class), drawn without
replacement by a generator seeded from the config seed, and the rows keep their
order in the file. Protocols then draw their own per-trial sizes from these rows.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kpca_bench.datasets.base import Dataset


def class_quotas(counts: np.ndarray, total: int) -> np.ndarray:
    """Rows per class summing to ``total``: shares of ``counts`` by largest remainder, at least 1 each."""
    exact = counts * total / counts.sum()
    quotas = np.maximum(np.floor(exact).astype(int), 1)
    order = np.argsort(-(exact - np.floor(exact)), kind="stable")
    for index in order[: max(total - quotas.sum(), 0)]:
        quotas[index] += 1
    return np.minimum(quotas, counts)


def stratified_rows(y: np.ndarray, max_rows: int, seed: int) -> np.ndarray:
    """Sorted row indices of a stratified sample of ``max_rows`` rows of labels ``y``."""
    rng = np.random.default_rng(seed)
    classes, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    quotas = class_quotas(counts, max_rows)
    chosen = [rng.choice(np.flatnonzero(inverse == k), size=quota, replace=False) for k, quota in enumerate(quotas)]
    return np.sort(np.concatenate(chosen))


def subsample(dataset: Dataset, max_rows: int, seed: int) -> Dataset:
    """``dataset`` with at most ``max_rows`` rows (unchanged if it has no more), recorded in its provenance."""
    n = dataset.X.shape[0]
    if n <= max_rows:
        return dataset
    rows = stratified_rows(dataset.y, max_rows, seed)
    note = f"max_rows: {len(rows)} of {n} rows, stratified by class, seed {seed}"
    notes = "; ".join(filter(None, [dataset.provenance.notes, note]))
    return replace(dataset, X=dataset.X[rows], y=dataset.y[rows], provenance=replace(dataset.provenance, notes=notes))
