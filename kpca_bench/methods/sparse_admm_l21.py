"""Group-sparse kernel PCA by ADMM with an l2,1 penalty: Wang & Tanaka's Algorithm 2.

All components are solved together with a row-wise (vectorial) soft threshold, so whole rows of ``A``
vanish and the non-zero rows are the *selected samples*. The linear algebra, the projection and what
``dual_coef_`` holds are those of :mod:`kpca_bench.methods.sparse_admm`, which also has the l1 variant.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy import linalg

from kpca_bench.methods.sparse_admm import (
    NON_NEGATIVE,
    POSITIVE,
    RHO_INITS,
    ADMMTrace,
    SparseADMMBase,
    Spectrum,
    row_soft_threshold,
    warn_if_stopped_short,
)
from kpca_bench.param_validation import NumberInterval, StrOptions


class L21SparseKernelPCA(SparseADMMBase):
    """Sample-selecting sparse kernel PCA with an l2,1 penalty, by ADMM (Wang & Tanaka, Algorithm 2).

    All M components are updated together. Starting from ``P`` = the top M
    eigenvectors of the centered kernel, the outer loop alternates

    1. an ADMM on eq. 17 with the scaled dual ``W = T / rho_21``:
       ``Q <- (K + lam I + rho_21 K^{-1})^{-1} [K P + rho_21 K^{-1/2}(A + W)]``,
       ``A <- row-wise soft threshold of R = K^{-1/2} Q - W`` with ``beta =
       mu21 / rho_21`` (eq. 19), ``W <- W - K^{-1/2} Q + A``; after each
       iteration ``rho_21`` is balanced against the residuals (doubled when
       ``||E_p|| > eta ||E_d||``, halved when ``||E_d|| > eta ||E_p||``, with W
       rescaled by the inverse factor). The run stops when ``||E_p||_F < delta``
       and ``||E_d||_F < delta``, or after ``max_iter`` iterations;
    2. ``K Q = E_1 D_1 F_1^T`` (thin SVD), ``P = E_1 F_1^T``;

    until ``||Q^new - Q^old||_F^2 < eps_outer`` (``epsilon_{l2,1}``) or
    ``max_outer_iter``, where ``Q^old`` is the previous outer iteration's Q
    (``P`` for the first). Rows of A that are 0 in every component drop out
    of the model: ``selected_samples_`` are the others.

    Section 3.2 prints the stopping rule with "or". Taken literally it ends the
    first ADMM run after one iteration whenever that iteration leaves A at 0
    (the dual residual is then exactly 0): with the paper's own toy settings
    (``mu21 / rho21 = 1``) every row is thresholded at the first iteration and
    the model would be empty, unlike the paper's Fig. 1(c). Boyd et al.'s rule,
    both residuals small, is used instead.

    Defaults are the paper's Gaussian-mixture settings (section 4.1.1).

    Parameters
    ----------
    n_components : int, default=None
        Number of components M. None: 10, or ``n_samples - 1`` if fewer.
    kernel, gamma, sigma, degree, coef0
        Kernel, as in :class:`~kpca_bench.methods.kpca.KernelPCA`.
    lam : float, default=0.01
        Ridge weight ``lambda`` of eqs. 16-17.
    mu21 : float, default=0.01
        l2,1 weight ``mu_21``; the row threshold is ``mu21 / rho_21``. 0
        disables the penalty (exact KPCA).
    rho21 : float, default=0.01
        Initial ADMM penalty ``rho_21`` (adapted during the run; the final
        value is ``rho_``).
    delta : float or None, default=None
        ``delta_{l2,1}``, the residual tolerance. None means ``N * 1e-4`` with
        N the number of training samples, the paper's choice (sections 4.1, 4.2).
    eps_outer : float, default=1e-2
        ``epsilon_{l2,1}``: the outer loop stops when ``||Q_new - Q_old||_F^2`` is below it.
    max_iter : int, default=300
        Inner (ADMM) iteration cap per outer iteration.
    max_outer_iter : int, default=10
        Outer iteration cap.
    eta, tau_incr, tau_decr : float, default=10, 2, 2
        Residual-balancing rule for ``rho_21`` (Boyd et al. 2011, eq. 3.13).
    admm_init : {"warm", "zeros"}, default="warm"
        How step 3 initialises ``A, W`` (and ``rho_21``) at each outer
        iteration: carried over from the previous one ("warm", our choice),
        or reset to 0 and to the initial ``rho21`` ("zeros": Algorithm 2 as
        printed, "Initialize" inside every outer loop). The
        first outer iteration starts at 0.
    rho_init : {"initial", "carried"}, default="initial"
        With ``admm_init="zeros"``, the ``rho_21`` each ADMM run starts from:
        the initial ``rho21`` ("initial", our reading so far) or the value the
        residual balancing left at the end of the previous outer iteration
        ("carried"). Source: Algorithm 2 step 3 prints "Initialize Q, A, W",
        which does not list ``rho_21``, and section 3.2 describes the adaptive
        rule as updating ``rho_21`` (with W rescaled) without any reset. With
        ``admm_init="warm"`` ``rho_21`` is carried over either way.
    projection : {"unit", "raw"}, default="unit"
        As in :class:`L1SparseKernelPCA`: unit columns (our choice) or A as
        output, eq. 5.
    outer_stop : {"converged", "cap"}, default="converged"
        As in :class:`L1SparseKernelPCA` (Algorithm 2 step 2).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_train, n_components)
        ``raw_coef_`` with each column scaled to unit feature-space norm
        (``raw_coef_`` itself with ``projection="raw"``); every row is either
        entirely 0 or (generically) entirely non-zero.
    raw_coef_ : ndarray of shape (n_train, n_components)
        The paper's output ``A`` (same signs as ``dual_coef_``).
    selected_samples_ : ndarray of int
        Indices of the non-zero rows of A: the training samples the model uses.
    empty_components_ : ndarray of bool, shape (n_components,)
        As in :class:`L1SparseKernelPCA`.
    eigenvalues_ : ndarray of shape (n_components,)
        ``||K~ a_k||^2`` for the unit columns (see :class:`L1SparseKernelPCA`).
    components_gram_ : ndarray of shape (n_components, n_components)
        ``dual_coef_^T K~ dual_coef_``.
    delta_ : float
        The resolved ``delta_{l2,1}``.
    rho_ : float
        ``rho_21`` at the end of the last ADMM run.
    n_iter_ : int
        Outer iterations run.
    n_inner_iter_ : ndarray of int
        ADMM iterations of each outer iteration.
    converged_ : bool
        Whether the outer loop met ``eps_outer``.
    residuals_ : list of ADMMTrace
        Residual history of every ADMM run, one per outer iteration.
    kernel_, gamma_, centering_, X_fit_, projection_variances_, n_features_in_
        See :class:`~kpca_bench.methods.kpca.BaseKernelPCA`.

    References
    ----------
    D. Wang, T. Tanaka. Kernel principal component analysis allowing sparse
    representation and sample selection. ECTI Transactions on Computer and
    Information Technology 13(1), 2019. Section 3.2, eqs. 16-19, Algorithm 2.

    S. Boyd et al. Distributed optimization and statistical learning via the
    alternating direction method of multipliers. Foundations and Trends in
    Machine Learning 3(1), 2011. Section 3.4.1 (residual balancing).
    """

    _parameter_constraints: dict = {
        **SparseADMMBase._parameter_constraints,
        "mu21": NON_NEGATIVE,
        "rho21": POSITIVE,
        "delta": [*POSITIVE, None],
        **{name: [NumberInterval(Real, 1, None, closed="neither")] for name in ("eta", "tau_incr", "tau_decr")},
        "rho_init": [StrOptions(set(RHO_INITS))],
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
        lam=0.01,
        mu21=0.01,
        rho21=0.01,
        delta=None,
        eps_outer=1e-2,
        max_iter=300,
        max_outer_iter=10,
        eta=10.0,
        tau_incr=2.0,
        tau_decr=2.0,
        admm_init="warm",
        projection="unit",
        rho_init="initial",
        outer_stop="converged",
    ):
        super().__init__(n_components, kernel=kernel, gamma=gamma, sigma=sigma, degree=degree, coef0=coef0)
        self.lam = lam
        self.mu21 = mu21
        self.rho21 = rho21
        self.delta = delta
        self.eps_outer = eps_outer
        self.max_iter = max_iter
        self.max_outer_iter = max_outer_iter
        self.eta = eta
        self.tau_incr = tau_incr
        self.tau_decr = tau_decr
        self.admm_init = admm_init
        self.projection = projection
        self.rho_init = rho_init
        self.outer_stop = outer_stop

    def _resolve_parameters(self, n_samples: int) -> None:
        self.delta_ = n_samples * 1e-4 if self.delta is None else float(self.delta)

    def _solve(self, spec: Spectrum, K_centered: np.ndarray) -> None:
        n, r, M = K_centered.shape[0], spec.s.size, self.n_components_
        P_hat = np.eye(r, M)
        Q_old = P_hat
        state = None
        self.residuals_ = []
        self.converged_ = False
        for _ in range(self.max_outer_iter):
            if state is None or self.admm_init == "zeros":
                rho = float(self.rho21) if state is None or self.rho_init == "initial" else state[4]
                state = (np.zeros((n, M)), np.zeros((n, M)), np.zeros((r, M)), np.zeros((r, M)), rho)
            B_hat, state, trace = self._admm(spec, P_hat, state)
            self.residuals_.append(trace)
            Q_hat = spec.sqrt[:, np.newaxis] * B_hat
            E, _, Ft = linalg.svd(spec.s[:, np.newaxis] * Q_hat, full_matrices=False)  # step 9
            P_hat = E @ Ft  # step 10
            done = np.sum((Q_hat - Q_old) ** 2) < self.eps_outer
            Q_old = Q_hat
            if done:
                self.converged_ = True
                if self.outer_stop == "converged":
                    break
        assert state is not None, "max_outer_iter >= 1 (its parameter constraint): one outer step at least"
        self.rho_ = state[4]
        self.n_iter_ = len(self.residuals_)
        warn_if_stopped_short(0 if self.converged_ else M, M, self.max_outer_iter)
        self.n_inner_iter_ = np.array([len(trace.primal) for trace in self.residuals_])
        self._finish(state[0], K_centered)

    def _admm(self, spec: Spectrum, P_hat, state):
        """Steps 4-8 of Algorithm 2 with residual balancing; returns ``K^{-1/2} Q`` (eigen-coords)."""
        A, W, A_hat, W_hat, rho = state
        rows, converged = [], False
        for _ in range(self.max_iter):
            B_hat = spec.q_step(P_hat, A_hat + W_hat, self.lam, rho)  # step 5
            B = spec.U @ B_hat
            A_new = row_soft_threshold(B - W, self.mu21 / rho)  # step 6, eq. 19
            A_hat_new = spec.to_eigen(A_new)
            W = W - B + A_new  # step 7
            W_hat = W_hat - B_hat + A_hat_new
            primal = np.linalg.norm(B - A_new)
            dual = rho * np.linalg.norm(spec.inv_sqrt[:, np.newaxis] * (A_hat_new - A_hat))
            A, A_hat = A_new, A_hat_new
            rows.append((primal, dual, self.delta_, self.delta_, rho))
            if primal < self.delta_ and dual < self.delta_:
                converged = True
                break
            if primal > self.eta * dual:
                rho *= self.tau_incr
                W, W_hat = W / self.tau_incr, W_hat / self.tau_incr
            elif dual > self.eta * primal:
                rho /= self.tau_decr
                W, W_hat = W * self.tau_decr, W_hat * self.tau_decr
        return B_hat, (A, W, A_hat, W_hat, rho), ADMMTrace.from_rows(rows, converged)
