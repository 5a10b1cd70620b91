"""Sparse kernel PCA by elastic net (Das, Golatkar & Awate 2018) and naive thresholding.

SKPCA alternates two exact minimisations of the paper's eq. (10),

    J(alpha, beta) = tr(K) - 2 tr(alpha^T K^2 beta) + tr(beta^T (K^2 + lam I) beta)
                     + sum_j lam_j |beta_j|_1     subject to  alpha^T K alpha = I_m,

with ``K`` the centered training kernel: for fixed ``alpha`` every column of
``beta`` is the naive elastic net of eq. (11), an elastic-net regression with
design ``K`` and response ``K alpha_j``; for fixed ``beta`` the best ``alpha``
is the generalised Procrustes problem (12) solved by Corollary 1 with ``Q = K``.
The sparse ``beta`` (not ``alpha``) are the components (section III.B).

**The sparsity knob.** The paper calls its one parameter the "L1-ratio =
lam_j / lam"; its values (0.3-0.7) and the authors' code are scikit-learn's
``ElasticNet(alpha=1, l1_ratio=r)`` fitted on ``sqrt(2n) K`` and
``sqrt(2n) K alpha_j``, i.e. they minimise
``||K alpha_j - K b||^2 + r |b|_1 + (1 - r) / 2 ||b||^2``. So this module takes
``l1_ratio`` = that ``r`` and ``alpha`` = the overall strength, and solves
eq. (11) with

    lam_j = alpha * l1_ratio,        lam = alpha * (1 - l1_ratio) / 2,

that is ``l1_ratio = lam_j / (lam_j + 2 lam)`` (the paper's literal
``lam_j / lam`` equals ``2 r / (1 - r)``). The identical problem in
scikit-learn's parametrisation on the unscaled data is
``ElasticNet(alpha=alpha / (2 n), l1_ratio=l1_ratio, fit_intercept=False)``
with ``X = K``, ``y = K alpha_j``; no intercept is needed because the rows and
columns of the centered ``K`` sum to zero, so an intercept would be 0 anyway.
"""

from __future__ import annotations

import itertools
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import lars_path_gram

from kpca_bench.eigensolvers import top_eigenpairs
from kpca_bench.methods.kpca import BaseKernelPCA, KernelPCA, dual_coefficients
from kpca_bench.methods.sparse_admm import PROJECTIONS
from kpca_bench.param_validation import NumberInterval, StrOptions

_EPS = np.finfo(float).eps


def enet_penalties(alpha: float, l1_ratio: float) -> tuple[float, float]:
    """The paper's ``(lam, lam_j)`` of eq. (11) for a strength ``alpha`` and an ``l1_ratio``.

    ``lam = alpha (1 - l1_ratio) / 2`` multiplies ``||beta_j||^2`` and
    ``lam_j = alpha * l1_ratio`` multiplies ``|beta_j|_1`` in
    ``||K alpha_j - K beta_j||^2 + lam ||beta_j||^2 + lam_j |beta_j|_1``: the
    authors' ``ElasticNet(alpha, l1_ratio)`` on ``sqrt(2n)``-scaled data.
    """
    return alpha * (1.0 - l1_ratio) / 2.0, alpha * l1_ratio


