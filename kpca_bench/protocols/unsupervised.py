"""The unsupervised outlier-detection protocol (Kim & Klabjan, outlier-detection experiment).

No labels are used in fitting: each trial draws one contaminated sample (inliers
and outliers of the classes the config names, mixed), fits the detector on the
whole sample and scores the same points. The labels only measure the result
(AUROC; F1 at the config's threshold rule). This is the *outlier detection*
setting of Kim & Klabjan, as opposed to the *anomaly detection* (novelty)
setting, where the model is fitted on normal samples only.

Dataset keys: ``inliers`` and ``outliers`` (class labels). Options
(``protocol: {name: unsupervised, ...}``):

* ``n_inliers``, ``n_outliers``: how many of each the sample holds, an integer
  or ``all`` (default ``all``: the ODDS convention of using a dataset whole).
  They are drawn anew, without replacement, in each trial; with ``all`` the
  trial only shuffles the rows.
* ``features``: column indices the detector sees (default: every column), e.g.
  the 6 continuous attributes of ann-thyroid that ODDS's Thyroid keeps.

Scaling (``dataset.scaling``) is fitted on the sample itself, which is
legitimate here: it uses no labels.

**Scores of the fitted points.** For every method the outlier score is minus
``score_samples`` of the fitted sample, except for scikit-learn's
``LocalOutlierFactor``: its ``score_samples`` scores *new* points (each fitted
point would count itself among its own neighbours), so the scores of the fitted
points are its ``negative_outlier_factor_``, which ``fit`` computes in either
``novelty`` mode. The registered ``lof`` therefore needs no ``novelty: false``.
"""

from __future__ import annotations

import time
from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np

from kpca_bench.datasets import Dataset
from kpca_bench.errors import ConfigError
from kpca_bench.metrics import choose_threshold, detection_metrics, roc_on_grid
from kpca_bench.protocols.novelty import SCALERS, Split, class_indices, fitted_attributes

if TYPE_CHECKING:
    from kpca_bench.config import Config

DATASET_KEYS = ("inliers", "outliers")
OPTIONS = ("n_inliers", "n_outliers", "features")
ALL = "all"


def _sizes(config: Config) -> tuple:
    options = config.protocol_options
    return options.get("n_inliers", ALL), options.get("n_outliers", ALL)


def describe(config: Config) -> str:
    d = config.dataset
    n_in, n_out = _sizes(config)
    columns = config.protocol_options.get("features")
    return (f"fit and score one contaminated sample, no labels used in fitting: {n_in} inliers "
            f"{list(d.inliers)} + {n_out} outliers {list(d.outliers)}, drawn anew in each of {config.trials} "
            f"trials (seed {config.seed})" + (f"; features {list(columns)}" if columns is not None else ""))


def check_unsupervised(dataset: Dataset, config: Config) -> None:
    """Fail before any work if the options are malformed or the classes cannot supply the sample."""
    cfg = config.dataset
    problems = []
    available = {"n_inliers": len(class_indices(dataset, cfg.inliers, "inliers")),
                 "n_outliers": len(class_indices(dataset, cfg.outliers, "outliers"))}
    for key, size in zip(("n_inliers", "n_outliers"), _sizes(config)):
        if size == ALL:
            continue
        if isinstance(size, bool) or not isinstance(size, Integral) or size < 1:
            problems.append(f"protocol.{key}: must be an integer >= 1 or {ALL!r}, got {size!r}")
        elif size > available[key]:
            problems.append(f"protocol.{key}: dataset {dataset.name} has {available[key]} "
                            f"{key.removeprefix('n_')}, fewer than {size}; lower it or use {ALL!r}")
    columns = config.protocol_options.get("features")
    n_features = dataset.X.shape[1]
    if columns is not None and (not isinstance(columns, list) or not columns or not all(
            isinstance(c, Integral) and not isinstance(c, bool) and 0 <= c < n_features for c in columns)):
        problems.append(f"protocol.features: must be a non-empty list of column indices 0 .. {n_features - 1}, "
                        f"got {columns!r}")
    if problems:
        raise ConfigError("\n".join(f"{config.source}: {p}" for p in problems))


def _draw(rng: np.random.Generator, indices: np.ndarray, size) -> np.ndarray:
    return rng.permutation(indices)[: None if size == ALL else size]


def unsupervised_split(dataset: Dataset, config: Config, seed: int) -> Split:
    """One shuffled contaminated sample; ``X_test`` is ``X_train`` (the fitted points are the scored ones)."""
    cfg = config.dataset
    rng = np.random.default_rng(seed)
    n_in, n_out = _sizes(config)
    inliers = _draw(rng, class_indices(dataset, cfg.inliers, "inliers"), n_in)
    outliers = _draw(rng, class_indices(dataset, cfg.outliers, "outliers"), n_out)
    order = rng.permutation(len(inliers) + len(outliers))
    rows = np.concatenate([inliers, outliers])[order]
    is_outlier = np.r_[np.zeros(len(inliers), bool), np.ones(len(outliers), bool)][order]
    columns = config.protocol_options.get("features")
    X = dataset.X[rows] if columns is None else dataset.X[np.ix_(rows, columns)]
    if cfg.scaling in SCALERS:
        X = SCALERS[cfg.scaling]().fit_transform(X)
    return Split(X_train=X, X_test=X, is_outlier=is_outlier)


def fitted_sample_scores(detector, X: np.ndarray) -> np.ndarray:
    """Outlier scores (higher = more abnormal) of the points ``detector`` was fitted on.

    The one sign flip from scikit-learn's convention (higher = more normal) of
    this protocol; LOF's scores of its own training points are
    ``negative_outlier_factor_`` (see the module docstring).
    """
    if hasattr(detector, "negative_outlier_factor_"):
        return -detector.negative_outlier_factor_
    return -detector.score_samples(X)


def evaluate_unsupervised(detector, split: Split, config: Config) -> dict:
    """Fit on the contaminated sample, score the same points, measure against the labels.

    The threshold rule sees the sample's scores as both its "training" and its
    "test" scores (they are the same points).
    """
    start = time.perf_counter()
    detector.fit(split.X_train)
    fitted = time.perf_counter()
    scores = fitted_sample_scores(detector, split.X_train)
    result = {"fit_time": fitted - start, "score_time": time.perf_counter() - fitted,
              "n_features": int(split.X_train.shape[1]), **fitted_attributes(detector)}
    if not np.all(np.isfinite(scores)):
        return {**result, "status": "error: the method produced NaN or infinite scores"}
    cut = choose_threshold(config.threshold, scores, scores, split.is_outlier)
    return {**result, **detection_metrics(split.is_outlier, scores, cut), "threshold": cut,
            "roc_tpr": roc_on_grid(split.is_outlier, scores).tolist(), "status": "ok"}
