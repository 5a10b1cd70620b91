"""Loaders for the UCI text datasets, read as they are distributed.

Every loader takes ``files`` (registry file name -> located path) plus its
options, and returns a :class:`Dataset` whose ``y`` holds the labels exactly as
the file spells them (integers where the file has integers). Missing values
(``"?"``) are handled per dataset and said in the docstring; a loader whose
dataset has no missing values raises :class:`DataError` if a file has some,
since that means a different copy than the registered one.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from kpca_bench.datasets.base import CATEGORICAL, NUMERIC, Dataset, Provenance
from kpca_bench.datasets.formats import MISSING, read_delimited, to_codes, to_float
from kpca_bench.datasets.options import check_choice
from kpca_bench.errors import DataError

PARTS = ("all", "train", "test")
MISSING_POLICIES = ("drop", "nan")

# Statlog australian.doc: A1, A4, A5, A6, A8, A9, A11, A12 are categorical
# (integer-coded symbols); the others are continuous.
AUSTRALIAN_CATEGORICAL = (0, 3, 4, 5, 7, 8, 10, 11)

SYNTHETIC_CONTROL_CLASSES = (
    "normal",
    "cyclic",
    "increasing_trend",
    "decreasing_trend",
    "upward_shift",
    "downward_shift",
)


def labels(fields: np.ndarray) -> np.ndarray:
    """Class labels as integers when every one is an integer, else as the strings in the file."""
    try:
        return fields.astype(np.int64)
    except ValueError:
        return fields


def table_dataset(
    name: str, features: np.ndarray, y: np.ndarray, path: Path, *, categorical=(), notes: str = ""
) -> Dataset:
    """A dataset from string fields; columns listed in ``categorical`` keep their categories."""
    categorical = set(categorical)
    # Annotated: numpy's stubs give np.empty of a shape of unknown length a 0-d array type.
    X: np.ndarray = np.empty(features.shape, dtype=np.float64)
    categories: list[tuple[str, ...] | None] = [None] * features.shape[1]
    numeric = [j for j in range(features.shape[1]) if j not in categorical]
    X[:, numeric] = to_float(features[:, numeric], path)
    if categorical:
        cat_columns = sorted(categorical)
        X[:, cat_columns], cats = to_codes(features[:, cat_columns])
        for j, names in zip(cat_columns, cats):
            categories[j] = names
    return Dataset(
        name=name,
        X=X,
        y=labels(y),
        feature_kinds=tuple(CATEGORICAL if j in categorical else NUMERIC for j in range(X.shape[1])),
        provenance=Provenance(source="", notes=notes),
        categories=tuple(categories) if categorical else None,
    )


def read_complete(files, name: str, dataset: str, *, header_lines: int = 0) -> tuple[np.ndarray, Path]:
    """The rows of ``files[name]`` and its path, for a dataset that has no missing values."""
    path = files[name]
    rows = read_delimited(path, header_lines=header_lines)
    if (rows == MISSING).any():
        raise DataError(
            f"dataset {dataset!r}: {path} has '?' (missing) values, which the registered copy "
            f"has not; check the file against `kpca-bench datasets verify {dataset}`"
        )
    return rows, path


def drop_missing(rows: np.ndarray, policy: str, dataset: str) -> tuple[np.ndarray, str]:
    """Rows with a ``"?"`` dropped (``"drop"``) or kept as NaN (``"nan"``), and a note saying which."""
    check_choice(dataset, "missing", policy, MISSING_POLICIES)
    incomplete = (rows == MISSING).any(axis=1)
    if policy == "nan":
        return rows, f"{incomplete.sum()} rows with missing values kept as NaN"
    return rows[~incomplete], f"{incomplete.sum()} rows with missing values dropped"


def read_parts(files, names: dict[str, str], part: str, dataset: str) -> tuple[np.ndarray, Path]:
    """Rows of the train and/or test file (train first) of a dataset without missing values."""
    check_choice(dataset, "part", part, PARTS)
    chosen = ["train", "test"] if part == "all" else [part]
    read = [read_complete(files, names[p], dataset) for p in chosen]
    return np.vstack([rows for rows, _ in read]), read[0][1]


def load_australian(*, files, categorical: bool = False) -> Dataset:
    """Statlog Australian credit approval, 690 x 14, classes 0 / 1.

    Default: every column numeric, as Wang & Tanaka use it (scaled to [0, 1]
    by the protocol). ``categorical=True`` marks A1, A4, A5, A6, A8, A9, A11
    and A12 categorical, as ``australian.doc`` describes them. The file has no
    missing values (UCI replaced them before distribution).
    """
    rows, path = read_complete(files, "australian.dat", "australian")
    return table_dataset(
        "australian", rows[:, :14], rows[:, 14], path, categorical=AUSTRALIAN_CATEGORICAL if categorical else ()
    )


def load_breast_cancer_wisconsin(*, files, missing: str = "drop", noise: float = 0.0, noise_seed: int = 0) -> Dataset:
    """Breast Cancer Wisconsin (original): 9 integer features (1-10), class 2 benign / 4 malignant.

    The sample id (column 0) is not a feature. 16 rows have '?' for Bare Nuclei:
    ``missing="drop"`` (default) removes them, as the SAS paper does (683 rows
    remain); ``missing="nan"`` keeps all 699 rows with NaN.

    ``noise`` > 0 adds uniform noise in ``[-noise, noise]`` times each feature's
    standard deviation over the loaded rows, drawn once with ``noise_seed``.
    Shen & Asgharzadeh (following Hoffmann 2007) scale the features to
    unit variance and add uniform noise in [-0.05, 0.05] "to prevent the
    potential numerical errors that are caused by discrete integer values":
    ``noise=0.05`` is that noise in those units. The same noisy copy serves
    every trial; the protocol's scaling then applies as usual.
    """
    path = files["breast-cancer-wisconsin.data"]
    rows, note = drop_missing(read_delimited(path), missing, "breast_cancer_wisconsin")
    dataset = table_dataset("breast_cancer_wisconsin", rows[:, 1:10], rows[:, 10], path, notes=note)
    if not noise:
        return dataset
    if not noise > 0:
        raise DataError(f"dataset 'breast_cancer_wisconsin': option noise must be >= 0, got {noise!r}")
    X = dataset.X
    jitter = np.random.default_rng(noise_seed).uniform(-noise, noise, X.shape) * np.nanstd(X, axis=0, ddof=1)
    return replace(
        dataset,
        X=X + jitter,
        provenance=replace(
            dataset.provenance,
            notes=f"{note}; uniform noise of +-{noise:g} feature standard deviations (seed {noise_seed})",
        ),
    )


CLIMATE_COLUMNS = ("parameters", "all")


def load_climate_model_crashes(*, files, columns: str = "parameters") -> Dataset:
    """Climate model simulation crashes: class = outcome (0 failure, 1 success).

    ``columns``: ``"parameters"`` (default, our choice) keeps the 18 parameter
    columns; Study and Run (columns 0-1) identify the simulation and are not
    physical parameters. ``"all"`` keeps them too, 20 features, the count of
    Wang & Tanaka's Table 1 (its text names no columns).
    """
    check_choice("climate_model_crashes", "columns", columns, CLIMATE_COLUMNS)
    rows, path = read_complete(files, "pop_failures.dat", "climate_model_crashes", header_lines=1)
    first = 0 if columns == "all" else 2
    return table_dataset("climate_model_crashes", rows[:, first:20], rows[:, 20], path)


def load_spectf(*, files, part: str = "all") -> Dataset:
    """SPECTF heart: 44 integer features, class 0 (abnormal) / 1 (normal).

    ``part``: "all" (default, train then test, 267 rows, as Li et al. use it),
    "train" (80) or "test" (187).
    """
    rows, path = read_parts(files, {"train": "SPECTF.train", "test": "SPECTF.test"}, part, "spectf")
    return table_dataset("spectf", rows[:, 1:], rows[:, 0], path)


def load_spect(*, files, part: str = "all") -> Dataset:
    """SPECT heart: 22 binary features, categorical (Li et al. use the Hamming kernel), class 0 / 1.

    ``part``: "all" (default, 267 rows), "train" (80) or "test" (187).
    """
    rows, path = read_parts(files, {"train": "SPECT.train", "test": "SPECT.test"}, part, "spect")
    return table_dataset("spect", rows[:, 1:], rows[:, 0], path, categorical=range(22))


def load_ann_thyroid(*, files, part: str = "train") -> Dataset:
    """Thyroid (ann-thyroid): 21 features, class 1 hyperfunction / 2 subnormal / 3 normal.

    ``part``: "train" (default, 3772 rows, the set Li et al. describe), "test"
    (3428) or "all". Both the registered comma-separated copy (with a trailing
    comma) and UCI's blank-separated original parse the same way.
    """
    rows, path = read_parts(files, {"train": "ann-train.data", "test": "ann-test.data"}, part, "ann_thyroid")
    return table_dataset("ann_thyroid", rows[:, :21], rows[:, 21], path)


def load_wine_quality_red(*, files) -> Dataset:
    """Wine quality, red: 11 physico-chemical features, class = quality score (3-8 occur)."""
    rows, path = read_complete(files, "winequality-red.csv", "wine_quality_red", header_lines=1)
    return table_dataset("wine_quality_red", rows[:, :11], rows[:, 11], path)


def load_yeast(*, files) -> Dataset:
    """Yeast: 8 numeric features, class = localisation site (CYT, NUC, ...); the sequence name is dropped."""
    rows, path = read_complete(files, "yeast.data", "yeast")
    return table_dataset("yeast", rows[:, 1:9], rows[:, 9], path)


def load_balance_scale(*, files) -> Dataset:
    """Balance scale: 4 features (weights and distances 1-5), class L / B / R.

    The features are integers, but Li et al. treat them as 4 categorical
    attributes (Hamming kernel), so they are categorical here; use
    ``Dataset.one_hot()`` or the codes as needed.
    """
    rows, path = read_complete(files, "balance-scale.data", "balance_scale")
    return table_dataset("balance_scale", rows[:, 1:], rows[:, 0], path, categorical=range(4))


def load_kr_vs_kp(*, files) -> Dataset:
    """Chess King-Rook vs King-Pawn: 36 categorical features, class won / nowin."""
    rows, path = read_complete(files, "kr-vs-kp.data", "kr_vs_kp")
    return table_dataset("kr_vs_kp", rows[:, :36], rows[:, 36], path, categorical=range(36))


def load_tic_tac_toe(*, files) -> Dataset:
    """Tic-tac-toe endgame: 9 categorical board squares (x / o / b), class positive / negative."""
    rows, path = read_complete(files, "tic-tac-toe.data", "tic_tac_toe")
    return table_dataset("tic_tac_toe", rows[:, :9], rows[:, 9], path, categorical=range(9))


def load_ionosphere(*, files) -> Dataset:
    """Ionosphere radar returns: 34 numeric features (the second is constant 0), class g / b."""
    rows, path = read_complete(files, "ionosphere.data", "ionosphere")
    return table_dataset("ionosphere", rows[:, :34], rows[:, 34], path)


def load_letter_recognition(*, files) -> Dataset:
    """Letter recognition: 16 integer features, class = capital letter A-Z (20,000 rows)."""
    rows, path = read_complete(files, "letter-recognition.data", "letter_recognition")
    return table_dataset("letter_recognition", rows[:, 1:], rows[:, 0], path)


def load_synthetic_control(*, files) -> Dataset:
    """Synthetic control chart time series: 600 series of length 60, 6 classes of 100.

    The file has no labels; by UCI convention rows 1-100, 101-200, ... are the
    classes normal, cyclic, increasing_trend, decreasing_trend, upward_shift,
    downward_shift, which become ``y``.
    """
    rows, path = read_complete(files, "synthetic_control.data", "synthetic_control")
    if rows.shape[0] % len(SYNTHETIC_CONTROL_CLASSES):
        raise DataError(f"{path}: {rows.shape[0]} rows cannot be {len(SYNTHETIC_CONTROL_CLASSES)} equal class blocks")
    y = np.repeat(SYNTHETIC_CONTROL_CLASSES, rows.shape[0] // len(SYNTHETIC_CONTROL_CLASSES))
    return table_dataset("synthetic_control", rows, y, path, notes="labels from row blocks of 100")


def load_internet_ads(*, files, missing: str = "drop") -> Dataset:
    """Internet advertisements (UCI ad.data): 1,558 features, class "ad." / "nonad." as in the file.

    Columns 0-2 (height, width, aspect ratio) are continuous and column 3
    (local) binary; all four may be '?'. The other 1,554 are 0/1 indicators.
    All are numeric. ``missing="drop"`` (default) removes incomplete rows
    (about 28% of them; 2,359 of 3,279 rows are complete, as in other
    published uses of the data). Das et al. do not say what they did; their
    test set of 380 ads, fewer than the 458 in the file, is consistent with
    dropping. ``missing="nan"`` keeps every row, with NaN.
    """
    path = files["ad.data"]
    rows, note = drop_missing(read_delimited(path), missing, "internet_ads")
    return table_dataset("internet_ads", rows[:, :-1], rows[:, -1], path, notes=note)
