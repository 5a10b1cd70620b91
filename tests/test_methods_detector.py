import warnings

import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.kernels import Kernel
from kpca_bench.methods import KernelPCA, KernelSubspaceDetector
from kpca_bench.methods.detector import around_subspace, fitted_subspace
from kpca_bench.methods.nystrom import NystromKernelPCA
from kpca_bench.methods.sparse_enet import SparseKernelPCA


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(20, 3))


@pytest.mark.parametrize(
    "params", [{"outlier_score": "euclidean"}, {"contamination": 0.0}, {"contamination": 0.6}, {"estimator": PCA(2)}]
)
def test_invalid_parameters_are_rejected_by_the_declaration(X, params):
    (name,) = params
    detector = KernelSubspaceDetector(**{"estimator": KernelPCA(2, sigma=1.0), **params})
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of KernelSubspaceDetector must be"):
        detector.fit(X)


def test_the_wrapped_estimator_validates_its_own_parameters(X):
    with pytest.raises(InvalidParameterError, match="'n_components' parameter of KernelPCA must be"):
        KernelSubspaceDetector(KernelPCA("ten")).fit(X)


@pytest.mark.parametrize(
    "estimator",
    [
        KernelPCA(3, sigma=1.5),
        KernelPCA(3, sigma=1.5, eigen_solver="arpack"),
        SparseKernelPCA(3, sigma=1.5),
        NystromKernelPCA(3, n_landmarks=15, sigma=1.5),
    ],
    ids=["exact eigh", "exact arpack", "sparse", "nystrom"],
)
@pytest.mark.parametrize("outlier_score", ["reconstruction_error", "mahalanobis"])
def test_the_offset_is_the_contamination_quantile_of_the_training_scores(X, estimator, outlier_score):
    detector = KernelSubspaceDetector(estimator, outlier_score=outlier_score, contamination=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        detector.fit(X)
    expected = np.quantile(detector.score_samples(X), 0.2)
    assert detector.offset_ == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_fitting_builds_the_training_kernel_once(X, monkeypatch):
    calls = []
    build = Kernel.__call__
    monkeypatch.setattr(Kernel, "__call__", lambda self, *args: calls.append(len(args)) or build(self, *args))
    KernelSubspaceDetector(KernelPCA(3, sigma=1.5)).fit(X)
    assert calls == [1]


@pytest.mark.parametrize(
    "estimator",
    [
        KernelPCA(3, sigma=1.5, eigen_solver="arpack", random_state=4),
        NystromKernelPCA(3, n_landmarks=15, sigma=1.5, random_state=4),
    ],
    ids=["exact arpack", "nystrom"],
)
@pytest.mark.parametrize(
    "fitted_score, other_score", [("reconstruction_error", "mahalanobis"), ("mahalanobis", "reconstruction_error")]
)
def test_one_fit_scored_two_ways_equals_fresh_fits_with_the_same_seed(X, estimator, fitted_score, other_score):
    subspace = fitted_subspace(KernelSubspaceDetector(estimator, outlier_score=fitted_score), X)
    X_new = np.random.default_rng(1).normal(size=(7, 3))
    for score in (fitted_score, other_score):
        around = around_subspace(KernelSubspaceDetector(estimator, outlier_score=score, contamination=0.2), subspace, X)
        fresh = KernelSubspaceDetector(estimator, outlier_score=score, contamination=0.2).fit(X)
        assert around.estimator_ is subspace and around.outlier_score == score
        assert around.offset_ == fresh.offset_ and around.n_features_in_ == 3
        np.testing.assert_array_equal(around.score_samples(X_new), fresh.score_samples(X_new))
        np.testing.assert_array_equal(around.predict(X_new), fresh.predict(X_new))


def test_a_detector_around_a_fit_checks_its_score(X):
    subspace = fitted_subspace(KernelSubspaceDetector(KernelPCA(3, sigma=1.5)), X)
    message = "outlier_score must be one of reconstruction_error, mahalanobis, got 'euclidean'"
    with pytest.raises(ValueError, match=message):
        around_subspace(KernelSubspaceDetector(KernelPCA(3, sigma=1.5), outlier_score="euclidean"), subspace, X)
