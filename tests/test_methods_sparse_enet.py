"""Naive thresholding matched to SKPCA (Das, Golatkar & Awate, section V): m from SKPCA at the same setting."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import linalg
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import ElasticNet
from sklearn.metrics import roc_auc_score
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.methods import KernelPCA, KernelSubspaceDetector
from kpca_bench.methods.registry import METHODS
from kpca_bench.methods.sparse_enet import (
    NaiveThresholdKPCA,
    SparseKernelPCA,
    average_nonzero,
    corollary1_update,
    elastic_net_columns,
    enet_penalties,
)


def centered_rbf(X, gamma=None):
    K = make_kernel(X, "rbf", gamma=gamma)(X)
    return KernelCentering.fit(K).center_train(K)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X.astype(float), y


@pytest.fixture(scope="module")
def zeros(digits):
    X, y = digits
    return X[y == 0][:90]


@pytest.fixture(scope="module")
def K_small():
    X = np.random.default_rng(0).normal(size=(40, 3))
    return centered_rbf(X)


def random_feasible(K, m, rng):
    """A random alpha with alpha^T K alpha = I."""
    Z = rng.normal(size=(K.shape[0], m))
    values, vectors = np.linalg.eigh(Z.T @ K @ Z)
    return Z @ vectors / np.sqrt(values) @ vectors.T


def fit_quietly(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)


# --- the elastic-net step, eq. (11) ----------------------------------------------------------------


@pytest.mark.parametrize("alpha, l1_ratio", [(1.0, 0.7), (0.2, 0.3)])
def test_elastic_net_step_is_the_documented_scikit_learn_elastic_net(K_small, alpha, l1_ratio):
    n, rng = K_small.shape[0], np.random.default_rng(1)
    A = random_feasible(K_small, 3, rng) * 4.0
    lam, lam_j = enet_penalties(alpha, l1_ratio)
    G = K_small @ K_small + lam * np.eye(n)
    ours = elastic_net_columns(G, K_small @ K_small @ A, lam_j)
    assert np.count_nonzero(ours) < ours.size
    kw = dict(l1_ratio=l1_ratio, tol=1e-14, max_iter=200_000)
    # The same problem on the unscaled data, and as the authors' code calls it.
    unscaled = ElasticNet(alpha=alpha / (2 * n), fit_intercept=False, **kw).fit(K_small, K_small @ A)
    s = np.sqrt(2 * n)
    authors = ElasticNet(alpha=alpha, **kw).fit(s * K_small, s * K_small @ A)
    assert_allclose(unscaled.coef_.T, ours, atol=1e-7)
    assert_allclose(authors.coef_.T, ours, atol=1e-7)
    assert_allclose(authors.intercept_, 0.0, atol=1e-9)


def test_elastic_net_step_satisfies_the_kkt_conditions(K_small):
    lam, lam_j = enet_penalties(0.5, 0.6)
    A = random_feasible(K_small, 4, np.random.default_rng(2)) * 3.0
    K2A = K_small @ K_small @ A
    G = K_small @ K_small + lam * np.eye(len(K_small))
    B = elastic_net_columns(G, K2A, lam_j)
    gradient = 2.0 * (G @ B - K2A)  # of the smooth part of eq. (11)
    active = B != 0
    assert_allclose(gradient[active], -lam_j * np.sign(B[active]), atol=1e-8)
    assert np.all(np.abs(gradient[~active]) <= lam_j + 1e-8)


def test_working_set_gives_the_full_lars_solution():
    X = np.random.default_rng(5).normal(size=(120, 4))
    K = centered_rbf(X)
    lam, lam_j = enet_penalties(0.3, 0.5)
    G = K @ K + lam * np.eye(len(K))
    Xy = K @ K @ random_feasible(K, 3, np.random.default_rng(6)) * 5.0
    full = elastic_net_columns(G, Xy, lam_j, working_set=len(K))
    assert 3 < np.count_nonzero(full, axis=0).min()
    # Starting from one candidate forces the working set to grow by KKT violators.
    assert_allclose(elastic_net_columns(G, Xy, lam_j, working_set=1), full, atol=1e-10)
    shifted = np.roll(full, 7, axis=0)  # a wrong previous support is harmless too
    assert_allclose(elastic_net_columns(G, Xy, lam_j, beta_prev=shifted, working_set=2), full, atol=1e-10)


# --- the Procrustes step, eq. (12) and Corollary 1 -------------------------------------------------


def paper_corollary1(K, beta):
    """Corollary 1 as printed, with the pseudo-inverse square root on the range of K."""
    s, U = linalg.eigh(K)
    keep = s > s.max() * len(K) * np.finfo(float).eps
    U, s = U[:, keep], s[keep]
    M = (U.T @ K @ K @ beta) / np.sqrt(s)[:, None]
    Us, _, Vt = np.linalg.svd(M, full_matrices=False)
    return U / np.sqrt(s) @ Us @ Vt


def test_corollary1_is_feasible_and_beats_random_feasible_points(K_small):
    rng = np.random.default_rng(3)
    m = 4
    beta = rng.normal(size=(len(K_small), m)) * (rng.random((len(K_small), m)) < 0.3)
    KB = K_small @ beta
    alpha = corollary1_update(K_small, KB, K_small @ KB, random_feasible(K_small, m, rng))
    assert np.linalg.matrix_rank(K_small) < len(K_small)  # the centered kernel is singular
    assert_allclose(alpha.T @ K_small @ alpha, np.eye(m), atol=1e-9)
    assert_allclose(alpha, paper_corollary1(K_small, beta), atol=1e-6 * np.abs(alpha).max())
    best = np.trace(alpha.T @ K_small @ K_small @ beta)
    others = [np.trace(a.T @ K_small @ K_small @ beta) for a in (random_feasible(K_small, m, rng) for _ in range(500))]
    assert best >= max(others)
    # The optimum is the nuclear norm of K^{3/2} beta.
    s, U = linalg.eigh(K_small)
    sqrt_K3 = U * np.sqrt(np.clip(s, 0, None) ** 3) @ U.T
    assert_allclose(best, np.linalg.svd(sqrt_K3 @ beta, compute_uv=False).sum(), rtol=1e-8)


def test_corollary1_with_a_zero_column_stays_feasible_and_optimal(K_small):
    rng = np.random.default_rng(4)
    m = 3
    beta = rng.normal(size=(len(K_small), m))
    beta[:, 1] = 0.0
    alpha_prev = random_feasible(K_small, m, rng)
    KB = K_small @ beta
    alpha = corollary1_update(K_small, KB, K_small @ KB, alpha_prev)
    assert_allclose(alpha.T @ K_small @ alpha, np.eye(m), atol=1e-9)
    reference = paper_corollary1(K_small, beta[:, [0, 2]])  # the determined part
    assert_allclose(np.trace(alpha.T @ K_small @ KB), np.trace(reference.T @ K_small @ KB[:, [0, 2]]))


# --- the estimator ----------------------------------------------------------------------------------


def principal_angles_cos(K, A, B):
    """Cosines of the principal angles between span(Phi A) and span(Phi B) in feature space."""

    def orthonormal(C):
        values, vectors = np.linalg.eigh(C.T @ K @ C)
        return C @ vectors / np.sqrt(values)

    QA, QB = orthonormal(A), orthonormal(B)
    return np.linalg.svd(QA.T @ K @ QB, compute_uv=False)


def test_l1_ratio_zero_is_exact_kpca_and_small_l1_ratio_recovers_its_subspace(zeros):
    kpca = KernelPCA(5).fit(zeros)
    ridge = SparseKernelPCA(5, l1_ratio=0.0).fit(zeros)
    assert ridge.converged_ and ridge.n_iter_ == 2
    assert_allclose(ridge.dual_coef_, kpca.dual_coef_, atol=1e-8 * np.abs(kpca.dual_coef_).max())

    K = centered_rbf(zeros, kpca.gamma_)
    cosines = []
    for l1_ratio in (1e-2, 1e-4):
        model = fit_quietly(SparseKernelPCA(5, l1_ratio=l1_ratio, max_iter=20), zeros)
        cosines.append(principal_angles_cos(K, model.dual_coef_, kpca.dual_coef_).min())
    assert cosines[1] > 0.999 and cosines[1] >= cosines[0] - 1e-9


def test_sparsity_grows_with_l1_ratio_and_objective_never_increases(zeros):
    counts = []
    for l1_ratio in (0.1, 0.4, 0.7, 0.9):
        model = fit_quietly(SparseKernelPCA(6, l1_ratio=l1_ratio, max_iter=8), zeros)
        assert np.all(np.diff(model.objective_) <= 1e-9 * np.abs(model.objective_).max())
        counts.append(model.n_nonzero_.mean())
    assert all(a > b for a, b in zip(counts, counts[1:])), counts
    assert counts[-1] < 0.5 * len(zeros)


def test_components_have_unit_feature_norm_and_exact_zeros(zeros):
    model = fit_quietly(SparseKernelPCA(6, l1_ratio=0.7), zeros)
    K = centered_rbf(zeros, model.gamma_)
    assert_allclose(np.diag(model.dual_coef_.T @ K @ model.dual_coef_), 1.0, rtol=1e-10)
    assert_array_equal(model.n_nonzero_, np.count_nonzero(model.dual_coef_, axis=0))
    assert model.n_nonzero_.max() < len(zeros)


def test_iteration_cap_and_tolerance(zeros):
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        capped = SparseKernelPCA(4, l1_ratio=0.7, max_iter=2).fit(zeros)
    assert capped.n_iter_ == 2 and not capped.converged_ and len(capped.objective_) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        loose = SparseKernelPCA(4, l1_ratio=0.7, max_iter=50, tol=0.5).fit(zeros)
    assert loose.converged_ and loose.n_iter_ < 50


def test_no_cap_runs_until_converged_and_is_the_capped_fit_that_converged(zeros):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        literal = SparseKernelPCA(4, l1_ratio=0.7, max_iter=None, tol=1e-2).fit(zeros)
    assert literal.converged_ and literal.n_iter_ > 6
    capped = fit_quietly(SparseKernelPCA(4, l1_ratio=0.7, max_iter=literal.n_iter_, tol=1e-2), zeros)
    assert_allclose(literal.dual_coef_, capped.dual_coef_)
    six = fit_quietly(SparseKernelPCA(4, l1_ratio=0.7, tol=1e-2), zeros)
    assert literal.n_nonzero_.sum() != six.n_nonzero_.sum()


def test_too_strong_penalty_gives_zero_components_with_a_warning(zeros):
    with pytest.warns(UserWarning, match="components are all zero"):
        model = fit_quietly(SparseKernelPCA(3, l1_ratio=0.9, alpha=1e6), zeros)
    assert_array_equal(model.dual_coef_, 0.0)


def test_does_not_modify_the_centered_kernel_and_is_deterministic(zeros):
    K = centered_rbf(zeros)
    before = K.copy()
    direct = SparseKernelPCA(4, l1_ratio=0.6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        direct._fit_components(K)
    assert_array_equal(K, before)
    first = fit_quietly(SparseKernelPCA(4, l1_ratio=0.6), zeros)
    second = fit_quietly(clone(first), zeros)
    assert_array_equal(first.dual_coef_, second.dual_coef_)
    assert_allclose(first.dual_coef_, direct.dual_coef_, atol=1e-12)


@pytest.mark.parametrize(
    "params", [dict(l1_ratio=1.5), dict(l1_ratio=-0.1), dict(alpha=0.0), dict(max_iter=0), dict(tol=-1.0)]
)
def test_parameter_validation(zeros, params):
    (name,) = params
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of SparseKernelPCA must be"):
        SparseKernelPCA(3, **params).fit(zeros)


def test_works_in_subspace_detector_and_with_clone(digits):
    X, y = digits
    rng = np.random.default_rng(0)
    zero_idx = rng.permutation(np.flatnonzero(y == 0))
    train, test_in = X[zero_idx[:100]], X[zero_idx[100:]]
    test_out = X[rng.choice(np.flatnonzero(y != 0), 80, replace=False)]
    test = np.vstack([test_in, test_out])
    truth = np.r_[np.ones(len(test_in)), np.zeros(len(test_out))]
    for estimator in (SparseKernelPCA(8, l1_ratio=0.7), NaiveThresholdKPCA(8, n_nonzero=10)):
        template = clone(estimator)
        assert template.get_params() == estimator.get_params()
        detector = fit_quietly(KernelSubspaceDetector(template, contamination=0.1), train)
        assert roc_auc_score(truth, detector.score_samples(test)) > 0.9
        assert set(np.unique(detector.predict(test))) <= {-1, 1}
        assert not hasattr(template, "dual_coef_")


# --- naive thresholding -----------------------------------------------------------------------------


def test_naive_threshold_keeps_the_m_largest_kpca_coefficients(zeros):
    kpca = KernelPCA(5).fit(zeros)
    naive = NaiveThresholdKPCA(5, n_nonzero=7).fit(zeros)
    assert_array_equal(naive.n_nonzero_, 7)
    assert_array_equal(np.count_nonzero(naive.dual_coef_, axis=0), 7)
    assert_allclose(naive.eigenvalues_, kpca.eigenvalues_)
    for j in range(5):
        kept = np.flatnonzero(naive.dual_coef_[:, j])
        threshold = np.sort(np.abs(kpca.dual_coef_[:, j]))[-7]
        assert np.all(np.abs(kpca.dual_coef_[kept, j]) >= threshold)
        ratio = naive.dual_coef_[kept, j] / kpca.dual_coef_[kept, j]
        assert_allclose(ratio, ratio[0])  # one positive rescaling per column: signs kept
        assert ratio[0] > 0
    K = centered_rbf(zeros, naive.gamma_)
    assert_allclose(np.diag(naive.dual_coef_.T @ K @ naive.dual_coef_), 1.0, rtol=1e-10)


def test_naive_threshold_raw_projection_keeps_kpcas_values_of_the_kept_coefficients(zeros):
    kpca = KernelPCA(5).fit(zeros)
    raw = NaiveThresholdKPCA(5, n_nonzero=7, projection="raw").fit(zeros)
    unit = NaiveThresholdKPCA(5, n_nonzero=7).fit(zeros)
    kept = raw.dual_coef_ != 0
    assert_array_equal(kept, unit.dual_coef_ != 0)
    assert_allclose(raw.dual_coef_[kept], kpca.dual_coef_[kept])  # not rescaled
    K = centered_rbf(zeros, raw.gamma_)
    assert np.all(np.diag(raw.dual_coef_.T @ K @ raw.dual_coef_) < 1.0)  # shorter than unit: part of each dropped
    with pytest.raises(ValueError, match="projection"):
        NaiveThresholdKPCA(5, n_nonzero=7, projection="none").fit(zeros)


def test_naive_threshold_keeping_all_is_kpca_and_validates(zeros):
    kpca = KernelPCA(3).fit(zeros)
    assert_allclose(NaiveThresholdKPCA(3).fit(zeros).dual_coef_, kpca.dual_coef_, rtol=1e-10)
    assert_allclose(NaiveThresholdKPCA(3, n_nonzero=len(zeros)).fit(zeros).dual_coef_, kpca.dual_coef_, rtol=1e-10)
    for bad in (0, len(zeros) + 1, 2.5, True):
        with pytest.raises(ValueError, match="n_nonzero"):
            NaiveThresholdKPCA(3, n_nonzero=bad).fit(zeros)


def test_average_nonzero_matches_skpca_to_naive(zeros):
    skpca = fit_quietly(SparseKernelPCA(5, l1_ratio=0.7), zeros)
    m = average_nonzero(skpca.dual_coef_)
    assert m == round(skpca.n_nonzero_.mean())
    assert_array_equal(NaiveThresholdKPCA(5, n_nonzero=m).fit(zeros).n_nonzero_, m)


@pytest.fixture(scope="module")
def zeros80(digits):
    X, y = digits
    return X[y == 0][:80]


@pytest.mark.parametrize("l1_ratio", [0.3, 0.7])
def test_matched_m_is_skpcas_average_nonzero(zeros80, l1_ratio):
    skpca = fit_quietly(SparseKernelPCA(5, l1_ratio=l1_ratio), zeros80)
    m = average_nonzero(skpca.dual_coef_)
    assert m < len(zeros80)
    naive = fit_quietly(NaiveThresholdKPCA(5, match_l1_ratio=l1_ratio), zeros80)
    assert naive.n_keep_ == m
    assert_array_equal(naive.n_nonzero_, m)
    given = NaiveThresholdKPCA(5, n_nonzero=m).fit(zeros80)
    assert_array_equal(naive.dual_coef_, given.dual_coef_)


def test_matched_m_follows_the_skpca_parameters(zeros80):
    skpca = fit_quietly(SparseKernelPCA(5, l1_ratio=0.5, alpha=0.5, max_iter=2), zeros80)
    naive = fit_quietly(NaiveThresholdKPCA(5, match_l1_ratio=0.5, match_alpha=0.5, match_max_iter=2), zeros80)
    assert naive.n_keep_ == average_nonzero(skpca.dual_coef_)


def test_matching_validates(zeros80):
    with pytest.raises(ValueError, match="not both"):
        NaiveThresholdKPCA(5, n_nonzero=3, match_l1_ratio=0.5).fit(zeros80)
    with pytest.raises(ValueError, match="l1_ratio"):
        NaiveThresholdKPCA(5, match_l1_ratio=1.5).fit(zeros80)
    assert "match_l1_ratio" in METHODS["naive_threshold"].param_names()
