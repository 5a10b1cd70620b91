import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from kpca_bench.methods import KernelPCA, KernelSubspaceDetector, sparse_admm
from kpca_bench.methods.sparse_admm import ADMM_INITS, L1SparseKernelPCA, row_soft_threshold, soft_threshold
from kpca_bench.methods.sparse_admm_l21 import L21SparseKernelPCA

GAMMA = 10.0  # the paper's width for its Gaussian-mixture toy (section 4.1.1)


@pytest.fixture(scope="module")
def blobs():
    """Three Gaussian sources as in Wang & Tanaka's first toy example, 20 points each."""
    rng = np.random.default_rng(0)
    centres = np.array([[-0.5, -0.2], [0.0, 0.6], [0.5, 0.0]])
    return np.concatenate([rng.normal(c, 0.1, size=(20, 2)) for c in centres])


def centered_kernel(model, X):
    return model.centering_.center_train(model.kernel_(X))


def feature_cosines(model, reference, X):
    """|<v_j, v_j^ref>| for unit components v_j, v_j^ref of two models fitted on X."""
    K = centered_kernel(reference, X)
    return np.abs(np.einsum("ij,ij->j", model.dual_coef_, K @ reference.dual_coef_))


def test_soft_threshold_is_the_textbook_shrinkage():
    alpha = np.array([-3.0, -0.5, 0.0, 0.2, 0.5, 2.0])
    assert_allclose(soft_threshold(alpha, 0.5), np.sign(alpha) * np.maximum(np.abs(alpha) - 0.5, 0))
    assert_array_equal(soft_threshold(alpha, 0.5)[1:5], 0.0)  # exact zeros, not tiny values
    assert_array_equal(soft_threshold(alpha, 0.0), alpha)


def test_row_soft_threshold_shrinks_rows_as_a_whole():
    R = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0], [-6.0, 8.0]])
    A = row_soft_threshold(R, 1.0)
    norms = np.linalg.norm(R, axis=1, keepdims=True)
    expected = R * np.maximum(1 - 1.0 / np.where(norms > 0, norms, 1), 0)
    assert_allclose(A, expected)
    assert_array_equal(A[1:3], 0.0)


@pytest.mark.parametrize("cls, penalty", [(L1SparseKernelPCA, "lam1"), (L21SparseKernelPCA, "mu21")])
def test_without_penalty_both_reproduce_exact_kpca(blobs, cls, penalty):
    reference = KernelPCA(4, gamma=GAMMA).fit(blobs)
    model = cls(4, gamma=GAMMA, **{penalty: 0.0}).fit(blobs)
    signs = np.sign(np.sum(model.dual_coef_ * reference.dual_coef_, axis=0))
    assert_allclose(model.dual_coef_ * signs, reference.dual_coef_, atol=1e-8)
    assert_allclose(model.eigenvalues_, reference.eigenvalues_, rtol=1e-8)
    assert_allclose(model.transform(blobs) * signs, reference.transform(blobs), atol=1e-8)


def test_l1_components_tend_to_kpca_as_lam1_vanishes(blobs):
    reference = KernelPCA(4, gamma=GAMMA).fit(blobs)
    gaps = []
    for lam1 in (1e-2, 1e-4, 1e-8):
        model = L1SparseKernelPCA(4, gamma=GAMMA, lam1=lam1, eps_abs=1e-6, eps_rel=1e-6, max_iter=3000).fit(blobs)
        gaps.append(np.max(1 - feature_cosines(model, reference, blobs)))
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 1e-9


def test_l1_a_pseudo_inverse_handles_a_rank_deficient_kernel():
    # A linear kernel on 3 features has rank 3: the centered 40 x 40 kernel has a 37-dim null space.
    X = np.random.default_rng(3).normal(size=(40, 3)) * [3.0, 1.0, 0.3]
    reference = KernelPCA(2, kernel="linear").fit(X)
    model = L1SparseKernelPCA(2, kernel="linear", lam1=0.0).fit(X)
    assert_allclose(np.abs(model.transform(X)), np.abs(reference.transform(X)), atol=1e-8)


