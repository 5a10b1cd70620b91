"""ADBench's unsupervised protocol (Han et al., NeurIPS 2022, ``adbench/datasets/data_generator.py``).

Each trial (ADBench's *seed*) draws, from the rows of the inlier and outlier classes:

1. at most ``subsample`` rows at random (ADBench subsamples every dataset larger than
   10,000 rows to 10,000 in each seed, for the computational cost; None keeps all);
2. a stratified ``1 - test_size`` / ``test_size`` split (ADBench: 70 / 30, ``stratify=y``);
3. scaling (``dataset.scaling``; ADBench uses ``minmax``) fitted on the training part.

Every detector is fitted on the training part *without labels* (the anomalies in it
included: ADBench's unsupervised setting) and scores the test part; AUROC and AUPRC
(average precision, outliers positive) measure it. ``train_on: inliers`` fits on the
training part's inliers only instead (the clean, semi-supervised variant).

Every detector of a trial is fitted on the same training rows: all of them by default
(ADBench's protocol, up to 7,000 rows after the subsample), or, when a config sets
``max_train``, a stratified sample of at most that many drawn once per trial and used by
every method alike, so that ranks and tests compare fits on the same data. Each record
says how many rows it was fitted on (``n_train``) out of how many (``n_train_rows``) and
whether the cap applied (``train_capped``).

Not reproduced: ADBench duplicates datasets smaller than 1,000 rows up to 1,000 rows
before splitting (so a test row can be a copy of a training row); we do not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split

from kpca_bench.datasets import Dataset
from kpca_bench.errors import DataError
from kpca_bench.protocols.base import DatasetConfig, Method, Protocol, ThresholdConfig, empty_model, with_flags
from kpca_bench.protocols.novelty import class_indices, detection_record, fitted_attributes, scale_split
from kpca_bench.validation import Problems, declared, is_integer

DATASET_KEYS = ("inliers", "outliers")
TRAIN_ON = ("all", "inliers")
RECORDS = (
    "f1",
    "precision",
    "recall",
    "auroc",
    "auprc",
    "threshold",
    "f1_by_rule",
    "roc_tpr",
    "n_train",
    "n_train_rows",
    "train_capped",
)


@dataclass(frozen=True)
class Options:
    """Test share, ADBench's per-trial row cap, the training-row cap of every detector, what is fitted on."""

    test_size: float = 0.3
    subsample: int | None = 10_000
    max_train: int | None = None
    train_on: str = declared(
        "all",
        choices=TRAIN_ON,
        doc="the training rows a detector is fitted on: all of them (unsupervised) or their inliers only",
    )
    threshold: ThresholdConfig = ThresholdConfig()


def parse_options(raw: dict, threshold: ThresholdConfig, problems: Problems) -> Options:
    test_size = raw.get("test_size", 0.3)
    if isinstance(test_size, bool) or not isinstance(test_size, (int, float)) or not 0 < test_size < 1:
        problems.add("test_size", f"must be a number strictly between 0 and 1, got {test_size!r}")
        test_size = 0.3
    caps = {}
    for key, default, minimum in (("subsample", 10_000, 10), ("max_train", None, 10)):
        value = raw.get(key, default)
        if value is not None and (not is_integer(value) or value < minimum):
            problems.add(key, f"must be an integer >= {minimum}, or null for no cap, got {value!r}")
            value = default
        caps[key] = value
    train_on = raw.get("train_on", "all")
    if train_on not in TRAIN_ON:
        problems.add("train_on", f"must be one of {', '.join(TRAIN_ON)}, got {train_on!r}")
        train_on = "all"
    return Options(test_size=float(test_size), train_on=train_on, threshold=threshold, **caps)


def describe(data: DatasetConfig, options: Options) -> str:
    share = round(100 * options.test_size)
    rows = f"at most {options.subsample:,} rows drawn at random, then " if options.subsample else ""
    fitted = (
        "fit on the training part without labels (its anomalies included)"
        if options.train_on == "all"
        else "fit on the training part's inliers only (clean variant)"
    )
    cap = (
        f"; every detector is fitted on the same stratified sample of at most {options.max_train:,} training rows"
        if options.max_train
        else "; every detector is fitted on all the training rows"
    )
    return f"ADBench's protocol: {rows}a stratified {100 - share} / {share} split, {fitted}, score the test part{cap}"


