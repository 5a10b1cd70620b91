"""The novelty split's scaling: fitted on the training rows, on training and test rows together, or on each apart."""

import numpy as np
from numpy.testing import assert_allclose

from kpca_bench.datasets import NUMERIC, Dataset, Provenance
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
    dataset = Dataset(name="toy", X=X, y=np.r_[np.zeros(30), np.ones(10)], feature_kinds=(NUMERIC,) * 3,
                      provenance=Provenance(source="test"))
    data = DatasetConfig(name="toy", scaling="standard", scaling_rows="all", inliers=(0.0,), outliers=(1.0,),
                         train_inliers=20, test_inliers=10, test_outliers=10)
    split = novelty_split(dataset, data, None, seed=1)
    assert_allclose(np.vstack([split.X_train, split.X_test]).std(axis=0), 1.0)
    assert split.X_train.std(axis=0).max() < 0.8
