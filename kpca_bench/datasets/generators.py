"""Synthetic datasets of the papers' toy experiments, drawn from a seed.

Each generator takes ``random_state`` (an int, default 0, so a config without
one still gives the same data every run) and its size parameters.
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_moons
from sklearn.utils import check_random_state

from kpca_bench.datasets.base import NUMERIC, Dataset, Provenance
from kpca_bench.errors import DataError

GAUSSIAN_MIXTURE_CENTERS = ((-0.5, -0.2), (0.0, 0.6), (0.5, 0.0))


def _positive(dataset: str, **sizes) -> None:
    for option, value in sizes.items():
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise DataError(f"dataset {dataset!r}: option {option}={value!r} must be a positive integer")


def _generated(name: str, X: np.ndarray, y: np.ndarray, recipe: str, random_state) -> Dataset:
    return Dataset(
        name=name,
        X=X,
        y=y,
        feature_kinds=(NUMERIC,) * X.shape[1],
        provenance=Provenance(source="", notes=f"{recipe}; random_state={random_state}"),
    )


def gaussian_mixture(*, n_per_source: int = 30, sd: float = 0.1, random_state=0) -> Dataset:
    """Three isotropic Gaussian sources at (-0.5, -0.2), (0, 0.6), (0.5, 0), ``n_per_source`` points each.

    Wang & Tanaka, section 4.1.1 (90 points, standard deviation 0.1). ``y`` is
    the source index 0, 1, 2.
    """
    _positive("gaussian_mixture", n_per_source=n_per_source)
    rng = check_random_state(random_state)
    centers = np.repeat(np.array(GAUSSIAN_MIXTURE_CENTERS), n_per_source, axis=0)
    X = centers + rng.normal(scale=sd, size=centers.shape)
    y = np.repeat(np.arange(len(GAUSSIAN_MIXTURE_CENTERS)), n_per_source)
    return _generated("gaussian_mixture", X, y, f"3 Gaussians, {n_per_source} each, sd {sd}", random_state)


def parabola(*, n_samples: int = 500, noise: float = 0.2, random_state=0) -> Dataset:
    """Points on a noisy parabola: x ~ U[-1, 1], y = x^2 + N(0, noise^2).

    Wang & Tanaka, section 4.1.2 (N = 500, noise standard deviation 0.2).
    One class (label 0).
    """
    _positive("parabola", n_samples=n_samples)
    rng = check_random_state(random_state)
    x = rng.uniform(-1.0, 1.0, size=n_samples)
    X = np.column_stack([x, x**2 + rng.normal(scale=noise, size=n_samples)])
    return _generated(
        "parabola", X, np.zeros(n_samples, dtype=np.int64), f"parabola, N={n_samples}, noise sd {noise}", random_state
    )


def li_artificial_2d(*, n_samples: int = 150, random_state=0) -> Dataset:
    """Li et al. IV.A: Gaussian with mean (0.5, 0.5) and diagonal covariance (1, 0.1), min-max scaled to [0, 1]^2.

    One class (label 0); the paper's test grid over [0, 1]^2 belongs to the
    protocol, not to the dataset.
    """
    _positive("li_artificial_2d", n_samples=n_samples)
    rng = check_random_state(random_state)
    X = rng.multivariate_normal([0.5, 0.5], np.diag([1.0, 0.1]), size=n_samples)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    return _generated(
        "li_artificial_2d",
        X,
        np.zeros(n_samples, dtype=np.int64),
        f"Gaussian N={n_samples}, scaled to [0,1]^2",
        random_state,
    )


def half_moons(*, n_samples: int = 200, noise: float = 0.1, random_state=0) -> Dataset:
    """Two interleaving half circles (scikit-learn ``make_moons``), labels 0 / 1."""
    _positive("half_moons", n_samples=n_samples)
    X, y = make_moons(n_samples=n_samples, noise=noise, random_state=random_state)
    return _generated("half_moons", X, y.astype(np.int64), f"make_moons, noise {noise}", random_state)
