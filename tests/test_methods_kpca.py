"""Exact KPCA at the SAS paper's letter size: the eigensolver's accuracy and the one-n x n-matrix contract.

The letter example (16,000 x 16, Gaussian s = 7.071, 200 components) is too big
for a test; the same shape of problem at n = 450 checks ARPACK against LAPACK
``eigh`` (NOTES.md: a fast solver must be checked against eigh on a problem
small enough for both, since the reconstruction error depends on the tail of
the spectrum), and a spy on ``scipy.linalg.eigh`` checks that exact KPCA hands
it its own kernel to overwrite instead of a copy.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench import eigensolvers
from kpca_bench.eigensolvers import choose_solver
from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.methods import KernelPCA, KernelSubspaceDetector, mahalanobis_distance, reconstruction_error
from kpca_bench.protocols.novelty import fitted_attributes


def degree2_features(X):
    """Explicit feature map of (x.y)^2 for 2-D inputs: (x1^2, sqrt(2) x1 x2, x2^2)."""
    return np.c_[X[:, 0] ** 2, np.sqrt(2) * X[:, 0] * X[:, 1], X[:, 1] ** 2]


@pytest.fixture
def data():
    rng = np.random.default_rng(1)
    return rng.normal(size=(60, 2)) @ np.array([[2.0, 0.3], [0.0, 0.7]]), rng.normal(size=(15, 2))


def test_linear_kernel_reconstruction_error_is_the_pca_residual():
    X = np.random.default_rng(2).normal(size=(50, 5))
    model = KernelPCA(2, kernel="linear").fit(X)
    pca = PCA(2).fit(X)
    residual = ((X - pca.inverse_transform(pca.transform(X))) ** 2).sum(axis=1)
    assert_allclose(reconstruction_error(model, X), residual, atol=1e-8)
    assert_allclose(np.abs(model.transform(X)), np.abs(pca.transform(X)), atol=1e-8)


def test_polynomial_kernel_matches_pca_in_the_explicit_feature_space(data):
    train, test = data
    model = KernelPCA(2, kernel="poly", degree=2, coef0=0.0, gamma=1.0).fit(train)
    Phi_train, Phi_test = degree2_features(train), degree2_features(test)
    pca = PCA(2).fit(Phi_train)
    explicit_residual = ((Phi_test - pca.inverse_transform(pca.transform(Phi_test))) ** 2).sum(axis=1)
    assert_allclose(reconstruction_error(model, test), explicit_residual, atol=1e-8)
    assert_allclose(np.abs(model.transform(test)), np.abs(pca.transform(Phi_test)), atol=1e-8)
    # Eigenvalues of the centered kernel are n times the feature-space covariance eigenvalues.
    assert_allclose(model.eigenvalues_, len(train) * pca.explained_variance_ * (len(train) - 1) / len(train))


def test_mahalanobis_equals_the_explicit_feature_space_distance(data):
    train, test = data
    model = KernelPCA(2, kernel="poly", degree=2, coef0=0.0, gamma=1.0).fit(train)
    pca = PCA(2).fit(degree2_features(train))
    scores = pca.transform(degree2_features(test))
    biased_variance = pca.explained_variance_ * (len(train) - 1) / len(train)
    assert_allclose(mahalanobis_distance(model, test), (scores**2 / biased_variance).sum(axis=1), rtol=1e-8)


def test_rbf_matches_scikit_learn_kernel_pca(data):
    train, test = data
    ours = KernelPCA(5, gamma=0.3).fit(train)
    theirs = SklearnKernelPCA(5, kernel="rbf", gamma=0.3).fit(train)
    assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    assert_allclose(np.abs(ours.transform(test)), np.abs(theirs.transform(test)), atol=1e-10)


def test_arpack_agrees_with_eigh(data):
    train, test = data
    exact = KernelPCA(4, sigma=1.0).fit(train)
    lanczos = KernelPCA(4, sigma=1.0, eigen_solver="arpack", random_state=0).fit(train)
    assert_allclose(lanczos.eigenvalues_, exact.eigenvalues_, rtol=1e-8)
    assert_allclose(lanczos.transform(test), exact.transform(test), atol=1e-8)


@pytest.mark.parametrize("eigen_solver", ["eigh", "arpack", "block"])
def test_the_training_projection_kept_at_fit_is_the_projection_of_the_training_points(eigen_solver):
    X = np.random.default_rng(2).normal(size=(300, 4))
    model = KernelPCA(5, sigma=2.0, eigen_solver=eigen_solver, random_state=0).fit(X)
    projected = model.project(X)
    # lambda_j alpha_j = K~ alpha_j up to the residual, ||K~ u - lambda u|| <= 1e-8 lambda_1 (the solvers' contract).
    residual_bound = 1e-8 * model.eigenvalues_[0] / np.sqrt(model.eigenvalues_[-1])
    assert_allclose(model.training_projection_.scores, projected.scores, rtol=0, atol=residual_bound)
    assert_allclose(model.training_projection_.sq_norms, projected.sq_norms, rtol=0, atol=1e-12)


def test_components_are_orthonormal_in_feature_space(data):
    train = data[0]
    model = KernelPCA(6).fit(train)
    K = model.centering_.center_train(model.kernel_(train))
    assert_allclose(model.dual_coef_.T @ K @ model.dual_coef_, np.eye(6), atol=1e-10)
    assert model.gamma_ > 0


def test_too_many_components_is_a_clear_error(data):
    with pytest.raises(ValueError, match="n_components=60 is more than the 59 components"):
        KernelPCA(60).fit(data[0])


@pytest.mark.parametrize(
    "params",
    [
        {"n_components": "ten"},
        {"n_components": 0},
        {"n_components": True},
        {"kernel": "rbff"},
        {"sigma": 0.0},
        {"gamma": "median"},
        {"eigen_solver": "lobpcg"},
        {"random_state": -1},
    ],
)
def test_invalid_parameters_are_rejected_by_the_declaration(data, params):
    (name,) = params
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of KernelPCA must be"):
        KernelPCA(**params).fit(data[0])


def test_at_least_two_training_samples(data):
    with pytest.raises(ValueError, match="at least 2 training samples, got n_samples = 1"):
        KernelPCA(1, sigma=1.0).fit(data[0][:1])


def test_parameters_survive_clone_and_fit_does_not_overwrite_them(data):
    model = KernelPCA(3, gamma=None)
    model.fit(data[0])
    assert model.gamma is None and model.gamma_ > 0
    assert clone(model).get_params() == model.get_params()


def test_detector_follows_scikit_learn_signs():
    rng = np.random.default_rng(3)
    inliers = rng.normal(size=(80, 2))
    outliers = rng.normal(loc=6.0, size=(10, 2))
    detector = KernelSubspaceDetector(KernelPCA(3, sigma=1.0), contamination=0.1).fit(inliers)
    assert np.mean(detector.predict(inliers) == 1) == pytest.approx(0.9, abs=0.02)
    assert np.all(detector.predict(outliers) == -1)
    assert detector.score_samples(outliers).max() < detector.score_samples(inliers).min()


def test_projection_in_small_memory_blocks_equals_one_block(data, monkeypatch):
    train, test = data
    model = KernelPCA(4, sigma=1.0).fit(train)
    whole = model.project(test)
    block_shapes = []
    real_kernel = model.kernel_

    class RecordingKernel:
        def __call__(self, X, Y=None):
            block_shapes.append(X.shape[0])
            return real_kernel(X, Y)

        def diag(self, X):
            return real_kernel.diag(X)

    monkeypatch.setattr(model, "kernel_", RecordingKernel())
    with sklearn.config_context(working_memory=8 * len(train) * 4 / 2**20):  # room for 4 rows
        blocked = model.project(test)
    assert max(block_shapes) == 4 and sum(block_shapes) == len(test)
    assert_allclose(blocked.scores, whole.scores, atol=1e-12)
    assert_allclose(blocked.sq_norms, whole.sq_norms, atol=1e-12)


SIGMA, K_COMPONENTS = 7.071, 200


@pytest.fixture(scope="module")
def letters_like():
    """Integer features 0-15 as in the letter data; 450 training and 100 test rows."""
    X = np.random.default_rng(0).integers(0, 16, size=(550, 16)).astype(float)
    return X[:450], X[450:]


def test_arpack_matches_eigh_on_the_top_200(letters_like):
    train, test = letters_like
    eigh = KernelPCA(K_COMPONENTS, sigma=SIGMA, eigen_solver="eigh").fit(train)
    arpack = KernelPCA(K_COMPONENTS, sigma=SIGMA, eigen_solver="arpack", random_state=0).fit(train)
    assert_allclose(arpack.eigenvalues_, eigh.eigenvalues_, rtol=1e-9)
    # The 200th eigenvalue, where a randomized solver went 3% low, is exact too.
    assert abs(arpack.eigenvalues_[-1] / eigh.eigenvalues_[-1] - 1) < 1e-9
    assert_allclose(reconstruction_error(arpack, test), reconstruction_error(eigh, test), rtol=1e-7, atol=1e-10)
    assert_allclose(np.abs(arpack.transform(test)), np.abs(eigh.transform(test)), atol=1e-7)


def test_block_solver_meets_the_contract_and_reports_it(letters_like):
    """Eigenvalues and scores within 1e-8 relative of eigh; residuals stored and within tolerance."""
    train, test = letters_like
    eigh = KernelPCA(20, sigma=SIGMA, eigen_solver="eigh").fit(train)
    block = KernelPCA(20, sigma=SIGMA, eigen_solver="block", random_state=0).fit(train)
    assert (block.eigen_solver_, eigh.eigen_solver_, eigh.eigen_residuals_) == ("block", "eigh", None)
    assert_allclose(block.eigenvalues_, eigh.eigenvalues_, rtol=1e-8)
    assert np.all(block.eigen_residuals_ <= 1e-8 * block.eigenvalues_[0])
    assert_allclose(reconstruction_error(block, test), reconstruction_error(eigh, test), rtol=1e-8)
    record = fitted_attributes(block)
    assert record["eigen_solver"] == "block"
    assert record["eigen_residual"] == pytest.approx(block.eigen_residuals_.max() / block.eigenvalues_[0])


def test_auto_is_the_default_and_records_its_choice(letters_like):
    train, _ = letters_like
    model = KernelPCA(5, sigma=SIGMA).fit(train)
    assert model.eigen_solver == "auto" and model.eigen_solver_ == choose_solver(len(train), 5) == "eigh"
    assert fitted_attributes(model)["eigen_solver"] == "eigh"


def test_exact_kpca_lets_eigh_overwrite_its_only_kernel_matrix(letters_like, monkeypatch):
    train, _ = letters_like
    seen = {}
    original = eigensolvers.linalg.eigh

    def spy(a, **kwargs):
        seen.update(kwargs, fortran=a.flags.f_contiguous, owner=a.base if a.base is not None else a, before=a.copy())
        return original(a, **kwargs)

    monkeypatch.setattr(eigensolvers.linalg, "eigh", spy)
    model = KernelPCA(K_COMPONENTS, sigma=SIGMA, eigen_solver="eigh").fit(train)
    # In place: LAPACK gets a Fortran-ordered view (no copy is needed) and may destroy it.
    assert seen["overwrite_a"] is True and seen["fortran"]
    assert seen["owner"].shape == (450, 450)
    assert not np.array_equal(seen["owner"], seen["before"].T)  # it was overwritten
    # What the base class used to compute from K after the solve is still right without it.
    K = make_kernel(train, "rbf", sigma=SIGMA)(train)
    K = KernelCentering.fit(K).center_train(K)
    assert_allclose(model.projection_variances_, np.var(K @ model.dual_coef_, axis=0), rtol=1e-8)


@pytest.mark.filterwarnings("ignore:.*zero eigenvalue")
def test_rank_cutoff_positive_keeps_the_rounding_tail():
    X = np.random.default_rng(0).normal(size=(25, 2))
    numerical = KernelPCA(24, kernel="rbf", sigma=30.0).fit(X)
    positive = KernelPCA(24, kernel="rbf", sigma=30.0, rank_cutoff="positive").fit(X)
    live = [int(np.count_nonzero(m.projection_variances_ > 0)) for m in (numerical, positive)]
    assert live[0] < live[1]
    assert_allclose(positive.dual_coef_[:, : live[0]], numerical.dual_coef_[:, : live[0]])