def elastic_net_columns(
    ridge_gram: np.ndarray,
    Xy: np.ndarray,
    l1_penalty: float,
    beta_prev: np.ndarray | None = None,
    working_set: int = 64,
) -> np.ndarray:
    """Solve eq. (11) for every column: ``argmin_b b^T G b - 2 Xy_j^T b + l1_penalty |b|_1``.

    ``ridge_gram`` is ``K^2 + lam I`` and ``Xy`` is ``K^2 alpha`` (one column per
    component). The naive elastic net is a lasso on the augmented design
    ``[K; sqrt(lam) I]`` (Zou & Hastie 2005, lemma 1), whose Gram matrix is
    ``ridge_gram``, so LARS on the Gram form (LARS-EN, the solver the paper
    names) gives the exact solution in as many steps as there are active
    coefficients, with no tolerance and no ``n x n`` design in the loop.

    LARS permutes its Gram matrix, so every call would copy all ``n x n`` of it
    (most of the time at n=3000). Each column is therefore solved on a working
    set -- its previous support (``beta_prev``) plus the ``working_set``
    largest ``|Xy_j|`` -- and grown by every coefficient that violates the
    optimality condition ``|2 (Xy_j - G b)_i| <= l1_penalty`` until none does.
    The result is the exact solution of the full problem, not an approximation:
    it satisfies the full problem's KKT conditions, and the problem is strictly
    convex when ``lam > 0``.
    """
    n = ridge_gram.shape[0]
    # lars_path_gram minimises 1/(2 n_samples) ||y - X b||^2 + a |b|_1; with
    # n_samples = 1 that is half of eq. (11), so a = l1_penalty / 2.
    alpha_min = l1_penalty / 2.0
    beta = np.zeros(Xy.shape)
    for j in range(Xy.shape[1]):
        xy = Xy[:, j]
        candidates = np.zeros(n, dtype=bool)
        candidates[np.argsort(-np.abs(xy), kind="stable")[:working_set]] = True
        if beta_prev is not None:
            candidates |= beta_prev[:, j] != 0
        slack = l1_penalty * (1 + 1e-9) + 1e-12 * np.abs(xy).max(initial=0.0)
        while True:
            subset = np.flatnonzero(candidates)
            alphas, _, coef, _ = lars_path_gram(
                xy[subset],
                ridge_gram[np.ix_(subset, subset)],
                n_samples=1,
                alpha_min=alpha_min,
                method="lasso",
                max_iter=10 * n,
                copy_Gram=False,
                return_path=False,
                return_n_iter=True,
            )
            alpha_end = float(alphas[-1])  # without the path, LARS returns its last penalty as a 1-element array
            # G is symmetric: G[:, S] @ b = b @ G[S], and rows are contiguous to gather.
            violators = ~candidates & (np.abs(2.0 * (xy - coef @ ridge_gram[subset])) > slack)
            if not violators.any():
                break
            candidates |= violators
        if alpha_end > alpha_min * (1 + 1e-8) + _EPS:
            warnings.warn(
                f"LARS stopped at penalty {2 * alpha_end:.3g} before reaching {l1_penalty:.3g} for "
                f"component {j}; its coefficients are less sparse than the elastic net solution",
                ConvergenceWarning,
                stacklevel=3,
            )
        beta[subset, j] = coef
    return beta


def _inverse_sqrt_psd(G: np.ndarray, rtol: float):
    """Eigenpairs of a small PSD matrix, largest first, and which ones are above ``rtol * max``."""
    values, vectors = np.linalg.eigh(G)
    values, vectors = values[::-1], vectors[:, ::-1]
    keep = values > max(values[0], 0.0) * rtol
    return values, vectors, keep


