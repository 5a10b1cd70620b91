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
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np

from kpca_bench.datasets import Dataset
from kpca_bench.errors import ConfigError
from kpca_bench.protocols.base import DatasetConfig, Method, Protocol, ThresholdConfig, empty_model, with_flags
from kpca_bench.protocols.novelty import RECORDS as NOVELTY_RECORDS
from kpca_bench.protocols.novelty import Split, class_indices, detection_record, fitted_attributes, scale, split_sizes
from kpca_bench.validation import Problems, is_integer

DATASET_KEYS = ("inliers", "outliers")
ALL: Final = "all"


@dataclass(frozen=True)
class Options:
    """Sample sizes (an integer or ``all``), the columns the detector sees (None: all), and F1's cut."""

    n_inliers: int | Literal["all"] = ALL
    n_outliers: int | Literal["all"] = ALL
    features: tuple[int, ...] | None = None
    threshold: ThresholdConfig = ThresholdConfig()


def parse_options(raw: dict, threshold: ThresholdConfig, problems: Problems) -> Options:
    sizes = {}
    for key in ("n_inliers", "n_outliers"):
        size = raw.get(key, ALL)
        if size != ALL and (not is_integer(size) or size < 1):
            problems.add(key, f"must be an integer >= 1 or {ALL!r}, got {size!r}")
            size = ALL
        sizes[key] = size
    columns = raw.get("features")
    if columns is not None and (
        not isinstance(columns, list) or not columns or not all(is_integer(c) and c >= 0 for c in columns)
    ):
        problems.add("features", f"must be a non-empty list of column indices (0, 1, ...), got {columns!r}")
        columns = None
    return Options(**sizes, features=tuple(columns) if columns is not None else None, threshold=threshold)


def train_rows(data: DatasetConfig, options: Options) -> int | None:
    """The sample size when both counts are given."""
    if options.n_inliers != ALL and options.n_outliers != ALL:
        return options.n_inliers + options.n_outliers
    return None


def describe(data: DatasetConfig, options: Options) -> str:
    return (
        f"fit and score one contaminated sample, no labels used in fitting: {options.n_inliers} inliers "
        f"{list(data.inliers)} + {options.n_outliers} outliers {list(data.outliers)}"
        + (f"; features {list(options.features)}" if options.features is not None else "")
    )


def check_unsupervised(dataset: Dataset, data: DatasetConfig, options: Options) -> None:
    """Fail before any work if the classes cannot supply the sample or a feature column does not exist."""
    problems = []
    available = {
        "n_inliers": len(class_indices(dataset, data.inliers, "inliers")),
        "n_outliers": len(class_indices(dataset, data.outliers, "outliers")),
    }
    for key, size in (("n_inliers", options.n_inliers), ("n_outliers", options.n_outliers)):
        if size != ALL and size > available[key]:
            problems.append(
                f"protocol.{key}: dataset {dataset.name} has {available[key]} "
                f"{key.removeprefix('n_')}, fewer than {size}; lower it or use {ALL!r}"
            )
    n_features = dataset.X.shape[1]
    if options.features is not None and max(options.features) >= n_features:
        problems.append(
            f"protocol.features: column {max(options.features)} does not exist; dataset {dataset.name} "
            f"has columns 0 .. {n_features - 1}"
        )
    if problems:
        raise ConfigError("\n".join(problems))


def _draw(rng: np.random.Generator, indices: np.ndarray, size) -> np.ndarray:
    return rng.permutation(indices)[: None if size == ALL else size]


def unsupervised_split(dataset: Dataset, data: DatasetConfig, options: Options, seed: int) -> Split:
    """One shuffled contaminated sample; ``X_test`` is ``X_train`` (the fitted points are the scored ones)."""
    rng = np.random.default_rng(seed)
    inliers = _draw(rng, class_indices(dataset, data.inliers, "inliers"), options.n_inliers)
    outliers = _draw(rng, class_indices(dataset, data.outliers, "outliers"), options.n_outliers)
    order = rng.permutation(len(inliers) + len(outliers))
    rows = np.concatenate([inliers, outliers])[order]
    is_outlier = np.r_[np.zeros(len(inliers), bool), np.ones(len(outliers), bool)][order]
    X = dataset.X[rows] if options.features is None else dataset.X[np.ix_(rows, np.asarray(options.features))]
    (X,) = scale(data.scaling, X)
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


def evaluate_unsupervised(method: Method, split: Split, options: Options) -> dict:
    """Fit on the contaminated sample, score the same points, measure against the labels.

    The threshold rule sees the sample's scores as both its "training" and its
    "test" scores (they are the same points).
    """
    start = time.perf_counter()
    detector = method.fitted_detector(split.X_train)
    fitted = time.perf_counter()
    scores = fitted_sample_scores(detector, split.X_train)
    return with_flags(
        {
            "fit_time": fitted - start,
            "score_time": time.perf_counter() - fitted,
            "n_features": int(split.X_train.shape[1]),
            **fitted_attributes(detector),
            **split_sizes(split),
            **detection_record(options.threshold, scores, scores, split.is_outlier),
        },
        empty_model(detector),
    )


class Unsupervised(Protocol):
    name = "unsupervised"
    description = "fit on a contaminated sample without labels, score the same points"
    options = Options
    dataset_keys = DATASET_KEYS
    records = NOVELTY_RECORDS
    parse_options = staticmethod(parse_options)
    check_data = staticmethod(check_unsupervised)
    split = staticmethod(unsupervised_split)
    evaluate = staticmethod(evaluate_unsupervised)
    shares_fits = True
    describe = staticmethod(describe)
    train_rows = staticmethod(train_rows)
