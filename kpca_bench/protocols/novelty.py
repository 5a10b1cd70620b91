"""The novelty protocol (Hoffmann 2007; Das et al., section V; Li et al., section IV.B).

Train on inliers only; test on a fresh mix of inliers and outliers, both drawn
at random without replacement from the classes the config names (or, with
``dataset.draw: file_order``, taken in the dataset's row order; with ``first_outliers``,
the outliers taken so and the inliers drawn).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from kpca_bench.datasets import Dataset
from kpca_bench.devices import to_numpy
from kpca_bench.errors import DataError
from kpca_bench.metrics import choose_threshold, detection_metrics, roc_on_grid, sparsity_percent
from kpca_bench.protocols.base import (
    NON_FINITE_SCORES,
    DatasetConfig,
    Method,
    Protocol,
    ThresholdConfig,
    constant_scores,
    empty_model,
    with_flags,
)
from kpca_bench.validation import Problems

DATASET_KEYS = ("inliers", "outliers", "train_inliers", "test_inliers", "test_outliers")
SCALERS = {"standard": StandardScaler, "minmax": MinMaxScaler}
RECORDS = ("f1", "precision", "recall", "auroc", "auprc", "sparsity", "threshold", "f1_by_rule", "roc_tpr")


@dataclass(frozen=True)
class Options:
    """The novelty protocol has no options of its own; F1's cut follows the config's ``threshold``."""

    threshold: ThresholdConfig = ThresholdConfig()


def parse_options(raw: dict, threshold: ThresholdConfig, problems: Problems) -> Options:
    return Options(threshold=threshold)


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
        raise DataError(
            f"dataset {dataset.name} has no class {missing[0]!r} (dataset.{role}); "
            f"its classes are {list(dataset.class_names)}"
        )
    return np.flatnonzero(np.isin(dataset.y, labels))


def scale(scaling: str, X_train: np.ndarray, *others: np.ndarray) -> tuple[np.ndarray, ...]:
    """``X_train`` and ``others`` scaled by a scaler fitted on ``X_train`` alone (``none``: unchanged)."""
    if scaling not in SCALERS:
        return (X_train, *others)
    scaler = SCALERS[scaling]().fit(X_train)
    return tuple(scaler.transform(X) for X in (X_train, *others))


def scale_split(data: DatasetConfig, X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A trial's training and test rows scaled by ``data.scaling``, fitted on ``data.scaling_rows``
    (``training``: the training rows; ``all``: training and test rows together; ``each``: the training
    rows on themselves and the test rows on themselves)."""
    if data.scaling_rows == "each":
        return scale(data.scaling, X_train)[0], scale(data.scaling, X_test)[0]
    fit_rows = X_train if data.scaling_rows == "training" else np.vstack([X_train, X_test])
    _, X_train, X_test = scale(data.scaling, fit_rows, X_train, X_test)
    return X_train, X_test


# What a draw other than random fixes, appended to the split's description.
DRAW_NOTES = {
    "random": "",
    "file_order": "; the first rows of each class in file order, the same in every trial",
    "first_outliers": "; the test outliers the first rows of their classes in file order, the same in every trial",
}


def describe(data: DatasetConfig, options: Options) -> str:
    return (
        f"train on {data.train_inliers} inliers, test on {data.test_inliers} inliers + {data.test_outliers} outliers"
        + DRAW_NOTES[data.draw]
    )


def novelty_sizes(data: DatasetConfig) -> tuple[int, int, int]:
    """The training inliers, test inliers and test outliers of the dataset entry: keys the novelty protocols
    require (:data:`DATASET_KEYS`), so the config loader has refused an entry without them."""
    train, test_in, test_out = data.train_inliers, data.test_inliers, data.test_outliers
    assert train is not None and test_in is not None and test_out is not None, "sizes required at config load"
    return train, test_in, test_out


def check_novelty_sizes(dataset: Dataset, data: DatasetConfig, options=None) -> None:
    """Fail before any work if the classes cannot supply the sizes the config asks for."""
    n_in = len(class_indices(dataset, data.inliers, "inliers"))
    n_out = len(class_indices(dataset, data.outliers, "outliers"))
    train_inliers, test_inliers, test_outliers = novelty_sizes(data)
    if train_inliers + test_inliers > n_in:
        raise DataError(
            f"dataset {dataset.name} has {n_in} inliers (classes {list(data.inliers)}) but the config asks "
            f"for {train_inliers} train + {test_inliers} test inliers; lower "
            "dataset.train_inliers or dataset.test_inliers"
        )
    if test_outliers > n_out:
        raise DataError(
            f"dataset {dataset.name} has {n_out} outliers (classes {list(data.outliers)}) but the config "
            f"asks for {test_outliers}; lower dataset.test_outliers"
        )


