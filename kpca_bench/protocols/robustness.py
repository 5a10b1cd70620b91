"""The robustness protocol (Kim & Klabjan, robustness experiment): clean variation explained by components fitted on corrupted data.

Kim & Klabjan take "original data whose covariance matrix has a low rank",
corrupt ``r%`` of its observations, fit L1-norm and L2-norm kernel PCA on the
corrupted data, and measure how much of the *original* data's variation in
feature space the fitted components explain, for several Gaussian widths and
noise levels.

**One trial's data** (:func:`robustness_split`), all drawn from the trial's seed:

1. the clean sample ``a_1 .. a_n``: ``n = dataset.train_inliers`` rows drawn
   without replacement from the config's dataset (from its ``inliers`` classes
   if given, else from every row);
2. embedded in ``R^D`` (``D`` = option ``ambient_dim``, default the dataset's
   dimension) by appending ``D - d`` zero coordinates, so its covariance has
   rank at most ``d``. The Gaussian kernel and the isotropic noise below are
   rotation invariant, so any other orthonormal embedding gives the same
   distribution of results;
3. noise vectors ``e_i ~ N(0, s^2 I_D)`` with
   ``s^2 = c^2 * mean_i ||a_i - a_bar||^2 / D`` (``c`` = option ``noise_scale``,
   default 10), so that ``E ||e_i|| ~ c`` times the clean sample's RMS radius;
4. a random order of the rows. At corruption level ``r`` (option
   ``corruption``, a list of fractions, default 0, 0.05, 0.1, 0.15, 0.2) the
   first ``round(r n)`` rows of that order are replaced by ``a_i + e_i``. The
   corrupted sets are nested and share their noise, so levels differ only in
   how many rows are corrupted.

**A cell** is (trial, method entry, grid setting, e.g. the width ``sigma``); it
fits the entry's kernel-PCA estimator once per corruption level and records
the explained variation of each (:func:`explained_variation`) in the order of
the ``corruption`` option. Every method must be a kernel-PCA variant.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from kpca_bench.datasets import Dataset
from kpca_bench.errors import ConfigError
from kpca_bench.protocols.base import DatasetConfig, Method, MethodConfig, Protocol, ThresholdConfig, kernel_pca_only
from kpca_bench.protocols.novelty import class_indices, fitted_attributes
from kpca_bench.validation import Problems, is_integer, is_number

DATASET_KEYS = ("train_inliers",)
RECORDS = ("corruption", "explained_variation")


@dataclass(frozen=True)
class Options:
    """Corruption levels (fractions), the noise's scale, and the dimension the sample is embedded in (None: its own)."""

    corruption: tuple[float, ...] = (0.0, 0.05, 0.1, 0.15, 0.2)
    noise_scale: float = 10.0
    ambient_dim: int | None = None


def parse_options(raw: dict, threshold: ThresholdConfig, problems: Problems) -> Options:
    defaults = Options()
    corruption = raw.get("corruption", list(defaults.corruption))
    if not isinstance(corruption, list) or not corruption or not all(is_number(r) and 0 <= r < 1 for r in corruption):
        problems.add("corruption", f"must be a list of fractions in [0, 1), got {corruption!r}")
        corruption = defaults.corruption
    noise_scale = raw.get("noise_scale", defaults.noise_scale)
    if not is_number(noise_scale) or not noise_scale > 0:
        problems.add("noise_scale", f"must be a number > 0, got {noise_scale!r}")
        noise_scale = defaults.noise_scale
    ambient_dim = raw.get("ambient_dim")
    if ambient_dim is not None and (not is_integer(ambient_dim) or ambient_dim < 1):
        problems.add("ambient_dim", f"must be an integer >= the dataset's number of columns, got {ambient_dim!r}")
        ambient_dim = None
    return Options(corruption=tuple(corruption), noise_scale=float(noise_scale), ambient_dim=ambient_dim)


def check_methods(options: Options, methods: tuple[MethodConfig, ...], problems: Problems) -> None:
    kernel_pca_only(methods, problems, "the robustness protocol measures the components of kernel-PCA variants")


@dataclass(frozen=True)
class CorruptionSplit:
    """One trial's clean sample and what corrupts it.

    Attributes
    ----------
    X_train : ndarray of shape (n, D)
        The clean points, whose variation is measured.
    noise : ndarray of shape (n, D)
        ``e_i``, added to the corrupted rows.
    order : ndarray of shape (n,)
        The rows in the order they are corrupted.
    is_outlier : ndarray of bool, shape (n,)
        The rows corrupted at the largest level.
    """

    X_train: np.ndarray
    noise: np.ndarray
    order: np.ndarray
    is_outlier: np.ndarray

    def corrupted(self, fraction: float) -> np.ndarray:
        """The sample with its first ``round(fraction n)`` rows of ``order`` corrupted."""
        rows = self.order[: int(np.rint(fraction * len(self.order)))]
        X = self.X_train.copy()
        X[rows] += self.noise[rows]
        return X


def _ambient_dim(options: Options, dataset_dim: int) -> int:
    return options.ambient_dim if options.ambient_dim is not None else dataset_dim


