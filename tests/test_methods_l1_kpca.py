import itertools
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.methods.l1_kpca import L1KernelPCA, l1_fixed_point


def brute_force_l1_pca(X):
    """Exact L1-PCA direction: max_{||w||=1} sum_i |x_i^T w| = max over sign vectors s of ||X^T s||."""
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=X.shape[0])))
    norms = np.linalg.norm(signs @ X, axis=1)
    best = np.argmax(norms)
    return norms[best], signs[best] @ X / norms[best]


def centered_kernel(model, X):
    K = model.kernel_(X)
    return model.centering_.center_train(K)


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    return rng.normal(size=(80, 3)) * [2.0, 1.0, 0.5]


@pytest.mark.parametrize("seed", range(4))
def test_linear_kernel_matches_brute_force_l1_pca(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(9, 3)) * [3.0, 1.0, 0.5]
    X[0] += 6.0  # one influential point, where L1 and L2 directions differ
    model = L1KernelPCA(2, kernel="linear", n_restarts=10, random_state=seed).fit(X)
    Xc = X - X.mean(axis=0)
    W = Xc.T @ model.dual_coef_  # primal directions
    for j in range(2):
        optimum, direction = brute_force_l1_pca(Xc)
        assert_allclose(model.objective_history_[j][-1], optimum, rtol=1e-10)
        assert_allclose(np.abs(direction @ W[:, j]), 1.0, rtol=1e-10)
        assert_allclose(np.abs(Xc @ W[:, j]).sum(), optimum, rtol=1e-10)
        Xc = Xc - np.outer(Xc @ W[:, j], W[:, j])  # greedy deflation of the data


def test_linear_kernel_matches_grid_search_in_2d():
    rng = np.random.default_rng(5)
    X = rng.standard_t(df=2, size=(30, 2)) * [2.0, 1.0]
    model = L1KernelPCA(1, kernel="linear", random_state=0).fit(X)
    Xc = X - X.mean(axis=0)
    angles = np.linspace(0, np.pi, 200_001)
    grid = np.abs(Xc @ np.vstack([np.cos(angles), np.sin(angles)])).sum(axis=0)
    assert_allclose(model.objective_history_[0][-1], grid.max(), rtol=1e-8)


@pytest.mark.parametrize("kernel_params", [{"kernel": "rbf"}, {"kernel": "poly", "degree": 2}, {"kernel": "linear"}])
@pytest.mark.parametrize("seed", range(3))
def test_objective_never_decreases_and_iteration_terminates(X, kernel_params, seed):
    model = L1KernelPCA(3, n_restarts=4, max_iter=1000, random_state=seed, **kernel_params)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X)
    assert len(model.objective_history_) == 3
    n_iters = [len(history) - 1 for history in model.objective_history_]
    assert model.n_iter_ == max(n_iters) < 1000
    for history, n_iter in zip(model.objective_history_, n_iters):
        assert n_iter >= 1
        assert np.all(np.diff(history) >= -1e-12 * history[-1])
    # Every start, not only the one kept, is monotone and ends at a fixed point.
    K = centered_kernel(model, X)
    rng = np.random.default_rng(seed)
    C = rng.standard_normal((len(X), 20))
    C /= np.sqrt(np.einsum("ij,ij->j", C, K @ C))
    C, history, n_iter, converged = l1_fixed_point(K, C, max_iter=1000)
    assert converged.all() and n_iter.max() < 1000
    assert np.all(np.diff(history, axis=0) >= -1e-12 * history[-1])
    # At a fixed point c = s / sqrt(s^T K s) with s = sign(K c), and sqrt(s^T K s) = sum_i |(K c)_i|.
    P = K @ C
    assert_allclose(C, np.where(P >= 0, 1.0, -1.0) / np.abs(P).sum(axis=0), rtol=1e-10)


def test_max_iter_reached_warns(X):
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        L1KernelPCA(2, n_restarts=0, max_iter=1, random_state=0).fit(X)


