import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.kernel_approximation import Nystroem
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.methods.nystrom import NystromKernelPCA, pinv_sqrt
from kpca_bench.methods.scores import mahalanobis_distance, reconstruction_error

KERNELS = [
    pytest.param({"kernel": "rbf", "sigma": 1.5}, 8, id="rbf"),
    pytest.param({"kernel": "poly", "degree": 2, "coef0": 1.0}, 8, id="poly"),
    pytest.param({"kernel": "linear"}, 3, id="linear"),
]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 4)), 1.5 * rng.normal(size=(20, 4))


@pytest.fixture
def blobs():
    X, _ = make_blobs(n_samples=600, centers=8, n_features=5, cluster_std=0.6, random_state=0)
    return X


@pytest.mark.parametrize("landmarks", ["training_points", "random", "kmeans"])
@pytest.mark.parametrize("params, k", KERNELS)
def test_all_training_points_as_landmarks_is_exact_kpca(data, params, k, landmarks):
    X, X_test = data
    landmarks = X if landmarks == "training_points" else landmarks
    exact = KernelPCA(k, **params).fit(X)
    nys = NystromKernelPCA(k, n_landmarks=len(X), landmarks=landmarks, random_state=0, **params).fit(X)
    scale = exact.eigenvalues_[0]
    assert_allclose(nys.eigenvalues_, exact.eigenvalues_, rtol=0, atol=1e-10 * scale)
    assert_allclose(nys.projection_variances_, exact.projection_variances_, rtol=0, atol=1e-10 * scale)
    for Z in (X, X_test):
        # Signs are fixed the way exact KPCA fixes them, so no sign flip is needed.
        assert_allclose(nys.transform(Z), exact.transform(Z), rtol=0, atol=1e-8 * np.sqrt(scale))
        assert_allclose(reconstruction_error(nys, Z), reconstruction_error(exact, Z), rtol=0, atol=1e-8 * scale)
        assert_allclose(mahalanobis_distance(nys, Z), mahalanobis_distance(exact, Z), rtol=1e-8)


@pytest.mark.parametrize("params, k", KERNELS)
def test_components_are_orthonormal_in_feature_space(data, params, k):
    X, _ = data
    nys = NystromKernelPCA(k, n_landmarks=15, random_state=0, **params).fit(X)
    W = nys.kernel_(nys.landmarks_)
    assert nys.dual_coef_.shape == (15, k)
    assert_allclose(nys.dual_coef_.T @ W @ nys.dual_coef_, np.eye(k), atol=1e-8)


def test_low_rank_scores_are_exact_projections(data):
    """With c < n the scores are still <v_j, phi(x) - m> for the true training mean m."""
    X, X_test = data
    nys = NystromKernelPCA(5, n_landmarks=12, sigma=1.5, random_state=0).fit(X)
    K_cross = nys.kernel_(X_test, nys.landmarks_)
    mean_cross = nys.kernel_(X, nys.landmarks_).mean(axis=0)
    assert_allclose(nys.transform(X_test), (K_cross - mean_cross) @ nys.dual_coef_, atol=1e-12)
    train_scores = nys.transform(X)
    assert_allclose(train_scores.mean(axis=0), 0, atol=1e-12)
    assert_allclose(np.sum(train_scores**2, axis=0), nys.eigenvalues_, rtol=1e-10)


@pytest.mark.parametrize("params, k", KERNELS)
def test_training_projection_with_all_points_as_landmarks_is_exact_kpca(data, params, k):
    X, X_test = data
    exact = KernelPCA(k, **params).fit(X)
    nys = NystromKernelPCA(k, landmarks=X, projection="training", **params).fit(X)
    scale = exact.eigenvalues_[0]
    for Z in (X, X_test):
        assert_allclose(nys.transform(Z), exact.transform(Z), rtol=0, atol=1e-8 * np.sqrt(scale))
        assert_allclose(reconstruction_error(nys, Z), reconstruction_error(exact, Z), rtol=0, atol=1e-8 * scale)


def test_training_projection_is_the_centred_kernel_against_all_training_points(data):
    """SAS's scoring step: k~(x, X) U with U = G~ V Lambda^-1, not the landmarks' projection."""
    X, X_test = data
    nys = NystromKernelPCA(5, n_landmarks=12, sigma=1.5, random_state=0, projection="training").fit(X)
    landmarks = NystromKernelPCA(5, n_landmarks=12, sigma=1.5, random_state=0).fit(X)
    assert_allclose(nys.dual_coef_, landmarks.dual_coef_)
    G = nys.kernel_(X, nys.landmarks_) @ pinv_sqrt(nys.kernel_(nys.landmarks_))
    G_centred = G - G.mean(axis=0)
    values, V = np.linalg.eigh(G_centred.T @ G_centred)
    values, V = values[::-1][:5], V[:, ::-1][:, :5]
    U = G_centred @ V / values
    U *= np.sign(np.sum(U * nys.training_coef_, axis=0))  # eigenvectors up to sign
    assert_allclose(nys.eigenvalues_, values, rtol=1e-10)
    assert_allclose(nys.training_coef_, U, atol=1e-10)
    K = nys.kernel_(X)
    K_cross = nys.kernel_(X_test, X)
    K_cross_centred = K_cross - K.mean(axis=0) - K_cross.mean(axis=1, keepdims=True) + K.mean()
    assert_allclose(nys.transform(X_test), K_cross_centred @ U, atol=1e-10)
    sq_norms = 1.0 - 2.0 * K_cross.mean(axis=1) + K.mean()
    assert_allclose(nys.project(X_test).sq_norms, sq_norms, atol=1e-12)
    assert np.abs(nys.transform(X_test) - landmarks.transform(X_test)).max() > 1e-3


