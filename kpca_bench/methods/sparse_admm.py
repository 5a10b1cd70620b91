"""Sparse kernel PCA by ADMM with an l1 or an l2,1 penalty (Wang & Tanaka).

Both variants rewrite KPCA as the regression problem of eqs. 13-17 in the
variables ``Q = K^{1/2} A`` (eq. 12) and solve it by alternating an ADMM on
``(Q, A, dual)`` for a fixed orthonormal ``P`` with an update of ``P``:

* :class:`L1SparseKernelPCA` (Algorithm 1): one component at a time, element-wise
  soft threshold, so every component keeps its own samples;
* :class:`~kpca_bench.methods.sparse_admm_l21.L21SparseKernelPCA` (Algorithm 2,
  its own module): all components together, row-wise (vectorial) soft threshold,
  so whole rows of ``A`` vanish and the non-zero rows are the *selected samples*.

**Linear algebra.** Every matrix function of the centered kernel ``K`` the
algorithms need (``K^{1/2}``, ``K^{-1/2}``, ``K^{-1}``, ``(K + lam I + rho
K^{-1})^{-1}``) is diagonal in the eigenbasis of ``K``, so ``K = U diag(s) U^T``
is computed once and the ADMM runs on eigen-coordinates ``x^ = U^T x``. The
centered kernel is singular (the constant vector is in its null space), so
``K^{-1/2}`` and ``K^{-1}`` are pseudo-inverses: eigenvalues at or below
``n * eps * max(s)`` count as zero, as in ``scipy.linalg.pinvh``. No inverse of
a singular matrix is ever formed. The ADMM variable that meets the threshold,
``b = K^{-1/2} q``, is computed as ``b^ = (s^{3/2} p^ + rho c^) / (s^2 + lam s +
rho)`` with ``c = a - t / rho`` -- the paper's step 6 multiplied through by
``s``, which stays accurate for tiny eigenvalues where ``rho / s`` would
overflow. One ADMM iteration then costs two products with ``U`` (``U b^`` and
``U^T a``, the latter restricted to the non-zero rows of ``a``); the dual
residual and ``||K^{-1/2} t||`` are read off the eigen-coordinates for free.
The full decomposition is most of a fit at large n, and it is needed only once
some ``A`` is non-zero: from ``n >= LEADING_SPECTRUM_MIN_SAMPLES`` on, a fit
first runs on the top ``n_components`` eigenpairs (Lanczos) and starts again
on the full spectrum the first time ``A`` has a non-zero entry, so the result
is the full decomposition's either way.

**What ``dual_coef_`` holds.** The algorithms output ``A`` (Algorithm 1 step
15, Algorithm 2 step 12) whose columns are the coefficients ``a_k`` of eq. 3,
``v_k = sum_i a_ik phi~(x_i)``; the paper projects with ``A`` as it is
(eq. 5). That ``A`` is not normalised: the ridge term shrinks ``||v_k||`` below
one (``a_k^T K a_k = ||q_k||^2 ~ (s_k / (s_k + lam))^2`` when the penalty is
small). The outlier scores of :mod:`kpca_bench.methods.scores` assume unit
components, so ``dual_coef_`` is ``A`` with each column divided by its
feature-space norm ``sqrt(a_k^T K a_k)``: then ``dual_coef_^T K dual_coef_``
has a unit diagonal, as exact KPCA's ``alpha_j = u_j / sqrt(lambda_j)`` does,
and with a vanishing penalty ``dual_coef_`` *is* exact KPCA's (up to sign).
A positive per-column scale keeps every exact zero exact, so sparsity measured
on ``dual_coef_`` is the sparsity of the paper's ``A`` (kept as
``raw_coef_``). The sparse components are unit but only nearly orthogonal
(see ``components_gram_``); orthonormalising them would mix columns and
destroy the l1 variant's per-component sparsity, so that is not done.
``projection="raw"`` keeps ``dual_coef_`` equal to the paper's ``A`` instead
(eq. 5), as the Wang & Tanaka configs do.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.exceptions import ConvergenceWarning

from kpca_bench.eigensolvers import top_eigenpairs
from kpca_bench.methods.kpca import BaseKernelPCA
from kpca_bench.param_validation import NumberInterval, StrOptions

ADMM_INITS = ("warm", "zeros")
PROJECTIONS = ("unit", "raw")
L1_THRESHOLDS = ("lam1", "lam")
RHO_INITS = ("initial", "carried")
OUTER_STOPS = ("converged", "cap")
# Below this many training samples the full eigendecomposition takes well under a second, so a
# Lanczos run for the leading spectrum that a non-zero A would waste is not worth trying (our choice).
LEADING_SPECTRUM_MIN_SAMPLES = 1000


def warn_if_stopped_short(n_stopped: int, n_components: int, max_outer_iter: int) -> None:
    """A ``ConvergenceWarning`` when outer iterations ended at ``max_outer_iter`` before ``eps_outer`` was met."""
    if n_stopped:
        warnings.warn(
            f"{n_stopped} of {n_components} sparse components stopped at max_outer_iter={max_outer_iter} "
            "before the outer loop converged (eps_outer); raise max_outer_iter",
            ConvergenceWarning,
            stacklevel=4,
        )


def soft_threshold(alpha: np.ndarray, tau: float) -> np.ndarray:
    """Element-wise soft threshold ``S_tau(alpha)`` as written by Wang & Tanaka (section 3.1).

    ``S_tau(alpha) = max(|alpha| - tau, 0) / (max(|alpha| - tau, 0) + tau) * alpha``
    (Wright, Nowak & Figueiredo 2009), which equals the usual
    ``sign(alpha) max(|alpha| - tau, 0)``. Entries with ``|alpha| <= tau``
    become exactly 0; ``tau = 0`` is the identity (``0 / 0`` is taken as 0,
    where ``alpha`` is 0 anyway).
    """
    shrunk = np.maximum(np.abs(alpha) - tau, 0.0)
    denom = shrunk + tau
    ratio = np.divide(shrunk, denom, out=np.zeros_like(shrunk), where=denom > 0)
    return ratio * alpha


def row_soft_threshold(R: np.ndarray, beta: float) -> np.ndarray:
    """Vectorial soft threshold of every row of R (Wang & Tanaka, eq. 19).

    ``a^i = r^i max(||r^i|| - beta, 0) / (max(||r^i|| - beta, 0) + beta)``:
    the proximal operator of ``beta ||A||_{2,1}``. A row whose norm is at most
    ``beta`` becomes exactly 0 as a whole.
    """
    norms = np.linalg.norm(R, axis=1)
    shrunk = np.maximum(norms - beta, 0.0)
    denom = shrunk + beta
    ratio = np.divide(shrunk, denom, out=np.zeros_like(shrunk), where=denom > 0)
    return R * ratio[:, np.newaxis]


@dataclass(frozen=True)
class ADMMTrace:
    """Residual history of one inner ADMM run (one row per iteration).

    Attributes
    ----------
    primal : ndarray
        ``||K^{-1/2} q - a||`` (Algorithm 1) or ``||K^{-1/2} Q - A||_F`` (Algorithm 2).
    dual : ndarray
        ``||rho K^{-1/2} (a^{j+1} - a^j)||`` or its Frobenius analogue, with the
        ``rho`` of that iteration.
    eps_primal, eps_dual : ndarray
        The tolerances each residual was compared with: ``sqrt(N) eps_abs +
        eps_rel max(||K^{-1/2} q||, ||a||)`` and ``sqrt(N) eps_abs + eps_rel
        ||K^{-1/2} t||`` for Algorithm 1, ``delta`` for Algorithm 2.
    rho : ndarray
        The penalty used in each iteration (changes only in Algorithm 2).
    converged : bool
        Whether the run stopped on the paper's criterion rather than on ``max_iter``.
    """

    primal: np.ndarray
    dual: np.ndarray
    eps_primal: np.ndarray
    eps_dual: np.ndarray
    rho: np.ndarray
    converged: bool

    @classmethod
    def from_rows(cls, rows: list, converged: bool) -> "ADMMTrace":
        primal, dual, eps_primal, eps_dual, rho = np.array(rows, dtype=float).reshape(-1, 5).T
        return cls(primal, dual, eps_primal, eps_dual, rho, converged=converged)


class _LeftLeadingEigenspace(Exception):
    """An iterate has a non-zero coefficient, so it may leave the span of a leading spectrum."""


@dataclass(frozen=True)
class Spectrum:
    """Eigendecomposition of the centered kernel, largest eigenvalue first.

    ``sqrt`` and ``inv_sqrt`` hold ``s^{1/2}`` and the pseudo-inverse ``s^{+1/2}``
    (0 on the numerical null space); ``U`` is C-contiguous so that selecting
    the rows of the non-zero coefficients is a contiguous copy. A *leading*
    spectrum (``complete=False``) holds only the top eigenpairs: enough while
    every ``A`` the ADMM produces is 0 (see :meth:`to_eigen`).
    """

    s: np.ndarray
    U: np.ndarray
    in_range: np.ndarray
    sqrt: np.ndarray
    inv_sqrt: np.ndarray
    complete: bool = True

    @classmethod
    def of(cls, K: np.ndarray) -> "Spectrum":
        # Divide and conquer: several times faster than the default MRRR driver
        # for the full decomposition of a random RBF kernel (9 s vs 28 s at n = 3000, 2 cores).
        s, U = linalg.eigh(K, driver="evd")
        return cls._descending(s, U, K.shape[0], complete=True)

    @classmethod
    def leading(cls, K: np.ndarray, k: int) -> "Spectrum":
        """The top k eigenpairs only, by ARPACK (Lanczos) from a fixed start vector."""
        eig = top_eigenpairs(K, k, "arpack", random_state=0)
        return cls._descending(eig.values, eig.vectors, K.shape[0], complete=False)

    @classmethod
    def _descending(cls, s: np.ndarray, U: np.ndarray, n: int, complete: bool) -> "Spectrum":
        order = np.argsort(s, kind="stable")[::-1]  # LAPACK and ARPACK: ascending
        s, U = s[order], np.ascontiguousarray(U[:, order])
        in_range = s > s.max(initial=0.0) * n * np.finfo(float).eps
        s = np.where(in_range, s, 0.0)
        sqrt = np.sqrt(s)
        inv_sqrt = np.divide(1.0, sqrt, out=np.zeros_like(s), where=in_range)
        return cls(s=s, U=U, in_range=in_range, sqrt=sqrt, inv_sqrt=inv_sqrt, complete=complete)

    def to_eigen(self, A: np.ndarray) -> np.ndarray:
        """``U^T A``, touching only the rows of U where A has a non-zero entry.

        Raises :class:`_LeftLeadingEigenspace` for a non-zero A on a leading
        spectrum: A's eigen-coordinates beyond the top ones are unknown there.
        """
        nonzero = A.any(axis=1) if A.ndim == 2 else A != 0
        count = int(np.count_nonzero(nonzero))
        if count == 0:
            return np.zeros((self.U.shape[1],) + A.shape[1:])
        if not self.complete:
            raise _LeftLeadingEigenspace
        if count > A.shape[0] // 2:
            return self.U.T @ A
        return self.U[nonzero].T @ A[nonzero]

    def q_step(self, P_hat: np.ndarray, C_hat: np.ndarray, lam: float, rho: float) -> np.ndarray:
        """``K^{-1/2} Q`` in eigen-coordinates after the Q update (Alg. 1 step 6, Alg. 2 step 5).

        ``Q = (K + lam I + rho K^{-1})^{-1} [K P + rho K^{-1/2} C]`` with ``C =
        a - t / rho`` (Alg. 1) or ``A + W`` (Alg. 2); pseudo-inverses make the
        null-space coordinates 0.
        """
        s = self.s
        denom = s * s + lam * s + rho
        w_p = np.where(self.in_range, s * self.sqrt / denom, 0.0)
        w_c = np.where(self.in_range, rho / denom, 0.0)
        if P_hat.ndim == 2:
            w_p, w_c = w_p[:, np.newaxis], w_c[:, np.newaxis]
        return w_p * P_hat + w_c * C_hat


POSITIVE = [NumberInterval(Real, 0, None, closed="neither")]
NON_NEGATIVE = [NumberInterval(Real, 0, None, closed="left")]
_COUNT = [NumberInterval(Integral, 1, None, closed="left")]


def _unit_components(A: np.ndarray, K: np.ndarray, unit: bool = True):
    """Scale each column of A to unit feature-space norm (if ``unit``); fix its sign.

    Returns ``(dual_coef, raw_coef, eigenvalues, gram, empty)``: the unit columns (A
    itself, sign-fixed, when not ``unit``), A with the same sign flips, ``||K
    a||^2`` of each column of dual_coef (for unit columns the training variance
    along the component times N, exact KPCA's eigenvalue when the penalty
    vanishes), ``dual_coef^T K dual_coef`` and which columns are empty (no
    non-zero coefficient, or a zero feature-space norm).
    """
    KA = K @ A
    sq_norms = np.einsum("ij,ij->j", A, KA)
    empty = sq_norms <= 0
    if empty.any():
        warnings.warn(
            f"{int(empty.sum())} of {A.shape[1]} sparse components have no non-zero coefficient "
            "(or a zero feature-space norm); their dual coefficients are all 0 and their Mahalanobis "
            "term is undefined. Lower the sparsity penalty (lam1 / mu21) or raise max_iter.",
            stacklevel=7,
        )
    scale = np.zeros_like(sq_norms) if unit else np.ones_like(sq_norms)
    if unit:
        scale[~empty] = 1.0 / np.sqrt(sq_norms[~empty])
    rows = np.argmax(np.abs(A), axis=0)
    signs = np.sign(A[rows, np.arange(A.shape[1])])
    signs[signs == 0] = 1.0
    raw = A * signs
    dual = raw * scale
    KD = KA * (signs * scale)
    eigenvalues = np.einsum("ij,ij->j", KD, KD)
    return dual, raw, eigenvalues, dual.T @ KD, empty


class SparseADMMBase(BaseKernelPCA):
    """Shared parameters and fitted-attribute bookkeeping of the two ADMM variants."""

    _parameter_constraints: dict = {
        **BaseKernelPCA._parameter_constraints,
        "lam": POSITIVE,
        "eps_outer": POSITIVE,
        "max_iter": _COUNT,
        "max_outer_iter": _COUNT,
        "admm_init": [StrOptions(set(ADMM_INITS))],
        "projection": [StrOptions(set(PROJECTIONS))],
        "outer_stop": [StrOptions(set(OUTER_STOPS))],
    }

    def _fit_components(self, K_centered):
        """Solve on the leading spectrum while A stays 0; on the full one from scratch once it does not.

        While every A the ADMM produces is 0, every iterate of both algorithms
        lies in the span of the top ``n_components`` eigenvectors (the start
        ``P`` does, and the Q step maps that span into itself), so the top
        eigenpairs give the same A (0) as the full decomposition, which costs
        most of the fit at large n. As soon as an A is non-zero the fit starts
        again on the full spectrum: the result is then today's path exactly.
        """
        self._check_n_components(K_centered.shape[0])  # sets n_components_ (also when called directly)
        n, M = K_centered.shape[0], self.n_components_
        self._resolve_parameters(n)
        if n >= LEADING_SPECTRUM_MIN_SAMPLES and M <= n // 10:
            try:
                self._solve(Spectrum.leading(K_centered, M), K_centered)
                return
            except _LeftLeadingEigenspace:
                pass
        self._solve(Spectrum.of(K_centered), K_centered)

    def _finish(self, A: np.ndarray, K: np.ndarray) -> None:
        self.dual_coef_, self.raw_coef_, self.eigenvalues_, self.components_gram_, self.empty_components_ = (
            _unit_components(A, K, unit=self.projection == "unit")
        )
        self.selected_samples_ = np.flatnonzero(self.dual_coef_.any(axis=1))


class L1SparseKernelPCA(SparseADMMBase):
    """Sparse kernel PCA with an l1 penalty, solved by ADMM (Wang & Tanaka, Algorithm 1).

    Components are found one after another. For component k, starting from
    ``p_k`` = the k-th eigenvector of the centered kernel (Remark 2), the outer
    loop alternates

    1. an ADMM on eq. 15 with the constraint ``q_k = K^{1/2} a_k`` (eq. 12):
       ``q_k <- (K + lam I + rho K^{-1})^{-1} [K p_k + rho K^{-1/2}(a_k - t_k / rho)]``,
       ``a_k <- S_{lam1_k / rho}(K^{-1/2} q_k + t_k / rho)``,
       ``t_k <- t_k + rho (K^{-1/2} q_k - a_k)``, until both residuals are
       below the tolerances of section 3.1 or ``max_iter``;
    2. ``q_k <- q_k / ||q_k||``, ``p_k = (I - P_{k-1} P_{k-1}^T) K q_k``,
       ``p_k <- p_k / ||p_k||`` (deflation against the earlier, final ``p``'s);

    until ``||q_k^new - q_k^old||^2 < eps_outer`` (section 4.1.1's
    ``epsilon_{l1}``) or ``max_outer_iter``. ``q_k^old`` is the normalised
    ``q_k`` of the previous outer iteration, and ``p_k`` itself for the first
    one. The output is ``A = [a_1, ..., a_M]``.

    Not to be confused with :class:`~kpca_bench.methods.l1_kpca.L1KernelPCA`
    (Kim), which maximises an L1-norm dispersion for robustness; here the l1
    norm is a sparsity penalty on the coefficients.

    Algorithm 1 as printed thresholds with ``S_{lambda / rho}`` in step 7; the
    derivation (section 3.1) and section 4.1.2 give ``lambda_{1,k} / rho``,
    which is the default (``threshold="lam1"``); ``threshold="lam"`` follows the print.

    Defaults are the paper's Gaussian-mixture settings (section 4.1.1), with one
    ``lam1`` for all components. Das et al. (section V) use, for MNIST, ``rho=0.02,
    lam=0.001, lam1=0.01, eps_abs=0.01, eps_rel=1e-4``.

    Parameters
    ----------
    n_components : int, default=None
        Number of sparse components M. None: 10, or ``n_samples - 1`` if fewer.
    kernel, gamma, sigma, degree, coef0
        Kernel, as in :class:`~kpca_bench.methods.kpca.KernelPCA`. The paper
        uses the RBF kernel ``exp(-gamma ||x - y||^2)``.
    lam : float, default=0.1
        Ridge weight ``lambda`` of eqs. 13-15.
    lam1 : float or sequence of float, default=0.01
        l1 weights ``lambda_{1,k}``, one per component or one for all. The
        threshold is ``lam1_k / rho``. 0 disables the penalty (exact KPCA).
    rho : float, default=0.01
        ADMM penalty ``rho`` (fixed).
    eps_abs, eps_rel : float, default=1e-4
        Absolute and relative tolerances ``epsilon^abs``, ``epsilon^rel`` of
        the ADMM stopping rule (section 3.1, after Boyd et al. 2011).
    eps_outer : float, default=1e-2
        ``epsilon_{l1}``: the outer loop stops when ``||q_new - q_old||^2`` is below it.
    max_iter : int, default=300
        Inner (ADMM) iteration cap per outer iteration.
    max_outer_iter : int, default=300
        Outer iteration cap per component.
    admm_init : {"warm", "zeros"}, default="warm"
        How step 4 initialises ``a_k, t_k`` at each outer iteration: from the
        previous outer iteration's values ("warm", our choice), or from 0
        ("zeros": Algorithm 1 as printed, "Initialize" inside every outer
        loop). Both reach the same ADMM solution, but with
        small iteration caps the result depends on this choice. The first
        outer iteration starts at 0.
    threshold : {"lam1", "lam"}, default="lam1"
        The weight over ``rho`` in step 7's soft threshold: ``lam1_k``, as
        section 3.1 derives it (and sections 4.1.2 and 5 state), or ``lam``,
        the ridge weight, as step 7 of Algorithm 1 prints it. The two coincide when ``lam1 == lam``.
    projection : {"unit", "raw"}, default="unit"
        What ``dual_coef_`` (and so ``transform`` and every score) uses: A
        with each column scaled to unit feature-space norm ("unit", our
        choice: the outlier scores assume unit components), or A as the
        algorithm outputs it, projecting with eq. 5 ("raw").
    outer_stop : {"converged", "cap"}, default="converged"
        When the outer loop ends: at ``eps_outer`` or ``max_outer_iter``,
        whichever comes first ("converged", our reading), or after exactly
        ``max_outer_iter`` iterations ("cap"; ``converged_`` still says
        whether ``eps_outer`` was met). Source: Algorithm 1 step 3 and
        Algorithm 2 step 2 print "while not convergent *or* within the preset
        iteration" (the inner loops print "and"), and section 4.2 says "the
        loop numbers of inner and outer loops ... are set to 10 and 5".

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_train, n_components)
        ``raw_coef_`` with each column scaled to unit feature-space norm
        (``a^T K~ a = 1``); exact zeros are kept. See the module docstring.
        With ``projection="raw"``, ``raw_coef_`` itself.
    raw_coef_ : ndarray of shape (n_train, n_components)
        The paper's output ``A`` (same signs as ``dual_coef_``).
    eigenvalues_ : ndarray of shape (n_components,)
        ``||K~ a_k||^2`` for the unit columns: N times the training variance
        along each component; exact KPCA's eigenvalues when ``lam1 = 0``.
    components_gram_ : ndarray of shape (n_components, n_components)
        ``dual_coef_^T K~ dual_coef_``: unit diagonal; its off-diagonal shows
        how far the sparse components are from orthogonal.
    selected_samples_ : ndarray of int
        Training samples with a non-zero coefficient in at least one component.
    empty_components_ : ndarray of bool, shape (n_components,)
        Components with no non-zero coefficient (or a zero feature-space
        norm): they explain no variance. All empty: the model has no
        components and scores every point by its distance to the kernel mean.
    lam1_ : ndarray of shape (n_components,)
        The resolved ``lambda_{1,k}``.
    n_iter_ : int
        The most outer iterations any component ran (``max_outer_iter`` means
        at least one component stopped on the cap).
    n_outer_iter_ : ndarray of shape (n_components,)
        Outer iterations run for each component.
    n_inner_iter_ : list of ndarray
        For each component, the ADMM iterations of each of its outer iterations.
    converged_ : ndarray of bool, shape (n_components,)
        Whether each component's outer loop met ``eps_outer``.
    residuals_ : list of ADMMTrace
        For each component, the residual history of its last ADMM run.
    kernel_, gamma_, centering_, X_fit_, projection_variances_, n_features_in_
        See :class:`~kpca_bench.methods.kpca.BaseKernelPCA`.

    References
    ----------
    D. Wang, T. Tanaka. Kernel principal component analysis allowing sparse
    representation and sample selection. ECTI Transactions on Computer and
    Information Technology 13(1), 2019. Section 3.1, eqs. 12-15, Algorithm 1.

    S. Boyd et al. Distributed optimization and statistical learning via the
    alternating direction method of multipliers. Foundations and Trends in
    Machine Learning 3(1), 2011. Section 3.3 (stopping criteria).
    """

    # Components are found one after another, so the first k do not depend on how many are computed.
    nested_components = True

    _parameter_constraints: dict = {
        **SparseADMMBase._parameter_constraints,
        # One number, or one per component (checked with n_components in fit).
        "lam1": [*NON_NEGATIVE, "array-like"],
        "rho": POSITIVE,
        "eps_abs": POSITIVE,
        "eps_rel": POSITIVE,
        "threshold": [StrOptions(set(L1_THRESHOLDS))],
    }

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma=None,
        sigma=None,
        degree=3,
        coef0=1.0,
        lam=0.1,
        lam1=0.01,
        rho=0.01,
        eps_abs=1e-4,
        eps_rel=1e-4,
        eps_outer=1e-2,
        max_iter=300,
        max_outer_iter=300,
        admm_init="warm",
        threshold="lam1",
        projection="unit",
        outer_stop="converged",
    ):
        super().__init__(n_components, kernel=kernel, gamma=gamma, sigma=sigma, degree=degree, coef0=coef0)
        self.lam = lam
        self.lam1 = lam1
        self.rho = rho
        self.eps_abs = eps_abs
        self.eps_rel = eps_rel
        self.eps_outer = eps_outer
        self.max_iter = max_iter
        self.max_outer_iter = max_outer_iter
        self.admm_init = admm_init
        self.threshold = threshold
        self.outer_stop = outer_stop
        self.projection = projection

    def _resolve_lam1(self) -> np.ndarray:
        lam1 = np.asarray(self.lam1, dtype=float)
        if lam1.ndim == 0:
            lam1 = np.full(self.n_components_, float(lam1))
        if lam1.shape != (self.n_components_,):
            raise ValueError(
                f"lam1 must be one number or one per component ({self.n_components_}), got {len(lam1)} values"
            )
        if not np.all(np.isfinite(lam1)) or np.any(lam1 < 0):
            raise ValueError(f"every lam1 must be a number >= 0, got {self.lam1!r}")
        return lam1

    def _resolve_parameters(self, n_samples: int) -> None:
        self.lam1_ = self._resolve_lam1()

    def _solve(self, spec: Spectrum, K_centered: np.ndarray) -> None:
        n, r, M = K_centered.shape[0], spec.s.size, self.n_components_
        A = np.zeros((n, M))
        P_hat = np.zeros((r, M))
        self.n_outer_iter_ = np.zeros(M, dtype=int)
        self.n_inner_iter_, self.residuals_ = [], []
        self.converged_ = np.zeros(M, dtype=bool)
        for k in range(M):
            p_hat = np.zeros(r)
            p_hat[k] = 1.0
            q_old = p_hat
            state = None
            inner = []
            for outer in range(self.max_outer_iter):
                if state is None or self.admm_init == "zeros":
                    state = (np.zeros(n), np.zeros(n), np.zeros(r), np.zeros(r))
                b_hat, state, trace = self._admm(spec, p_hat, self.lam1_[k], state)
                inner.append(len(trace.primal))
                q_hat = spec.sqrt * b_hat
                q_hat /= np.linalg.norm(q_hat)  # step 10
                p_hat = spec.s * q_hat  # step 11, in eigen-coordinates
                p_hat -= P_hat[:, :k] @ (P_hat[:, :k].T @ p_hat)
                p_hat /= np.linalg.norm(p_hat)  # step 12
                done = np.sum((q_hat - q_old) ** 2) < self.eps_outer
                q_old = q_hat
                if done:
                    self.converged_[k] = True
                    if self.outer_stop == "converged":
                        break
            P_hat[:, k] = p_hat
            assert state is not None, "max_outer_iter >= 1 (its parameter constraint): one outer step at least"
            A[:, k] = state[0]
            self.n_outer_iter_[k] = len(inner)
            self.n_inner_iter_.append(np.array(inner))
            self.residuals_.append(trace)
        self.n_iter_ = int(self.n_outer_iter_.max())
        warn_if_stopped_short(int((~self.converged_).sum()), M, self.max_outer_iter)
        self._finish(A, K_centered)

    def _admm(self, spec: Spectrum, p_hat, lam1, state):
        """Steps 5-9 of Algorithm 1 for one component; returns ``K^{-1/2} q`` (eigen-coords)."""
        a, t, a_hat, t_hat = state
        rho, tau = self.rho, (lam1 if self.threshold == "lam1" else self.lam) / self.rho
        sqrt_n = np.sqrt(len(a))
        rows, converged = [], False
        for _ in range(self.max_iter):
            b_hat = spec.q_step(p_hat, a_hat - t_hat / rho, self.lam, rho)  # step 6
            b = spec.U @ b_hat
            a_new = soft_threshold(b + t / rho, tau)  # step 7
            t = t + rho * (b - a_new)  # step 8
            a_hat_new = spec.to_eigen(a_new)
            t_hat = t_hat + rho * (b_hat - a_hat_new)
            primal = np.linalg.norm(b - a_new)
            dual = rho * np.linalg.norm(spec.inv_sqrt * (a_hat_new - a_hat))
            eps_primal = sqrt_n * self.eps_abs + self.eps_rel * max(np.linalg.norm(b_hat), np.linalg.norm(a_new))
            eps_dual = sqrt_n * self.eps_abs + self.eps_rel * np.linalg.norm(spec.inv_sqrt * t_hat)
            a, a_hat = a_new, a_hat_new
            rows.append((primal, dual, eps_primal, eps_dual, rho))
            if primal <= eps_primal and dual <= eps_dual:
                converged = True
                break
        return b_hat, (a, t, a_hat, t_hat), ADMMTrace.from_rows(rows, converged)
