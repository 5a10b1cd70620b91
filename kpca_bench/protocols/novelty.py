"""The novelty protocol (Hoffmann 2007; Das et al., section V; Li et al., section IV.B).

Train on inliers only; test on a fresh mix of inliers and outliers, both drawn
at random without replacement from the classes the config names.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from kpca_bench.datasets import Dataset
from kpca_bench.errors import DataError
from kpca_bench.metrics import choose_threshold, detection_metrics, roc_on_grid, sparsity_percent

if TYPE_CHECKING:
    from kpca_bench.config import Config

DATASET_KEYS = ("inliers", "outliers", "train_inliers", "test_inliers", "test_outliers")
SCALERS = {"standard": StandardScaler, "minmax": MinMaxScaler}


@dataclass(frozen=True)
class Split:
    """One trial's data. ``is_outlier`` marks the test rows drawn from the outlier classes."""

    X_train: np.ndarray
    X_test: np.ndarray
    is_outlier: np.ndarray


def class_indices(dataset: Dataset, labels: tuple, role: str) -> np.ndarray:
    """Row indices of the given classes; a missing class is a :class:`DataError`."""
    missing = [label for label in labels if label not in dataset.class_names]
    if missing:
        raise DataError(f"dataset {dataset.name} has no class {missing[0]!r} (asked for as {role}); "
                        f"its classes are {list(dataset.class_names)}")
    return np.flatnonzero(np.isin(dataset.y, labels))


def describe(config: Config) -> str:
    d = config.dataset
    return (f"train on {d.train_inliers} inliers, test on {d.test_inliers} inliers + {d.test_outliers} outliers, "
            f"drawn anew in each of {config.trials} trials (seed {config.seed})")


def check_novelty_sizes(dataset: Dataset, config: Config) -> None:
    """Fail before any work if the classes cannot supply the sizes the config asks for."""
    cfg = config.dataset
    n_in = len(class_indices(dataset, cfg.inliers, "inliers"))
    n_out = len(class_indices(dataset, cfg.outliers, "outliers"))
    if cfg.train_inliers + cfg.test_inliers > n_in:
        raise DataError(f"dataset {dataset.name} has {n_in} inliers (classes {list(cfg.inliers)}) but the config asks "
                        f"for {cfg.train_inliers} train + {cfg.test_inliers} test inliers; lower "
                        "dataset.train_inliers or dataset.test_inliers")
    if cfg.test_outliers > n_out:
        raise DataError(f"dataset {dataset.name} has {n_out} outliers (classes {list(cfg.outliers)}) but the config "
                        f"asks for {cfg.test_outliers}; lower dataset.test_outliers")


def novelty_split(dataset: Dataset, config: Config, seed: int) -> Split:
    """Draw train inliers, test inliers and test outliers without replacement; scale on train only."""
    cfg = config.dataset
    rng = np.random.default_rng(seed)
    inliers = rng.permutation(class_indices(dataset, cfg.inliers, "inliers"))
    outliers = rng.permutation(class_indices(dataset, cfg.outliers, "outliers"))
    train = inliers[: cfg.train_inliers]
    test = np.concatenate([inliers[cfg.train_inliers: cfg.train_inliers + cfg.test_inliers],
                           outliers[: cfg.test_outliers]])
    X_train, X_test = dataset.X[train], dataset.X[test]
    if cfg.scaling in SCALERS:
        scaler = SCALERS[cfg.scaling]().fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    is_outlier = np.r_[np.zeros(cfg.test_inliers, bool), np.ones(cfg.test_outliers, bool)]
    return Split(X_train=X_train, X_test=X_test, is_outlier=is_outlier)


def fitted_attributes(detector) -> dict:
    """What a fitted detector learned that a result row should carry (sparsity, resolved width)."""
    model = getattr(detector, "estimator_", detector)
    info = {}
    if hasattr(model, "dual_coef_") and getattr(model, "X_fit_", None) is not None:
        info["sparsity"] = sparsity_percent(np.asarray(model.dual_coef_))
    for name in ("gamma_", "n_iter_"):
        value = getattr(model, name, None)
        if isinstance(value, (int, float, np.integer, np.floating)):
            info[name.rstrip("_")] = float(value)
    return info


def evaluate_novelty(detector, split: Split, config: Config) -> dict:
    """Fit on the training inliers and measure detection on the test mix.

    Scores are flipped once here from scikit-learn's ``score_samples``
    (higher = more normal) to outlier scores (higher = more abnormal).
    """
    start = time.perf_counter()
    detector.fit(split.X_train)
    fitted = time.perf_counter()
    train_scores = -detector.score_samples(split.X_train)
    test_scores = -detector.score_samples(split.X_test)
    scored = time.perf_counter()
    result = {"fit_time": fitted - start, "score_time": scored - fitted, **fitted_attributes(detector)}
    if not (np.all(np.isfinite(train_scores)) and np.all(np.isfinite(test_scores))):
        return {**result, "status": "error: the method produced NaN or infinite scores"}
    cut = choose_threshold(config.threshold, train_scores, test_scores, split.is_outlier)
    return {**result, **detection_metrics(split.is_outlier, test_scores, cut), "threshold": cut,
            "roc_tpr": roc_on_grid(split.is_outlier, test_scores).tolist(), "status": "ok"}