def novelty_split(dataset: Dataset, data: DatasetConfig, options, seed: int) -> Split:
    """Draw train inliers, test inliers and test outliers without replacement; scale (:func:`scale_split`).

    ``data.draw == "file_order"`` takes them in the dataset's row order instead, the same in every
    trial; ``"first_outliers"`` takes the outliers in that order and draws the inliers as ``"random"`` does
    (:class:`~kpca_bench.protocols.base.DatasetConfig`).
    """
    inliers = class_indices(dataset, data.inliers, "inliers")
    outliers = class_indices(dataset, data.outliers, "outliers")
    if data.draw != "file_order":
        rng = np.random.default_rng(seed)
        inliers = rng.permutation(inliers)
        if data.draw == "random":
            outliers = rng.permutation(outliers)
    train_inliers, test_inliers, test_outliers = novelty_sizes(data)
    train = inliers[:train_inliers]
    test = np.concatenate([inliers[train_inliers : train_inliers + test_inliers], outliers[:test_outliers]])
    X_train, X_test = scale_split(data, dataset.X[train], dataset.X[test])
    is_outlier = np.r_[np.zeros(test_inliers, bool), np.ones(test_outliers, bool)]
    return Split(X_train=X_train, X_test=X_test, is_outlier=is_outlier)


def fitted_attributes(model) -> dict:
    """What a fitted model learned that a record should carry (sparsity, resolved width, iterations)."""
    model = getattr(model, "estimator_", model)
    info = {}
    if hasattr(model, "dual_coef_") and getattr(model, "X_fit_", None) is not None:
        info["sparsity"] = sparsity_percent(to_numpy(model.dual_coef_))
    for name in ("gamma_", "n_iter_", "relative_change_"):
        value = getattr(model, name, None)
        if isinstance(value, (int, float, np.integer, np.floating)):
            info[name.rstrip("_")] = float(value)
    if hasattr(model, "eigen_solver_"):
        info["eigen_solver"] = model.eigen_solver_
    if getattr(model, "eigen_residuals_", None) is not None:
        # The worst residual relative to lambda_1, the block solver's stopping rule.
        info["eigen_residual"] = float(np.max(to_numpy(model.eigen_residuals_)) / to_numpy(model.eigenvalues_)[0])
    return info


def detection_record(threshold: ThresholdConfig, train_scores, test_scores, is_outlier) -> dict:
    """Metrics of outlier scores (higher = more abnormal) on a labelled test set.

    F1 at the config's threshold rule, and (``f1_by_rule``) at every rule that
    needs no given value, so that the choice of rule can be judged from the records.
    """
    if not (np.all(np.isfinite(train_scores)) and np.all(np.isfinite(test_scores))):
        return NON_FINITE_SCORES
    cut = choose_threshold(
        threshold.rule, train_scores, test_scores, is_outlier, quantile=threshold.quantile, value=threshold.value
    )
    by_rule = {
        rule: detection_metrics(
            is_outlier,
            test_scores,
            choose_threshold(rule, train_scores, test_scores, is_outlier, quantile=threshold.quantile),
        )["f1"]
        for rule in ("train_quantile", "test_prior", "test_oracle")
    }
    return {
        **detection_metrics(is_outlier, test_scores, cut),
        "threshold_rule": threshold.rule,
        "threshold": cut,
        "f1_by_rule": by_rule,
        "roc_tpr": roc_on_grid(is_outlier, test_scores).tolist(),
        "status": "ok",
        **constant_scores(test_scores),
    }


def evaluate_novelty(method: Method, split: Split, options: Options) -> dict:
    """Fit on the training inliers and measure detection on the test mix.

    Scores are flipped once here from scikit-learn's ``score_samples``
    (higher = more normal) to outlier scores (higher = more abnormal).
    """
    start = time.perf_counter()
    detector = method.fitted_detector(split.X_train)
    fitted = time.perf_counter()
    train_scores = -detector.score_samples(split.X_train)
    test_scores = -detector.score_samples(split.X_test)
    scored = time.perf_counter()
    record = {
        "fit_time": fitted - start,
        "score_time": scored - fitted,
        **fitted_attributes(detector),
        **split_sizes(split),
        **detection_record(options.threshold, train_scores, test_scores, split.is_outlier),
    }
    return with_flags(record, empty_model(detector))


def split_sizes(split) -> dict:
    """Training rows, and test inliers / outliers, of a split with ``is_outlier``."""
    return {
        "n_train": int(split.X_train.shape[0]),
        "n_test_inliers": int(np.sum(~split.is_outlier)),
        "n_test_outliers": int(np.sum(split.is_outlier)),
    }


class Novelty(Protocol):
    name = "novelty"
    description = "train on inliers only, test on a fresh mix of inliers and outliers"
    # Typed as Protocol's, not as this protocol's own: novelty_sweep, a subclass, has its own options and records,
    # and evaluates with its own options.
    options: type = Options
    dataset_keys = DATASET_KEYS
    records: tuple[str, ...] = RECORDS
    reads_draw = True
    check_data = staticmethod(check_novelty_sizes)
    split = staticmethod(novelty_split)
    evaluate: Callable[..., dict] = staticmethod(evaluate_novelty)
    shares_fits = True
    describe = staticmethod(describe)

    def train_rows(self, data: DatasetConfig, options) -> int | None:
        """The training inliers of the dataset entry."""
        return data.train_inliers