@pytest.mark.parametrize("kernel_params", [{"kernel": "rbf"}, {"kernel": "poly", "degree": 2}])
def test_components_are_orthonormal_in_feature_space(X, kernel_params):
    model = L1KernelPCA(6, random_state=0, **kernel_params).fit(X)
    K = centered_kernel(model, X)
    assert_allclose(model.dual_coef_.T @ K @ model.dual_coef_, np.eye(6), atol=1e-9)


def test_deflation_formula_projects_the_component_out(X):
    """K' = (I - K c c^T) K (I - c c^T K) = K - (Kc)(Kc)^T removes v from every feature."""
    model = L1KernelPCA(2, random_state=0).fit(X)
    K = centered_kernel(model, X)
    c = model.dual_coef_[:, 0]
    P = np.eye(len(X)) - K @ np.outer(c, c)
    deflated = P @ K @ P.T
    assert_allclose(deflated, K - np.outer(K @ c, K @ c), atol=1e-10)
    assert_allclose(deflated @ c, 0, atol=1e-10)
    # The second component is the top L1 direction of the deflated kernel.
    p2 = K @ model.dual_coef_[:, 1]
    assert_allclose(np.abs(p2).sum(), model.objective_history_[1][-1], rtol=1e-10)


def test_l1_objective_at_least_that_of_the_kpca_component(X):
    model = L1KernelPCA(1, n_restarts=0, random_state=0).fit(X)
    kpca = KernelPCA(1).fit(X)
    l1_of_kpca = np.abs(kpca.transform(X)).sum()
    assert_allclose(model.objective_history_[0][0], l1_of_kpca, rtol=1e-10)  # the KPCA start
    assert model.objective_history_[0][-1] >= l1_of_kpca


def test_does_not_modify_the_centered_kernel(X):
    model = L1KernelPCA(3, random_state=0)
    model.fit(X)
    K = centered_kernel(model, X)
    # projection_variances_ is computed by the base class from K_centered after the fit.
    assert_allclose(model.projection_variances_, np.var(K @ model.dual_coef_, axis=0), rtol=1e-12)


def test_rank_deficient_kernel_gives_zero_components():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.warns(UserWarning, match="rank 2"):
        model = L1KernelPCA(4, kernel="linear", random_state=0).fit(X)
    assert_allclose(model.dual_coef_[:, 2:], 0)
    assert np.all(np.abs(model.dual_coef_[:, :2]).max(axis=0) > 0)


def test_same_seed_same_result_and_clone(X):
    model = L1KernelPCA(3, random_state=7)
    a = model.fit(X).transform(X[:10])
    b = clone(model).fit(X).transform(X[:10])
    assert_allclose(a, b)
    assert_allclose(model.fit_transform(X)[:10], a)
    assert not hasattr(clone(model), "dual_coef_")


def test_parameter_validation(X):
    with pytest.raises(InvalidParameterError, match="'n_restarts' parameter of L1KernelPCA must be"):
        L1KernelPCA(2, n_restarts=-1).fit(X)
    with pytest.raises(InvalidParameterError, match="'max_iter' parameter of L1KernelPCA must be"):
        L1KernelPCA(2, max_iter=0).fit(X)


def test_works_in_subspace_detector_on_planted_outliers():
    rng = np.random.default_rng(3)
    angles = rng.uniform(0, 2 * np.pi, 300)
    ring = np.column_stack([np.cos(angles), np.sin(angles)]) * 3 + 0.1 * rng.normal(size=(300, 2))
    train, inliers = ring[:200], ring[200:]
    outliers = rng.uniform(-1.5, 1.5, size=(40, 2))
    test, y = np.vstack([inliers, outliers]), np.r_[np.zeros(100), np.ones(40)]
    for score in ("reconstruction_error", "mahalanobis"):
        detector = KernelSubspaceDetector(L1KernelPCA(6, sigma=1.0, random_state=0), outlier_score=score).fit(train)
        s = detector.score_samples(test)
        assert np.all(np.isfinite(s))
        assert set(np.unique(detector.predict(test))) <= {-1, 1}
    auroc = roc_auc_score(
        y, -KernelSubspaceDetector(L1KernelPCA(6, sigma=1.0, random_state=0)).fit(train).score_samples(test)
    )
    assert auroc > 0.9
