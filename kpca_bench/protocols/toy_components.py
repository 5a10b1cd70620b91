"""The toy-components protocol: every kernel principal component of a 2-D sample (Wang & Tanaka, Figs. 1-2, section 4.1).

The toy experiments fit KPCA, SKPCA-l1 (Algorithm 1) and SKPCA-l2,1
(Algorithm 2) on one generated 2-D sample (``gaussian_mixture``: three sources,
90 points, gamma = 10, 8 PCs; ``parabola``: N = 500, gamma = 2, 4 PCs) and
draw, for each component k, the contours of its projection value
``sum_i a_ik k~(x_i, x)`` (eq. 5, on the feature map centered on the sample)
over the plane, with the samples whose coefficient ``a_ik`` is non-zero marked.

A toy config runs like any other (``kpca-bench run reproductions/wang/configs/wang_toy_gaussians.yaml``).
One trial fits each method entry on the whole dataset (the split seed is
unused: the generator's ``random_state`` fixes the sample). The record holds
the fitted dual coefficients, so the figure (``components.png``,
:mod:`kpca_bench.report.components`) is drawn from the records and the
regenerated sample, never by re-fitting. Each row of the figure is a method
entry, each column a component.

Options (``protocol: {name: toy_components, ...}``): ``grid_points`` (default
150) points per axis of the contour grid, ``margin`` (default 0.25) added
around the sample's bounding box.

Each record holds ``sparsity`` (% non-zero coefficients per component, the
project's measure), ``sample_sparsity`` (share of samples with a zero row of
A: unused by every component), ``nonzero`` (non-zero coefficients per
component), ``variance_share`` (share of the sample's feature-space variance
along each unit component), ``fit_time`` and ``gamma``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from kpca_bench.datasets import Dataset
from kpca_bench.devices import to_numpy
from kpca_bench.errors import ConfigError
from kpca_bench.metrics import sparsity_percent
from kpca_bench.protocols.base import DatasetConfig, Method, MethodConfig, Protocol, ThresholdConfig, kernel_pca_only
from kpca_bench.validation import Problems, integer, is_number

RECORDS = ("sparsity", "sample_sparsity", "nonzero", "variance_share", "dual_coef")


@dataclass(frozen=True)
class Options:
    """``grid_points`` per axis of the contour grid and the ``margin`` around the sample's bounding box."""

    grid_points: int = 150
    margin: float = 0.25


def parse_options(raw: dict, threshold: ThresholdConfig, problems: Problems) -> Options:
    grid_points = integer(raw.get("grid_points", 150), "grid_points", problems, 2) or 150
    margin = raw.get("margin", 0.25)
    if not is_number(margin) or margin < 0:
        problems.add("margin", f"must be a number >= 0, got {margin!r}")
        margin = 0.25
    return Options(grid_points=grid_points, margin=float(margin))


def check_methods(options: Options, methods: tuple[MethodConfig, ...], problems: Problems) -> None:
    kernel_pca_only(methods, problems, "the figure draws components")


@dataclass(frozen=True)
class Split:
    """The whole sample as training data; there are no test rows."""

    X_train: np.ndarray


def check_toy(dataset: Dataset, data: DatasetConfig, options: Options) -> None:
    """The sample is 2-D."""
    if dataset.X.shape[1] != 2:
        raise ConfigError(f"dataset.name: {dataset.name} has {dataset.X.shape[1]} features; the contour figure needs 2")


def describe(data: DatasetConfig, options: Options) -> str:
    return "each method is fitted on the whole generated sample; the figure shows every component over the plane"


def toy_split(dataset: Dataset, data: DatasetConfig, options: Options, seed: int) -> Split:
    """The whole sample (the generator's ``random_state`` fixed it; ``seed`` is unused)."""
    return Split(X_train=dataset.X)


def evaluate_toy(method: Method, split: Split, options: Options) -> dict:
    """Fit on the sample; record the dual coefficients and their sparsity."""
    model = clone(method.estimator)
    start = time.perf_counter()
    model.fit(split.X_train)
    fit_time = time.perf_counter() - start
    # A model fitted on a device keeps its arrays there: the record is computed on the host.
    A = to_numpy(model.dual_coef_)
    K = to_numpy(model.centering_.center_train(model.kernel_(model.X_fit_)))
    variance = np.einsum("ij,ij->j", K @ A, K @ A) / np.trace(K)
    return {
        "fit_time": fit_time,
        "gamma": float(model.gamma_),
        "sparsity": sparsity_percent(A),
        "sample_sparsity": float(np.mean(~A.any(axis=1))),
        "nonzero": np.count_nonzero(A, axis=0).tolist(),
        "variance_share": variance.tolist(),
        "dual_coef": A.tolist(),
        "n_train": int(A.shape[0]),
        "status": "ok",
    }


class ToyComponents(Protocol):
    name = "toy_components"
    description = "fit on a whole generated 2-D sample; every component as a contour map"
    options = Options
    records = RECORDS
    parse_options = staticmethod(parse_options)
    check_methods = staticmethod(check_methods)
    check_data = staticmethod(check_toy)
    split = staticmethod(toy_split)
    evaluate = staticmethod(evaluate_toy)
    describe = staticmethod(describe)