def test_l1_sparsity_grows_with_lam1(blobs):
    nonzeros = [
        np.count_nonzero(L1SparseKernelPCA(4, gamma=GAMMA, lam1=lam1).fit(blobs).dual_coef_)
        for lam1 in (1e-4, 1e-3, 1e-2)
    ]
    assert nonzeros[0] > nonzeros[1] > nonzeros[2] > 0


def test_l1_admm_residuals_fall_below_the_stopping_tolerances(blobs):
    # Every ADMM run starts from 0, so each trace shows the whole descent.
    model = L1SparseKernelPCA(
        4, gamma=GAMMA, lam1=0.01, eps_abs=1e-6, eps_rel=1e-6, max_iter=20000, admm_init="zeros"
    ).fit(blobs)
    for trace in model.residuals_:
        assert trace.converged
        assert trace.primal[-1] <= trace.eps_primal[-1]
        assert trace.dual[-1] <= trace.eps_dual[-1]
        assert trace.primal[-1] < 1e-2 * trace.primal.max()
    assert model.converged_.all()
    assert_array_equal(model.n_outer_iter_, [len(i) for i in model.n_inner_iter_])
    assert model.n_iter_ == model.n_outer_iter_.max()


def test_l21_zeroes_whole_rows_and_selects_fewer_samples_as_mu21_grows(blobs):
    selected = []
    for mu21 in (1e-3, 1e-2, 1e-1, 3e-1):
        model = L21SparseKernelPCA(4, gamma=GAMMA, mu21=mu21).fit(blobs)
        nonzero = model.dual_coef_ != 0
        assert_array_equal(nonzero.any(axis=1), nonzero.all(axis=1))
        assert_array_equal(model.selected_samples_, np.flatnonzero(nonzero.any(axis=1)))
        selected.append(len(model.selected_samples_))
    assert all(a >= b for a, b in zip(selected, selected[1:]))
    assert len(blobs) > selected[0] and selected[-1] < selected[0] / 2 and selected[-1] > 0


def test_l21_admm_residuals_fall_below_delta_with_rho_balancing(blobs):
    model = L21SparseKernelPCA(4, gamma=GAMMA, mu21=0.01, max_iter=2000, delta=1e-5).fit(blobs)
    last = model.residuals_[-1]
    assert last.converged
    assert last.primal[-1] < model.delta_ and last.dual[-1] < model.delta_
    rhos = np.concatenate([trace.rho for trace in model.residuals_])
    assert len(np.unique(rhos)) > 1  # the residual-balancing rule did change rho_21
    assert model.rho_ == rhos[-1]
    assert L21SparseKernelPCA(4, gamma=GAMMA).fit(blobs).delta_ == pytest.approx(len(blobs) * 1e-4)


@pytest.mark.parametrize("cls, params", [(L1SparseKernelPCA, {"lam1": 0.01}), (L21SparseKernelPCA, {"mu21": 0.05})])
def test_dual_coef_is_the_papers_A_scaled_to_unit_components(blobs, cls, params):
    model = cls(4, gamma=GAMMA, **params).fit(blobs)
    K = centered_kernel(model, blobs)
    assert_allclose(np.diag(model.dual_coef_.T @ K @ model.dual_coef_), 1.0)
    assert_allclose(model.components_gram_, model.dual_coef_.T @ K @ model.dual_coef_, atol=1e-12)
    scale = np.sqrt(np.einsum("ij,ij->j", model.raw_coef_, K @ model.raw_coef_))
    assert_allclose(model.dual_coef_ * scale, model.raw_coef_, atol=1e-12)
    assert_array_equal(model.dual_coef_ == 0, model.raw_coef_ == 0)
    assert 0 < np.mean(model.dual_coef_ != 0) < 1
    # The paper projects with A itself (eq. 5): the same scores up to each component's norm.
    Xt = blobs[::7] + 0.05
    raw_scores = model.centering_.center_cross(model.kernel_(Xt, blobs))[0] @ model.raw_coef_
    assert_allclose(model.transform(Xt) * scale, raw_scores, atol=1e-10)
    assert_allclose(model.eigenvalues_, len(blobs) * model.projection_variances_)


