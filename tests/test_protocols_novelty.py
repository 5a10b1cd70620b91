"""The novelty split's scaling: fitted on the training rows, on training and test rows together, or on each apart;
its rows: drawn at random, or taken in file order."""

from dataclasses import replace

import numpy as np
from numpy.testing import assert_allclose

from kpca_bench.datasets import NUMERIC, Dataset, Provenance
from kpca_bench.experiment.config_parser import parse_config
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.protocols.base import DatasetConfig
from kpca_bench.protocols.novelty import novelty_split, scale_split

X_TRAIN = np.array([[0.0, 1.0], [2.0, 3.0]])
X_TEST = np.array([[4.0, 5.0], [8.0, 9.0]])


def test_training_rows_scale_on_the_training_rows_alone():
    train, test = scale_split(DatasetConfig(name="x", scaling="minmax"), X_TRAIN, X_TEST)
    assert_allclose(train, [[0, 0], [1, 1]])
    assert_allclose(test, [[2, 2], [4, 4]])


def test_all_rows_scale_on_training_and_test_rows_together():
    train, test = scale_split(DatasetConfig(name="x", scaling="minmax", scaling_rows="all"), X_TRAIN, X_TEST)
    assert_allclose(train, [[0, 0], [0.25, 0.25]])
    assert_allclose(test, [[0.5, 0.5], [1, 1]])


def test_each_scales_the_training_and_the_test_rows_on_themselves():
    train, test = scale_split(DatasetConfig(name="x", scaling="minmax", scaling_rows="each"), X_TRAIN, X_TEST)
    assert_allclose(train, [[0, 0], [1, 1]])
    assert_allclose(test, [[0, 0], [1, 1]])


def test_the_novelty_split_divides_by_the_standard_deviation_of_all_its_rows():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 3)), rng.normal(0, 5, (10, 3))]
    dataset = Dataset(
        name="toy",
        X=X,
        y=np.r_[np.zeros(30), np.ones(10)],
        feature_kinds=(NUMERIC,) * 3,
        provenance=Provenance(source="test"),
    )
    data = DatasetConfig(
        name="toy",
        scaling="standard",
        scaling_rows="all",
        inliers=(0.0,),
        outliers=(1.0,),
        train_inliers=20,
        test_inliers=10,
        test_outliers=10,
    )
    split = novelty_split(dataset, data, None, seed=1)
    assert_allclose(np.vstack([split.X_train, split.X_test]).std(axis=0), 1.0)
    assert split.X_train.std(axis=0).max() < 0.8


def _ordered_toy():
    """Rows numbered in their first feature; classes 0 and 1 interleaved."""
    X = np.arange(40, dtype=float)[:, np.newaxis] * [1.0, 1.0]
    y = np.tile([0.0, 0.0, 0.0, 1.0], 10)
    return Dataset(name="toy", X=X, y=y, feature_kinds=(NUMERIC,) * 2, provenance=Provenance(source="test"))


def test_file_order_takes_the_first_rows_of_each_class_in_every_trial():
    data = DatasetConfig(
        name="toy", inliers=(0.0,), outliers=(1.0,), train_inliers=5, test_inliers=3, test_outliers=4, draw="file_order"
    )
    for seed in (1, 2):
        split = novelty_split(_ordered_toy(), data, None, seed=seed)
        assert split.X_train[:, 0].tolist() == [0, 1, 2, 4, 5]
        assert split.X_test[:, 0].tolist() == [6, 8, 9, 3, 7, 11, 15]
        assert split.is_outlier.tolist() == [False] * 3 + [True] * 4


def test_random_draw_is_unchanged_by_the_option_and_differs_from_file_order():
    kwargs = dict(name="toy", inliers=(0.0,), outliers=(1.0,), train_inliers=5, test_inliers=3, test_outliers=4)
    default = novelty_split(_ordered_toy(), DatasetConfig(**kwargs), None, seed=1)
    explicit = novelty_split(_ordered_toy(), DatasetConfig(**kwargs, draw="random"), None, seed=1)
    rng = np.random.default_rng(1)
    inliers, outliers = rng.permutation(np.flatnonzero(_ordered_toy().y == 0)), rng.permutation(np.arange(3, 40, 4))
    assert_allclose(default.X_train[:, 0], inliers[:5])
    assert_allclose(default.X_test[:, 0], np.r_[inliers[5:8], outliers[:4]])
    assert_allclose(explicit.X_test, default.X_test)
    assert default.X_train[:, 0].tolist() != [0, 1, 2, 4, 5]


def test_first_outliers_draws_the_inliers_as_random_and_takes_the_first_outliers_in_every_trial():
    kwargs = dict(name="toy", inliers=(0.0,), outliers=(1.0,), train_inliers=5, test_inliers=3, test_outliers=4)
    inlier_rows = []
    for seed in (1, 2):
        first = novelty_split(_ordered_toy(), DatasetConfig(**kwargs, draw="first_outliers"), None, seed=seed)
        drawn = novelty_split(_ordered_toy(), DatasetConfig(**kwargs), None, seed=seed)
        assert_allclose(first.X_train, drawn.X_train)
        assert_allclose(first.X_test[:3], drawn.X_test[:3])
        assert first.X_test[3:, 0].tolist() == [3, 7, 11, 15]
        inlier_rows.append(first.X_train[:, 0].tolist())
    assert inlier_rows[0] != inlier_rows[1]


def test_draw_is_in_the_cell_key():
    config = parse_config(
        {
            "name": "toy",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 20,
                "test_inliers": 10,
                "test_outliers": 10,
            },
            "trials": 2,
            "methods": [{"name": "knn"}],
        }
    )
    keys = {cell.key for cell in plan_cells(config)}
    drawn = replace(config, dataset=replace(config.dataset, draw="first_outliers"))
    assert keys.isdisjoint(cell.key for cell in plan_cells(drawn))