def describe(data: DatasetConfig, options: Options) -> str:
    ambient = options.ambient_dim if options.ambient_dim is not None else "d"
    return (
        f"{data.train_inliers} clean points per trial, embedded in R^{ambient}; fractions "
        f"{', '.join(f'{r:g}' for r in options.corruption)} of them corrupted by noise of "
        f"{options.noise_scale:g} x their RMS radius"
    )


def check_robustness(dataset: Dataset, data: DatasetConfig, options: Options) -> None:
    """Fail before any work on an embedding below the data's dimension or a sample larger than the data."""
    problems = []
    if options.ambient_dim is not None and options.ambient_dim < dataset.X.shape[1]:
        problems.append(
            f"protocol.ambient_dim: must be an integer >= the dataset's {dataset.X.shape[1]} "
            f"columns, got {options.ambient_dim!r}"
        )
    available = len(_clean_rows(dataset, data))
    assert data.train_inliers is not None, "dataset.train_inliers is required (DATASET_KEYS, checked at config load)"
    if data.train_inliers > available:
        problems.append(
            f"dataset.train_inliers: dataset {dataset.name} has {available} rows to draw from, "
            f"fewer than {data.train_inliers}"
        )
    if problems:
        raise ConfigError("\n".join(problems))


def _clean_rows(dataset: Dataset, data: DatasetConfig) -> np.ndarray:
    if data.inliers:
        return class_indices(dataset, data.inliers, "inliers")
    return np.arange(dataset.X.shape[0])


def robustness_split(dataset: Dataset, data: DatasetConfig, options: Options, seed: int) -> CorruptionSplit:
    """Draw the clean sample, embed it, draw the noise and the corruption order (steps 1-4 above)."""
    ambient_dim = _ambient_dim(options, dataset.X.shape[1])
    rng = np.random.default_rng(seed)
    n = data.train_inliers
    assert n is not None, "dataset.train_inliers is required (DATASET_KEYS, checked at config load)"
    rows = rng.choice(_clean_rows(dataset, data), size=n, replace=False)
    X = np.zeros((n, ambient_dim))
    X[:, : dataset.X.shape[1]] = dataset.X[rows]
    mean_sq_radius = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    noise = rng.normal(scale=options.noise_scale * np.sqrt(mean_sq_radius / ambient_dim), size=X.shape)
    order = rng.permutation(n)
    is_outlier = np.zeros(n, dtype=bool)
    is_outlier[order[: int(np.rint(max(options.corruption) * n))]] = True
    return CorruptionSplit(X_train=X, noise=noise, order=order, is_outlier=is_outlier)


def explained_variation(model, X_clean: np.ndarray) -> float:
    """Share of the clean points' feature-space variance that a fitted model's components explain.

    For orthonormal components ``v_1 .. v_k`` (any fitted kernel-PCA variant,
    e.g. fitted on corrupted data) and clean points ``a_1 .. a_n`` with
    feature-space mean ``mu_a``::

        EV = sum_j sum_i <v_j, phi(a_i) - mu_a>^2 / sum_i ||phi(a_i) - mu_a||^2.

    Dual form: ``model.transform`` gives ``t_ij = <v_j, phi(a_i) - mu_b>``,
    centered on the *fitted* data's mean ``mu_b``; as ``<v_j, mu_a - mu_b>``
    does not depend on ``i``, the numerator is ``n sum_j var_i(t_ij)``. The
    denominator is the trace of the clean kernel centered on the clean mean,
    ``trace(K) - 1^T K 1 / n``. Hence

        EV = sum_j var_i(t_ij) / (mean_i k(a_i, a_i) - mean_il k(a_i, a_l)).

    For the linear kernel this is ``trace(V^T C_a V) / trace(C_a)`` with ``C_a``
    the clean covariance: PCA's explained-variance ratio when ``V`` holds its
    top eigenvectors.
    """
    scores = model.transform(X_clean)
    total = model.kernel_.diag(X_clean).mean() - model.kernel_(X_clean).mean()
    return float(np.var(scores, axis=0).sum() / total)


def evaluate_robustness(method: Method, split: CorruptionSplit, options: Options) -> dict:
    """Fit the kernel-PCA estimator at every corruption level; the clean variation each explains."""
    explained, fit_time, model = [], 0.0, None
    for fraction in options.corruption:
        start = time.perf_counter()
        model = clone(method.estimator).fit(split.corrupted(fraction))
        fit_time += time.perf_counter() - start
        explained.append(explained_variation(model, split.X_train))
    return {
        "fit_time": fit_time,
        "corruption": list(options.corruption),
        "explained_variation": explained,
        **fitted_attributes(model),
        "n_train": int(split.X_train.shape[0]),
        "status": "ok",
    }


class Robustness(Protocol):
    name = "robustness"
    description = "clean variation explained by kernel-PCA components fitted on corrupted data"
    options = Options
    dataset_keys = DATASET_KEYS
    records = RECORDS
    parse_options = staticmethod(parse_options)
    check_methods = staticmethod(check_methods)
    check_data = staticmethod(check_robustness)
    split = staticmethod(robustness_split)
    evaluate = staticmethod(evaluate_robustness)
    describe = staticmethod(describe)

    def train_rows(self, data: DatasetConfig, options) -> int | None:
        """The training inliers of the dataset entry."""
        return data.train_inliers