@pytest.mark.parametrize("cls", [L1SparseKernelPCA, L21SparseKernelPCA])
def test_plugs_into_the_detector_and_clones(blobs, cls):
    rng = np.random.default_rng(5)
    inliers = blobs[rng.permutation(len(blobs))[:15]] + rng.normal(0, 0.02, size=(15, 2))
    outliers = rng.uniform(-1.5, 1.5, size=(15, 2))
    outliers = outliers[np.linalg.norm(outliers, axis=1) > 1.0]
    estimator = cls(4, gamma=GAMMA)
    detector = KernelSubspaceDetector(estimator).fit(blobs)
    labels = np.r_[np.ones(len(inliers)), np.zeros(len(outliers))]
    assert roc_auc_score(labels, detector.score_samples(np.r_[inliers, outliers])) > 0.9
    assert np.mean(detector.predict(outliers) == -1) > 0.9
    # Far RBF outliers project to ~0 on every component, so the Mahalanobis score
    # cannot flag them (as for exact KPCA); here it only has to run.
    mahalanobis = KernelSubspaceDetector(estimator, outlier_score="mahalanobis").fit(blobs)
    assert np.all(np.isfinite(mahalanobis.score_samples(np.r_[inliers, outliers])))
    twin = clone(estimator)
    assert twin.get_params() == estimator.get_params()
    assert_array_equal(twin.fit(blobs).dual_coef_, cls(4, gamma=GAMMA).fit(blobs).dual_coef_)


def test_per_component_lam1_and_the_fit_leaves_the_kernel_alone(blobs):
    model = L1SparseKernelPCA(3, gamma=GAMMA, lam1=[0.0, 0.01, 0.02]).fit(blobs)
    assert_allclose(model.lam1_, [0.0, 0.01, 0.02])
    assert np.all(model.dual_coef_[:, 0] != 0) and np.any(model.dual_coef_[:, 2] == 0)
    K = centered_kernel(model, blobs)
    K_copy = K.copy()
    clone(model)._fit_components(K)
    assert_array_equal(K, K_copy)


def test_warm_and_zero_admm_starts_reach_the_same_components(blobs):
    params = dict(gamma=GAMMA, lam1=0.005, eps_abs=1e-6, eps_rel=1e-6, max_iter=20000, eps_outer=1e-8)
    warm = L1SparseKernelPCA(2, admm_init="warm", **params).fit(blobs)
    cold = L1SparseKernelPCA(2, admm_init="zeros", **params).fit(blobs)
    assert np.all(feature_cosines(warm, cold, blobs) > 1 - 1e-6)


def test_printed_threshold_uses_lam_in_place_of_lam1(blobs):
    """Algorithm 1's step 7 as printed, S_{lam / rho}."""
    params = dict(gamma=GAMMA, lam=0.02, rho=0.01, max_iter=50, max_outer_iter=20)
    printed = L1SparseKernelPCA(3, lam1=0.005, threshold="lam", **params).fit(blobs)
    assert_allclose(printed.raw_coef_, L1SparseKernelPCA(3, lam1=0.02, **params).fit(blobs).raw_coef_, atol=1e-12)
    derived = L1SparseKernelPCA(3, lam1=0.005, **params).fit(blobs)
    assert np.count_nonzero(printed.raw_coef_) < np.count_nonzero(derived.raw_coef_)


@pytest.mark.parametrize("cls, params", [(L1SparseKernelPCA, {"lam1": 0.005}), (L21SparseKernelPCA, {"mu21": 0.01})])
def test_raw_projection_is_eq5_with_the_algorithms_A(blobs, cls, params):
    """projection="raw" projects with A itself; "unit" with A's columns scaled to norm 1."""
    unit = cls(3, gamma=GAMMA, lam=0.5, **params).fit(blobs)
    raw = cls(3, gamma=GAMMA, lam=0.5, projection="raw", **params).fit(blobs)
    assert_array_equal(raw.dual_coef_, raw.raw_coef_)
    assert_array_equal(raw.raw_coef_, unit.raw_coef_)
    norms = np.sqrt(np.diag(raw.components_gram_))
    assert np.all(norms < 0.99)  # the ridge shrinks A's columns
    assert_allclose(raw.transform(blobs), unit.transform(blobs) * norms, atol=1e-12)


