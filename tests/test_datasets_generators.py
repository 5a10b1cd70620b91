"""The toy-data generators follow the papers' recipes and are reproducible from their seed."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from kpca_bench.datasets import load_dataset
from kpca_bench.errors import DataError

GENERATED = ["gaussian_mixture", "parabola", "li_artificial_2d", "half_moons"]


@pytest.mark.parametrize("name", GENERATED)
def test_same_seed_same_data_other_seed_other_data(name):
    first = load_dataset(name, random_state=3)
    assert_array_equal(first.X, load_dataset(name, random_state=3).X)
    assert not np.array_equal(first.X, load_dataset(name, random_state=4).X)
    assert "random_state=3" in first.provenance.notes and first.provenance.files == ()


def test_gaussian_mixture_recipe():
    dataset = load_dataset("gaussian_mixture", n_per_source=2000)
    assert dataset.X.shape == (6000, 2)
    for label, center in enumerate([(-0.5, -0.2), (0.0, 0.6), (0.5, 0.0)]):
        points = dataset.X[dataset.y == label]
        np.testing.assert_allclose(points.mean(axis=0), center, atol=0.01)
        np.testing.assert_allclose(points.std(axis=0), 0.1, atol=0.01)


def test_parabola_recipe():
    X = load_dataset("parabola", n_samples=20000).X
    assert X[:, 0].min() >= -1 and X[:, 0].max() <= 1
    residual = X[:, 1] - X[:, 0] ** 2
    assert abs(residual.mean()) < 0.01 and abs(residual.std() - 0.2) < 0.01


def test_li_artificial_fills_the_unit_square():
    X = load_dataset("li_artificial_2d").X
    assert X.shape == (150, 2)
    assert_array_equal(X.min(axis=0), [0, 0])
    assert_array_equal(X.max(axis=0), [1, 1])


def test_half_moons_two_classes():
    dataset = load_dataset("half_moons", n_samples=50)
    assert dataset.X.shape == (50, 2) and dataset.class_counts() == {0: 25, 1: 25}


@pytest.mark.parametrize("name, option", [("parabola", "n_samples"), ("gaussian_mixture", "n_per_source")])
def test_sizes_must_be_positive_integers(name, option):
    with pytest.raises(DataError, match=f"{option}=0"):
        load_dataset(name, **{option: 0})
