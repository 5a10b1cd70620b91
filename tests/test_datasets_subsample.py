"""max_rows: a stratified, seeded subsample that keeps each class's share and the file's row order."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_array_equal

from kpca_bench.datasets.base import NUMERIC, Dataset, Provenance
from kpca_bench.datasets.subsample import class_quotas, stratified_rows, subsample


def dataset(n_in: int, n_out: int) -> Dataset:
    y = np.r_[np.zeros(n_in, int), np.ones(n_out, int)]
    return Dataset("d", np.arange(len(y), dtype=float)[:, None], y, (NUMERIC,), Provenance(""))


def test_quotas_keep_the_shares_and_sum_to_the_total():
    assert_array_equal(class_quotas(np.array([950, 50]), 100), [95, 5])
    assert_array_equal(class_quotas(np.array([999, 1]), 10), [9, 1])
    assert class_quotas(np.array([333, 333, 334]), 100).sum() == 100


def test_rows_are_sorted_seeded_and_stratified():
    y = np.r_[np.zeros(900, int), np.ones(100, int)]
    rows = stratified_rows(y, 200, seed=7)
    assert_array_equal(rows, np.sort(rows))
    assert_array_equal(rows, stratified_rows(y, 200, seed=7))
    assert not np.array_equal(rows, stratified_rows(y, 200, seed=8))
    assert np.bincount(y[rows]).tolist() == [180, 20]


def test_subsample_records_itself_and_leaves_small_data_alone():
    small = dataset(10, 2)
    assert subsample(small, 100, seed=0) is small
    sub = subsample(dataset(900, 100), 100, seed=0)
    assert sub.X.shape == (100, 1) and sub.class_counts() == {0: 90, 1: 10}
    assert "max_rows: 100 of 1000 rows, stratified by class, seed 0" in sub.provenance.notes
