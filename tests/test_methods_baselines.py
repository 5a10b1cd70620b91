import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.methods.baselines import KernelOneClassSVM


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(20, 3))


@pytest.mark.parametrize(
    "params", [{"nu": 1.5}, {"nu": 0.0}, {"tol": 0.0}, {"kernel": "rbff"}, {"sigma": 0.0}, {"gamma": "median"}]
)
def test_invalid_parameters_are_rejected_by_the_declaration(X, params):
    (name,) = params
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of KernelOneClassSVM must be"):
        KernelOneClassSVM(**params).fit(X)


def test_checks_that_combine_parameters_or_need_the_data_stay(X):
    with pytest.raises(ValueError, match="gamma or as sigma, not both"):
        KernelOneClassSVM(gamma=1.0, sigma=1.0).fit(X)
    with pytest.raises(ValueError, match="Hamming kernel takes its lambda as gamma"):
        KernelOneClassSVM(kernel="hamming", gamma=2.0).fit(X.round().clip(0))
    with pytest.raises(ValueError, match="at least 2 training samples"):
        KernelOneClassSVM(sigma=1.0).fit(X[:1])


def test_knn_detector_scores_the_kth_neighbour_distance():
    from scipy.spatial.distance import cdist

    from kpca_bench.methods.baselines import KNNDetector

    rng = np.random.default_rng(0)
    train, test = rng.normal(size=(40, 3)), rng.normal(size=(7, 3))
    distances = np.sort(cdist(test, train), axis=1)
    np.testing.assert_allclose(KNNDetector().fit(train).score_samples(test), -distances[:, 4])
    np.testing.assert_allclose(
        KNNDetector(n_neighbors=3, method="mean").fit(train).score_samples(test), -distances[:, :3].mean(axis=1)
    )


def test_pca_detector_scores_the_squared_reconstruction_error():
    from sklearn.decomposition import PCA

    from kpca_bench.methods.baselines import PCADetector

    rng = np.random.default_rng(1)
    train, test = rng.normal(size=(50, 5)) @ rng.normal(size=(5, 5)), rng.normal(size=(6, 5))
    pca = PCA(n_components=2).fit(train)
    expected = np.sum((test - pca.inverse_transform(pca.transform(test))) ** 2, axis=1)
    np.testing.assert_allclose(PCADetector(n_components=2).fit(train).score_samples(test), -expected, rtol=1e-10)
    assert PCADetector(n_components=0.9).fit(train).pca_.explained_variance_ratio_.sum() >= 0.9


@pytest.mark.parametrize("name", ["knn", "pca"])
def test_suite_detectors_flag_planted_outliers(name):
    from sklearn.metrics import roc_auc_score

    from kpca_bench.methods.registry import METHODS

    rng = np.random.default_rng(2)
    inliers = rng.normal(size=(200, 4)) @ np.diag([3, 2, 0.1, 0.1])
    outliers = rng.normal(0, 3, size=(20, 4))
    detector = METHODS[name].build({}).fit(inliers[:150])
    labels = np.r_[np.ones(50), np.zeros(20)]
    assert roc_auc_score(labels, detector.score_samples(np.r_[inliers[150:], outliers])) > 0.9


@pytest.mark.parametrize("n_samples", [1, 5])
def test_knn_with_no_more_samples_than_neighbours_says_so(n_samples):
    from kpca_bench.methods.baselines import KNNDetector

    X = np.arange(2.0 * n_samples).reshape(n_samples, 2)
    with pytest.raises(
        ValueError, match=f"n_neighbors=5 needs more training samples than neighbours .* got n_samples={n_samples}"
    ):
        KNNDetector(n_neighbors=5).fit(X)
    assert KNNDetector(n_neighbors=5).fit(np.arange(12.0).reshape(6, 2)).offset_ <= 0
