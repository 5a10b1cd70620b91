"""Naive thresholding matched to SKPCA (Das, Golatkar & Awate, section V): m from SKPCA at the same setting."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning

from kpca_bench.methods.registry import METHODS
from kpca_bench.methods.sparse_enet import NaiveThresholdKPCA, SparseKernelPCA, average_nonzero


@pytest.fixture(scope="module")
def zeros():
    X, y = load_digits(return_X_y=True)
    return X[y == 0][:80].astype(float)


def fit_quietly(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)


@pytest.mark.parametrize("l1_ratio", [0.3, 0.7])
def test_matched_m_is_skpcas_average_nonzero(zeros, l1_ratio):
    skpca = fit_quietly(SparseKernelPCA(5, l1_ratio=l1_ratio), zeros)
    m = average_nonzero(skpca.dual_coef_)
    assert m < len(zeros)
    naive = fit_quietly(NaiveThresholdKPCA(5, match_l1_ratio=l1_ratio), zeros)
    assert naive.n_keep_ == m
    assert_array_equal(naive.n_nonzero_, m)
    given = NaiveThresholdKPCA(5, n_nonzero=m).fit(zeros)
    assert_array_equal(naive.dual_coef_, given.dual_coef_)


def test_matched_m_follows_the_skpca_parameters(zeros):
    skpca = fit_quietly(SparseKernelPCA(5, l1_ratio=0.5, alpha=0.5, max_iter=2), zeros)
    naive = fit_quietly(NaiveThresholdKPCA(5, match_l1_ratio=0.5, match_alpha=0.5, match_max_iter=2), zeros)
    assert naive.n_keep_ == average_nonzero(skpca.dual_coef_)


def test_matching_validates(zeros):
    with pytest.raises(ValueError, match="not both"):
        NaiveThresholdKPCA(5, n_nonzero=3, match_l1_ratio=0.5).fit(zeros)
    with pytest.raises(ValueError, match="l1_ratio"):
        NaiveThresholdKPCA(5, match_l1_ratio=1.5).fit(zeros)
    assert "match_l1_ratio" in METHODS["naive_threshold"].param_names()