def corollary1_update(K: np.ndarray, K_beta: np.ndarray, K2_beta: np.ndarray, alpha_prev: np.ndarray) -> np.ndarray:
    """``argmax_a tr(a^T K^2 beta)`` subject to ``a^T K a = I`` (eq. 12, Corollary 1 with Q = K).

    Corollary 1 writes the solution as ``U S^-1/2 U* V*^T`` with ``K = U S U^T``
    and ``S^-1/2 U^T K^2 beta = U* S* V*^T``. Because ``S^-1/2 U^T K^2 beta =
    S^3/2 U^T beta`` =: M, its polar factor ``U* V*^T = M (M^T M)^-1/2`` and
    ``M^T M = beta^T K^3 beta``, so the same solution is

        alpha = K beta (beta^T K^3 beta)^(-1/2),

    which needs no eigendecomposition of ``K`` at all, only ``K beta``,
    ``K^2 beta`` and an ``m x m`` eigenproblem.

    **Rank deficiency.** The centered ``K`` is singular (the constant vector is
    in its null space, and an RBF kernel has many numerically zero
    eigenvalues). Null-space components of ``alpha`` change neither the
    constraint nor the objective nor the component ``sum_i alpha_i phi~(x_i)``
    (``n^T K n = 0`` means ``sum_i n_i phi~(x_i) = 0``), so Corollary 1 is
    applied on the range of ``K`` with its pseudo-inverse square root, which is
    what the formula above does: this ``alpha`` lies in ``range(K)`` and is
    exactly Corollary 1 with ``S^-1/2`` taken over the nonzero eigenvalues.

    If ``K^3/2 beta`` has rank r < m (the elastic net set a whole column of
    ``beta`` to zero, or two columns are parallel), the maximiser is not unique:
    the free ``m - r`` directions are taken from ``alpha_prev``, projected
    K-orthogonally off the determined ones (the limit of adding
    ``eps * tr(alpha^T K alpha_prev)`` to the objective as eps -> 0), so the
    constraint ``alpha^T K alpha = I`` still holds exactly.

    Parameters
    ----------
    K : centered kernel, (n, n).
    K_beta, K2_beta : ``K @ beta`` and ``K @ K @ beta``, (n, m).
    alpha_prev : current ``alpha``, with ``alpha_prev^T K alpha_prev = I``.
    """
    n = K.shape[0]
    values, V, keep = _inverse_sqrt_psd(K_beta.T @ K2_beta, n * _EPS)
    scale = 1.0 / np.sqrt(values[keep])
    A_r = K_beta @ (V[:, keep] * scale)  # K-orthonormal, r columns
    alpha = A_r @ V[:, keep].T
    if keep.all():
        return alpha
    V_c = V[:, ~keep]
    C = alpha_prev @ V_c
    C -= A_r @ ((K2_beta @ (V[:, keep] * scale)).T @ C)  # K A_r = K^2 beta V_r S_r^-1/2
    KC = K @ C
    values_c, W, keep_c = _inverse_sqrt_psd(C.T @ KC, n * _EPS)
    if not keep_c.all():
        warnings.warn(
            "the previous components could not complete the degenerate Procrustes solution; "
            f"{int((~keep_c).sum())} component(s) are left at zero",
            RuntimeWarning,
            stacklevel=3,
        )
    A_c = C @ (W[:, keep_c] / np.sqrt(values_c[keep_c])) @ W[:, keep_c].T
    return alpha + A_c @ V_c.T