@pytest.mark.parametrize("cls, params", [(L1SparseKernelPCA, {"lam1": 1e-4}), (L21SparseKernelPCA, {"mu21": 0.01})])
def test_zeros_admm_init_restarts_every_outer_loop(blobs, cls, params):
    """The printed "Initialize" in each outer loop; the first outer loop starts at 0 either way."""
    params = dict(gamma=GAMMA, max_iter=3, eps_outer=1e-12, **params)
    first = [cls(2, max_outer_iter=1, admm_init=init, **params).fit(blobs).raw_coef_ for init in ADMM_INITS]
    assert_array_equal(*first)
    later = [cls(2, max_outer_iter=5, admm_init=init, **params).fit(blobs).raw_coef_ for init in ADMM_INITS]
    assert not np.allclose(*later)


@pytest.mark.parametrize("cls, params", [(L1SparseKernelPCA, {"lam1": 1e-4}), (L21SparseKernelPCA, {"mu21": 0.01})])
def test_outer_loops_stopped_at_max_outer_iter_are_warned(blobs, cls, params):
    params = dict(gamma=GAMMA, max_iter=3, eps_outer=1e-30, **params)
    with pytest.warns(ConvergenceWarning, match="stopped at max_outer_iter=2"):
        model = cls(2, max_outer_iter=2, **params).fit(blobs)
    assert not np.all(model.converged_)


@pytest.mark.filterwarnings("ignore:.*sparse components have no non-zero coefficient")
@pytest.mark.parametrize(
    "cls, params, empty",
    [
        (L1SparseKernelPCA, {"lam1": 10.0}, True),
        (L1SparseKernelPCA, {"lam1": 1e-3}, False),
        (L21SparseKernelPCA, {"mu21": 100.0, "delta": 1.0}, True),
        (L21SparseKernelPCA, {"mu21": 1e-3}, False),
    ],
)
def test_leading_spectrum_first_gives_the_full_spectrums_result(blobs, monkeypatch, cls, params, empty):
    """Empty components from the top eigenpairs alone (the fast path); otherwise a restart on the full spectrum."""
    full = cls(3, gamma=GAMMA, **params).fit(blobs)  # 60 samples: below the threshold, full spectrum only
    leading, calls = sparse_admm.Spectrum.leading, []
    monkeypatch.setattr(sparse_admm, "LEADING_SPECTRUM_MIN_SAMPLES", 2)
    monkeypatch.setattr(sparse_admm.Spectrum, "leading", classmethod(lambda _, K, k: calls.append(k) or leading(K, k)))
    fast = cls(3, gamma=GAMMA, **params).fit(blobs)
    assert calls == [3]
    assert np.all(fast.raw_coef_ == 0) == empty
    for attr in ("dual_coef_", "raw_coef_", "eigenvalues_", "components_gram_", "projection_variances_"):
        assert_allclose(getattr(fast, attr), getattr(full, attr), rtol=0, atol=1e-10)
    assert_array_equal(np.atleast_1d(fast.n_iter_), np.atleast_1d(full.n_iter_))


@pytest.mark.parametrize(
    "cls, params, match",
    [
        (L1SparseKernelPCA, {"lam1": [0.1, 0.1]}, "one per component"),
        (L1SparseKernelPCA, {"lam1": [0.1, -0.1, 0.1]}, "every lam1 must be a number >= 0"),
        (L1SparseKernelPCA, {"lam1": -1.0}, "'lam1' parameter of L1SparseKernelPCA must be"),
        (L1SparseKernelPCA, {"rho": 0.0}, "'rho' parameter of L1SparseKernelPCA must be"),
        (L1SparseKernelPCA, {"max_iter": 2.5}, "'max_iter' parameter of L1SparseKernelPCA must be"),
        (L1SparseKernelPCA, {"admm_init": "kpca"}, "'admm_init' parameter of L1SparseKernelPCA must be"),
        (L21SparseKernelPCA, {"mu21": -0.1}, "'mu21' parameter of L21SparseKernelPCA must be"),
        (L21SparseKernelPCA, {"eta": 1.0}, "'eta' parameter of L21SparseKernelPCA must be"),
        (L21SparseKernelPCA, {"delta": 0}, "'delta' parameter of L21SparseKernelPCA must be"),
        (L21SparseKernelPCA, {"lam": 0}, "'lam' parameter of L21SparseKernelPCA must be"),
        (L21SparseKernelPCA, {"max_outer_iter": True}, "'max_outer_iter' parameter of L21SparseKernelPCA must be"),
    ],
)
def test_invalid_parameters_are_rejected_in_fit(blobs, cls, params, match):
    model = cls(3, gamma=GAMMA, **params)
    with pytest.raises(ValueError, match=match):
        model.fit(blobs)