def check_adbench(dataset: Dataset, data: DatasetConfig, options: Options) -> None:
    """Fail before any work if the classes cannot be split with both in each part."""
    n_in = len(class_indices(dataset, data.inliers, "inliers"))
    n_out = len(class_indices(dataset, data.outliers, "outliers"))
    if n_out < 2 or n_in < 2:
        raise DataError(
            f"dataset {dataset.name} has {n_in} inliers and {n_out} outliers; a stratified split "
            "needs at least 2 of each"
        )


@dataclass(frozen=True)
class Split:
    """One trial's data: the training part (with its labels, used only to report and to stratify the cap),
    the test part and its labels, and the training rows every detector is fitted on (None: all)."""

    X_train: np.ndarray
    X_test: np.ndarray
    is_outlier: np.ndarray
    train_is_outlier: np.ndarray
    capped: np.ndarray | None


def adbench_split(dataset: Dataset, data: DatasetConfig, options: Options, seed: int) -> Split:
    rng = np.random.default_rng(seed)
    inliers = class_indices(dataset, data.inliers, "inliers")
    outliers = class_indices(dataset, data.outliers, "outliers")
    rows = np.sort(np.concatenate([inliers, outliers]))
    if options.subsample is not None and len(rows) > options.subsample:
        rows = np.sort(rng.choice(rows, options.subsample, replace=False))
    is_outlier = np.isin(rows, outliers)
    train, test = train_test_split(
        np.arange(len(rows)),
        test_size=options.test_size,
        stratify=is_outlier,
        random_state=int(rng.integers(2**31 - 1)),
    )
    if options.train_on == "inliers":
        train = train[~is_outlier[train]]
    X_train, X_test = scale_split(data, dataset.X[rows[train]], dataset.X[rows[test]])
    capped = None
    if options.max_train is not None and len(train) > options.max_train:
        labels = is_outlier[train]
        stratify = labels if 2 <= labels.sum() <= len(labels) - 2 else None
        capped, _ = train_test_split(
            np.arange(len(train)),
            train_size=options.max_train,
            stratify=stratify,
            random_state=int(rng.integers(2**31 - 1)),
        )
        capped = np.sort(capped)
    return Split(
        X_train=X_train, X_test=X_test, is_outlier=is_outlier[test], train_is_outlier=is_outlier[train], capped=capped
    )


def evaluate_adbench(method: Method, split: Split, options: Options) -> dict:
    """Fit on the training part (the same capped rows for every method, if capped), score the test part.

    Scores are flipped once here from scikit-learn's ``score_samples`` (higher = more
    normal) to outlier scores; F1's ``train_quantile`` cut is taken over the fitted rows.
    """
    rows = split.capped if split.capped is not None else slice(None)
    X_fit = split.X_train[rows]
    start = time.perf_counter()
    detector = method.fitted_detector(X_fit)
    fitted = time.perf_counter()
    train_scores = -detector.score_samples(X_fit)
    test_scores = -detector.score_samples(split.X_test)
    scored = time.perf_counter()
    return with_flags(
        {
            "fit_time": fitted - start,
            "score_time": scored - fitted,
            **fitted_attributes(detector),
            "n_train": int(X_fit.shape[0]),
            "n_train_rows": int(split.X_train.shape[0]),
            "train_capped": bool(X_fit.shape[0] < split.X_train.shape[0]),
            "n_train_outliers": int(np.sum(split.train_is_outlier[rows])),
            "n_test_inliers": int(np.sum(~split.is_outlier)),
            "n_test_outliers": int(np.sum(split.is_outlier)),
            **detection_record(options.threshold, train_scores, test_scores, split.is_outlier),
        },
        empty_model(detector),
    )


class Adbench(Protocol):
    name = "adbench"
    description = "ADBench's unsupervised setting: stratified 70/30 split, fit on the 70 % without labels"
    options = Options
    dataset_keys = DATASET_KEYS
    records = RECORDS
    parse_options = staticmethod(parse_options)
    check_data = staticmethod(check_adbench)
    split = staticmethod(adbench_split)
    evaluate = staticmethod(evaluate_adbench)
    shares_fits = True
    describe = staticmethod(describe)