def normalize_in_feature_space(K: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Scale every column ``b`` to unit feature-space norm, ``b^T K b = 1``; zero columns stay zero.

    Exact zeros stay exactly zero (a column is multiplied by one positive number).
    """
    sq_norms = np.einsum("ij,ij->j", coef, K @ coef)
    tol = np.abs(np.diag(K)).max(initial=0.0) * K.shape[0] * _EPS
    scale = np.zeros_like(sq_norms)
    ok = sq_norms > tol * np.einsum("ij,ij->j", coef, coef)
    scale[ok] = 1.0 / np.sqrt(sq_norms[ok])
    return coef * scale


def average_nonzero(dual_coef: np.ndarray) -> int:
    """The paper's ``m`` for naive thresholding: mean non-zeros per component, rounded.

    Pass a fitted :class:`SparseKernelPCA`'s ``dual_coef_`` and give the result
    to :class:`NaiveThresholdKPCA` as ``n_nonzero`` (at least 1).
    """
    return max(1, int(np.rint(np.count_nonzero(dual_coef, axis=0).mean())))


def alternations(K: np.ndarray, alpha: np.ndarray, lam: float, lam_j: float):
    """Alternate the two exact minimisations of eq. (10) from ``alpha``, without end.

    Yields ``(beta, alpha, objective)`` after each alternation: ``beta`` from the
    elastic nets (11) for the current ``alpha`` (warm-started on the previous
    support), then ``alpha`` from the Procrustes step (12), then eq. (10) at the
    pair. The caller decides when to stop; :class:`SparseKernelPCA` stops on the
    relative change of ``beta``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The centered training kernel.
    alpha : ndarray of shape (n, m)
        The start, with ``alpha^T K alpha = I`` (exact KPCA's dual coefficients).
    lam, lam_j : float
        The ridge and lasso penalties of eq. (11) (:func:`enet_penalties`).

    Yields
    ------
    beta : ndarray of shape (n, m)
    alpha : ndarray of shape (n, m)
    objective : float
    """
    # K is symmetric, so K @ K.T is K^2 (numpy uses the faster syrk for a @ a.T).
    ridge_gram = K @ K.T
    ridge_gram.flat[:: K.shape[0] + 1] += lam
    trace_K = float(np.trace(K))
    beta = None
    while True:
        beta = elastic_net_columns(ridge_gram, K @ (K @ alpha), lam_j, beta)
        K_beta = K @ beta
        K2_beta = K @ K_beta
        alpha = corollary1_update(K, K_beta, K2_beta, alpha)
        objective = (
            trace_K
            - 2.0 * np.sum(alpha * K2_beta)
            + np.sum(beta * K2_beta)
            + lam * np.sum(beta**2)
            + lam_j * np.abs(beta).sum()
        )
        yield beta, alpha, float(objective)


class SparseKernelPCA(BaseKernelPCA):
    """Sparse kernel PCA by elastic net (SKPCA; Das, Golatkar & Awate 2018, section III.A).

    Alternates, from the top ``n_components`` kernel principal components
    (``alpha_j = u_j / sqrt(d_j)``, which satisfy ``alpha^T K alpha = I``):

    1. ``beta``: every column solves the naive elastic net (11), design ``K``,
       response ``K alpha_j`` -- by LARS-EN on the Gram matrix ``K^2 + lam I``
       (:func:`elastic_net_columns`);
    2. ``alpha``: the generalised Procrustes step (12) by Corollary 1 with
       ``Q = K``, on the range of ``K`` (:func:`corollary1_update`);

    until the relative change ``||beta_t - beta_(t-1)||_F / ||beta_(t-1)||_F``
    falls below ``tol`` or ``max_iter`` alternations are done. Both steps are
    exact minimisations, so eq. (10) never increases (``objective_``).

    The components are the columns of ``beta`` (section III.B: "we use the
    beta_m ... to construct the W matrix"), each scaled to unit feature-space
    norm ``b_j^T K~ b_j = 1`` -- the rows of Hoffmann's W are unit vectors, and
    the authors' code does the same; zeros stay exact. The sparse components are
    not mutually orthogonal, so the reconstruction error computed with them can
    dip below zero; that is the paper's score.

    Parameters
    ----------
    n_components : int, default=None
        Number of sparse components ``m``. None: 10, or ``n_samples - 1`` if fewer.
    l1_ratio : float in [0, 1], default=0.5
        The paper's "L1-ratio", read as scikit-learn's ``l1_ratio`` as in the
        authors' code: ``l1_ratio = lam_j / (lam_j + 2 lam)`` (see the module
        docstring). 0 is ridge only and gives back exact KPCA; larger is sparser.
        Paper: 0.7 MNIST, 0.3 Fashion-MNIST, 0.6 Satimage-2, 0.3 ETH-80,
        0.4 Internet Ads.
    alpha : float > 0, default=1.0
        Overall penalty strength, ``lam_j + 2 lam`` in eq. (11); 1 is the
        authors' ``ElasticNet(alpha=1)`` (the paper does not state it). Not
        invariant to the training-set size: the data term grows with n, so the
        same ``alpha`` is relatively weaker (less sparse) for larger n.
    max_iter : int or None, default=6
        Cap on alternations. 6 follows the authors' code, which stops there.
        None follows the paper's text, "repeat till convergence" (section
        III.A): no cap, the alternation runs until the relative change of
        ``beta`` falls below ``tol``, which can take hundreds of alternations
        and keeps making the components sparser; at n=3000 with 15 components
        one alternation costs 0.3-1 s on 2 shared cores.
    tol : float, default=1e-3
        Relative change of ``beta`` (Frobenius) below which the alternation
        stops (our choice: the authors' code stops on an absolute change of
        8e-4, the text gives no tolerance).
    kernel, gamma, sigma, degree, coef0 :
        As in :class:`~kpca_bench.methods.kpca.KernelPCA`; for RBF, gamma None is
        the paper's sigma^2 = mean squared pairwise distance.
    eigen_solver : {"auto", "eigh", "arpack", "block"}, default="auto"
        Solver for the initial top ``n_components`` eigenpairs (only those are
        computed; Corollary 1 needs no eigendecomposition, see
        :func:`corollary1_update`). ``arpack`` is about 10x faster at n=3000.
    random_state : int or None
        Start vector of ``arpack``; unused by ``eigh``. Everything else is deterministic.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_train, n_components)
        The sparse components ``beta_j / sqrt(beta_j^T K~ beta_j)`` (exact zeros
        kept; a column the elastic net zeroed entirely stays zero).
    n_nonzero_ : ndarray of shape (n_components,)
        Non-zero dual coefficients per component.
    n_iter_ : int
        Alternations run.
    converged_ : bool
        Whether the relative change fell below ``tol`` within ``max_iter``.
    relative_change_ : float
        ``||beta - beta_prev|| / ||beta_prev||`` of the last alternation (NaN after a single one): how far
        from ``tol`` the fit stopped.
    relative_changes_ : ndarray of shape (n_iter_ - 1,)
        That change after every alternation from the second on: its ratio from one alternation to the
        next is the rate at which the alternation converges (docs/suites.md).
    objective_ : ndarray of shape (n_iter_,)
        Eq. (10) after each alternation, with ``lam, lam_j`` from :func:`enet_penalties`.
    penalties_ : tuple (lam, lam_j)
        The paper's eq. (11) penalties that were used.
    init_eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centered kernel at the initialisation (exact KPCA);
        the sparse components have no eigenvalues, so ``eigenvalues_`` is not set.

    Notes
    -----
    Where the authors' code (``skpca_codes/kspca_*.py``) differs from the text,
    this follows the text: it starts from the unscaled eigenvectors ``u_j``
    (``alpha^T K alpha = diag(d)``, infeasible for eq. 10) where this starts
    from ``u_j / sqrt(d_j)``; it solves eq. (11) by coordinate descent to
    scikit-learn's tolerance where this solves it exactly by LARS-EN (the
    paper's solver; same problem, see :func:`enet_penalties`); it applies
    Corollary 1 with ``1 / sqrt`` of every singular value of ``K``, including
    the numerically zero ones, where this works on the range of ``K``; it stops
    when the absolute change of ``beta`` is below 8e-4 or after 6 alternations.

    References
    ----------
    R. Das, A. Golatkar, S. Awate. Sparse kernel PCA for outlier detection.
    ICMLA 2018 (arXiv:1809.02497), eqs. (10)-(12), Corollary 1, section III.B.
    H. Zou, T. Hastie, R. Tibshirani. Sparse principal component analysis.
    JCGS 15(2), 2006 (the alternation and its Theorem 4).
    """

    _parameter_constraints: dict = {
        # Not rank_cutoff, device, dtype: exact KPCA's options, which these classes do not take.
        **{k: v for k, v in KernelPCA._parameter_constraints.items() if k not in ("rank_cutoff", "device", "dtype")},
        "l1_ratio": [NumberInterval(Real, 0, 1, closed="both")],
        "alpha": [NumberInterval(Real, 0, None, closed="neither")],
        "max_iter": [NumberInterval(Integral, 1, None, closed="left"), None],
        "tol": [NumberInterval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        n_components=None,
        *,
        l1_ratio=0.5,
        alpha=1.0,
        max_iter=6,
        tol=1e-3,
        kernel="rbf",
        gamma=None,
        sigma=None,
        degree=3,
        coef0=1.0,
        eigen_solver="auto",
        random_state=None,
    ):
        super().__init__(n_components, kernel=kernel, gamma=gamma, sigma=sigma, degree=degree, coef0=coef0)
        self.l1_ratio = l1_ratio
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def _fit_components(self, K_centered):
        self._check_n_components(K_centered.shape[0])  # sets n_components_ (also when called directly)
        K = K_centered
        eig = top_eigenpairs(K, self.n_components_, self.eigen_solver, self.random_state)
        values, vectors, self.eigen_solver_ = eig.values, eig.vectors, eig.solver
        self.init_eigenvalues_ = values
        alpha = dual_coefficients(values, vectors)
        lam, lam_j = enet_penalties(float(self.alpha), float(self.l1_ratio))
        self.penalties_ = (lam, lam_j)

        beta_prev, objective, relative_changes, converged = None, [], [], False
        steps = alternations(K, alpha, lam, lam_j)
        limit = itertools.count(1) if self.max_iter is None else range(1, self.max_iter + 1)
        for iteration, (beta, _, value) in zip(limit, steps):
            objective.append(value)
            if beta_prev is not None:
                change = np.linalg.norm(beta - beta_prev)
                reference = np.linalg.norm(beta_prev)
                relative_changes.append(change / reference if reference else (0.0 if change == 0.0 else np.inf))
                converged = change <= self.tol * reference or change == 0.0
            beta_prev = beta
            if converged:
                break
        beta = beta_prev
        relative_change = relative_changes[-1] if relative_changes else np.nan

        self.n_iter_ = iteration
        self.converged_ = converged
        self.relative_change_ = float(relative_change)
        self.relative_changes_ = np.asarray(relative_changes)
        self.objective_ = np.asarray(objective)
        if not converged:
            warnings.warn(
                f"SKPCA stopped after max_iter={self.max_iter} alternations before the relative change "
                f"of beta fell below tol={self.tol}; raise max_iter for a converged solution",
                ConvergenceWarning,
                stacklevel=4,  # the caller of SparseKernelPCA.fit
            )
        self.dual_coef_ = normalize_in_feature_space(K, beta)
        self.n_nonzero_ = np.count_nonzero(self.dual_coef_, axis=0)
        _warn_zero_components(
            self.n_nonzero_, "the elastic net penalty removed them; lower alpha or l1_ratio", stacklevel=5
        )


class NaiveThresholdKPCA(BaseKernelPCA):
    """Exact kernel PCA keeping the ``n_nonzero`` largest-magnitude dual coefficients per component.

    Das et al.'s baseline (section V, after Zou et al. 2006): fit exact KPCA,
    keep in every component the ``n_nonzero`` coefficients of largest ``|.|``
    (ties broken by training-sample order), set the rest to zero, and rescale
    each column to unit feature-space norm ``b_j^T K~ b_j = 1`` exactly as
    :class:`SparseKernelPCA` does (``projection="unit"``, our choice) or keep the
    kept coefficients as KPCA had them (``projection="raw"``: the authors' code,
    ``skpca_codes/kspca_*_var.py``, zeroes the others in ``eigenvector /
    sqrt(eigenvalue)`` and scores with that; the text is silent). In the paper ``n_nonzero`` is the average
    number of non-zeros per component SKPCA gave at the same setting
    (:func:`average_nonzero`).

    **Matching SKPCA.** With ``match_l1_ratio`` set, fit first fits
    :class:`SparseKernelPCA` (``l1_ratio=match_l1_ratio``, ``alpha``,
    ``max_iter``, ``tol`` from the ``match_*`` parameters, the same kernel,
    components and eigensolver) on the same centered training kernel and keeps
    ``average_nonzero`` of its components: the paper's ``m`` "at the same
    setting", with no coupling between experiment cells. SKPCA is
    deterministic, so this ``m`` is the one the SKPCA cell of the same trial
    and setting gets; the price is a second SKPCA fit.

    Parameters
    ----------
    n_components : int, default=None
    n_nonzero : int or None, default=None
        Coefficients kept per component, 1 <= n_nonzero <= n_train. None keeps
        all of them (exact KPCA), unless ``match_l1_ratio`` is given.
    match_l1_ratio : float in [0, 1] or None, default=None
        Take ``n_nonzero`` from a :class:`SparseKernelPCA` fit with this
        ``l1_ratio`` (see above); exclusive with ``n_nonzero``.
    match_alpha, match_max_iter, match_tol : default=1.0, 6, 1e-3
        That fit's ``alpha``, ``max_iter`` (None: till convergence) and ``tol`` (SKPCA's defaults);
        unused without ``match_l1_ratio``.
    projection : {"unit", "raw"}, default="unit"
        Rescale each thresholded column to unit feature-space norm ("unit"), or
        keep KPCA's values of the kept coefficients ("raw", the authors' code);
        as the parameter of the same name of
        :class:`~kpca_bench.methods.sparse_admm.L1SparseKernelPCA`.
    kernel, gamma, sigma, degree, coef0, eigen_solver, random_state :
        As in :class:`~kpca_bench.methods.kpca.KernelPCA`.

    Attributes
    ----------
    n_keep_ : int
        Coefficients kept per component: ``n_nonzero`` (all if None), or SKPCA's
        ``average_nonzero`` with ``match_l1_ratio``.
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centered kernel of the components before thresholding.
    dual_coef_ : ndarray of shape (n_train, n_components)
        Thresholded coefficients (renormalised with ``projection="unit"``): exactly ``n_nonzero`` non-zeros
        per column (fewer only if KPCA itself had exact zeros there).
    n_nonzero_ : ndarray of shape (n_components,)
        Non-zero dual coefficients per component.
    """

    _parameter_constraints: dict = {
        # Not rank_cutoff, device, dtype: exact KPCA's options, which these classes do not take.
        **{k: v for k, v in KernelPCA._parameter_constraints.items() if k not in ("rank_cutoff", "device", "dtype")},
        "n_nonzero": [NumberInterval(Integral, 1, None, closed="left"), None],
        # The match_* parameters are those of the SparseKernelPCA fit; None turns matching off.
        **{f"match_{name}": SparseKernelPCA._parameter_constraints[name] for name in ("alpha", "max_iter", "tol")},
        "match_l1_ratio": [*SparseKernelPCA._parameter_constraints["l1_ratio"], None],
        "projection": [StrOptions(set(PROJECTIONS))],
    }

    def __init__(
        self,
        n_components=None,
        *,
        n_nonzero=None,
        match_l1_ratio=None,
        match_alpha=1.0,
        match_max_iter=6,
        match_tol=1e-3,
        projection="unit",
        kernel="rbf",
        gamma=None,
        sigma=None,
        degree=3,
        coef0=1.0,
        eigen_solver="auto",
        random_state=None,
    ):
        super().__init__(n_components, kernel=kernel, gamma=gamma, sigma=sigma, degree=degree, coef0=coef0)
        self.n_nonzero = n_nonzero
        self.match_l1_ratio = match_l1_ratio
        self.match_alpha = match_alpha
        self.match_max_iter = match_max_iter
        self.match_tol = match_tol
        self.projection = projection
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def _matched_n_nonzero(self, K_centered) -> int:
        """SKPCA's average non-zeros per component on the same centered kernel (Das et al., section V)."""
        if self.n_nonzero is not None:
            raise ValueError("give n_nonzero or match_l1_ratio, not both")
        skpca = SparseKernelPCA(
            self.n_components_,
            l1_ratio=self.match_l1_ratio,
            alpha=self.match_alpha,
            max_iter=self.match_max_iter,
            tol=self.match_tol,
            eigen_solver=self.eigen_solver,
            random_state=self.random_state,
        )
        skpca._fit_components(K_centered)
        return average_nonzero(skpca.dual_coef_)

    def _fit_components(self, K_centered):
        self._check_n_components(K_centered.shape[0])  # sets n_components_ (also when called directly)
        n = K_centered.shape[0]
        keep = self.n_nonzero
        if self.match_l1_ratio is not None:
            keep = self._matched_n_nonzero(K_centered)
        elif keep is None:
            keep = n
        elif keep > n:
            raise ValueError(f"n_nonzero={keep} is more than the {n} training samples; use n_nonzero <= {n}")
        eig = top_eigenpairs(K_centered, self.n_components_, self.eigen_solver, self.random_state)
        values, vectors, self.eigen_solver_ = eig.values, eig.vectors, eig.solver
        self.eigenvalues_ = values
        coef = dual_coefficients(values, vectors)
        order = np.argsort(-np.abs(coef), axis=0, kind="stable")
        mask = np.zeros(coef.shape, dtype=bool)
        np.put_along_axis(mask, order[:keep], True, axis=0)
        self.n_keep_ = int(keep)
        kept = np.where(mask, coef, 0.0)
        self.dual_coef_ = normalize_in_feature_space(K_centered, kept) if self.projection == "unit" else kept
        self.n_nonzero_ = np.count_nonzero(self.dual_coef_, axis=0)
        _warn_zero_components(
            self.n_nonzero_, "their kept coefficients span a null direction of the kernel", stacklevel=5
        )


def _warn_zero_components(n_nonzero: np.ndarray, reason: str, stacklevel: int) -> None:
    zero = np.flatnonzero(n_nonzero == 0)
    if zero.size:
        warnings.warn(
            f"{zero.size} of {n_nonzero.size} components are all zero ({reason}); they add nothing to the projection",
            UserWarning,
            stacklevel=stacklevel,
        )