@parametrize_with_checks([L1SparseKernelPCA(2, max_iter=50, max_outer_iter=3), L21SparseKernelPCA(2, max_iter=50)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_l21_rho_init_carried_keeps_the_balanced_rho_across_outer_loops(blobs):
    """Algorithm 2 step 3 initialises Q, A, W only; ``rho_init="carried"`` starts each later ADMM run
    from the rho_21 the balancing left, while A and W still restart at 0."""
    params = dict(gamma=GAMMA, mu21=1e-3, rho21=0.01, max_iter=5, eps_outer=1e-12, admm_init="zeros", max_outer_iter=3)
    initial = L21SparseKernelPCA(2, **params).fit(blobs)
    carried = L21SparseKernelPCA(2, rho_init="carried", **params).fit(blobs)
    assert initial.n_iter_ == carried.n_iter_ == 3
    assert [float(trace.rho[0]) for trace in initial.residuals_] == [0.01] * 3  # reset in every outer loop
    starts = [float(trace.rho[0]) for trace in carried.residuals_]
    assert starts[0] == 0.01 and starts[1] != 0.01  # the balanced rho carried over
    assert_array_equal(initial.residuals_[0].primal, carried.residuals_[0].primal)  # same first ADMM run
    assert not np.allclose(initial.raw_coef_, carried.raw_coef_)
    one = [
        L21SparseKernelPCA(2, **{**params, "max_outer_iter": 1}, rho_init=r).fit(blobs).raw_coef_
        for r in ("initial", "carried")
    ]
    assert_array_equal(*one)


@pytest.mark.parametrize("cls, params", [(L1SparseKernelPCA, {"lam1": 1e-4}), (L21SparseKernelPCA, {"mu21": 1e-3})])
def test_outer_stop_cap_runs_the_preset_outer_loops(blobs, cls, params):
    """Algorithms 1-2's "while not convergent or within the preset iteration" read as a fixed count."""
    params = dict(gamma=GAMMA, max_iter=5, eps_outer=1e3, max_outer_iter=4, **params)
    stop = cls(2, **params).fit(blobs)
    cap = cls(2, outer_stop="cap", **params).fit(blobs)
    assert np.all(np.atleast_1d(stop.converged_)) and np.all(np.atleast_1d(cap.converged_))
    assert stop.n_iter_ == 1 and cap.n_iter_ == 4
    assert not np.allclose(stop.raw_coef_, cap.raw_coef_)
    one = [
        cls(2, max_outer_iter=1, outer_stop=s, **{k: v for k, v in params.items() if k != "max_outer_iter"})
        .fit(blobs)
        .raw_coef_
        for s in ("converged", "cap")
    ]
    assert_array_equal(*one)


@pytest.mark.filterwarnings("ignore:.*sparse components have no non-zero coefficient")
@pytest.mark.parametrize("cls, penalty", [(L1SparseKernelPCA, "lam1"), (L21SparseKernelPCA, "mu21")])
def test_empty_components_name_the_components_without_a_non_zero_coefficient(blobs, cls, penalty):
    """A penalty that empties every component leaves a model without components, and it says so."""
    for value, empty in ((1e-4, False), (100.0, True)):
        model = cls(3, gamma=GAMMA, **{penalty: value}).fit(blobs)
        assert_array_equal(model.empty_components_, [empty] * 3)
        assert_array_equal(model.empty_components_, ~model.dual_coef_.any(axis=0))