def test_reconstruction_error_is_a_distance_that_grows_off_the_landmarks(data):
    X, _ = data
    nys = NystromKernelPCA(5, n_landmarks=12, sigma=1.5, random_state=0).fit(X)
    far = X[:5] + 20.0
    err_train, err_far = reconstruction_error(nys, X), reconstruction_error(nys, far)
    assert np.all(err_train >= -1e-12)
    # phi(far) is unit and orthogonal to every landmark feature, so its squared distance
    # from m_Z + span(v) is 1 + ||m_Z||^2 - ||P_V m_Z||^2; the in-span part alone would miss the 1.
    W = nys.kernel_(nys.landmarks_)
    center_sq_norm = nys.center_coef_ @ W @ nys.center_coef_
    center_scores = nys.center_coef_ @ W @ nys.dual_coef_
    assert_allclose(err_far, 1.0 + center_sq_norm - np.sum(center_scores**2), rtol=1e-6)
    assert err_far.min() > err_train.max()


def test_random_landmarks_equal_sklearn_nystroem_features(blobs):
    """Same landmarks as scikit-learn's Nystroem give the same spectrum: the feature maps agree."""
    k, c, gamma = 10, 30, 0.1
    features = Nystroem(gamma=gamma, n_components=c, random_state=0).fit(blobs)
    F = features.transform(blobs)
    F -= F.mean(axis=0)
    reference = np.linalg.eigvalsh(F.T @ F)[::-1][:k]
    nys = NystromKernelPCA(k, landmarks=blobs[features.component_indices_], gamma=gamma).fit(blobs)
    assert_allclose(nys.eigenvalues_, reference, rtol=1e-10)


def test_kmeans_landmarks_approximate_eigenvalues_better_than_random(blobs):
    k, c, gamma = 10, 30, 0.1
    exact = KernelPCA(k, gamma=gamma).fit(blobs).eigenvalues_

    def rel_error(values):
        return np.linalg.norm(values - exact) / np.linalg.norm(exact)

    random_errors = []
    for seed in range(5):
        F = Nystroem(gamma=gamma, n_components=c, random_state=seed).fit_transform(blobs)
        F -= F.mean(axis=0)
        random_errors.append(rel_error(np.linalg.eigvalsh(F.T @ F)[::-1][:k]))
    kmeans_error = rel_error(NystromKernelPCA(k, n_landmarks=c, gamma=gamma, random_state=0).fit(blobs).eigenvalues_)
    assert max(random_errors) < 0.5  # both approximate the spectrum ...
    assert kmeans_error < 0.02
    assert kmeans_error < min(random_errors)  # ... k-means landmarks better at equal c


def test_same_seed_same_result_and_clone(blobs):
    model = NystromKernelPCA(4, n_landmarks=20, random_state=3)
    a = model.fit(blobs).transform(blobs[:50])
    b = clone(model).fit(blobs).transform(blobs[:50])
    assert_allclose(a, b)
    assert_allclose(model.fit_transform(blobs)[:50], a)
    assert clone(model).get_params() == model.get_params()
    assert not hasattr(clone(model), "dual_coef_")


def test_works_in_subspace_detector(blobs):
    rng = np.random.default_rng(1)
    outliers = rng.uniform(blobs.min(axis=0) - 3, blobs.max(axis=0) + 3, size=(30, blobs.shape[1]))
    test = np.vstack([blobs[:200], outliers])
    scores = {}
    for score in ("reconstruction_error", "mahalanobis"):
        detector = KernelSubspaceDetector(
            NystromKernelPCA(8, n_landmarks=40, gamma=0.1, random_state=0), outlier_score=score
        ).fit(blobs)
        scores[score] = detector.score_samples(test)
        assert scores[score].shape == (230,) and np.all(np.isfinite(scores[score]))
        assert set(np.unique(detector.predict(test))) <= {-1, 1}
    # Higher score_samples = more normal: the clusters beat the uniform noise.
    s = scores["reconstruction_error"]
    assert np.quantile(s[:200], 0.1) > np.quantile(s[200:], 0.9)


def test_parameter_validation(data):
    X, _ = data
    with pytest.raises(ValueError, match="n_landmarks"):
        NystromKernelPCA(6, n_landmarks=5).fit(X)
    with pytest.raises(InvalidParameterError, match="'n_landmarks' parameter of NystromKernelPCA must be an int"):
        NystromKernelPCA(2, n_landmarks=0).fit(X)
    with pytest.raises(InvalidParameterError, match="'landmarks' parameter of NystromKernelPCA must be a str among"):
        NystromKernelPCA(2, landmarks="grid").fit(X)
    with pytest.raises(InvalidParameterError, match="'projection' parameter of NystromKernelPCA must be a str among"):
        NystromKernelPCA(2, projection="exact").fit(X)
    with pytest.raises(ValueError, match="features"):
        NystromKernelPCA(2, n_landmarks=10).fit(X).transform(X[:, :3])
    with pytest.warns(UserWarning, match="more than the 60 training samples"):
        model = NystromKernelPCA(2, n_landmarks=100, landmarks="random").fit(X)
    assert model.n_landmarks_ == 60 and model.n_landmarks == 100
