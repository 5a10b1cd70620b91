"""L1-norm kernel PCA (Kim): components that maximise the L1 dispersion of the projections.

Replacing the squared projections of PCA by their absolute values makes a
component less attracted by a few points far from the rest, which is the
point of using it to fit an outlier detector on contaminated data.
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy import linalg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from kpca_bench.eigensolvers import top_eigenpairs
from kpca_bench.methods.kpca import BaseKernelPCA
from kpca_bench.param_validation import NumberInterval

# Above this many training points the KPCA start uses Lanczos instead of
# LAPACK, whose cost is cubic in n even for a few eigenpairs.
_ARPACK_MIN_SAMPLES = 100


def l1_fixed_point(K: np.ndarray, C: np.ndarray, max_iter: int):
    """Run the L1-PCA fixed-point iteration from every column of ``C`` at once.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Centered (possibly deflated) kernel matrix; not modified.
    C : ndarray of shape (n, n_starts)
        Start directions ``x = sum_i C[i, r] phi~(a_i)``, each of unit norm
        (``C[:, r]^T K C[:, r] = 1``).
    max_iter : int
        Maximum number of sign-pattern updates per start.

    Returns
    -------
    C : ndarray of shape (n, n_starts)
        Final unit directions (fixed points unless ``max_iter`` was reached).
    history : ndarray of shape (max_steps + 1, n_starts)
        Objective ``sum_i |<phi~(a_i), x>|`` after each step, row 0 at the
        start; a start that has stopped repeats its last value.
    n_iter : ndarray of shape (n_starts,)
        Number of updates of each start; its history is ``history[:n_iter + 1]``.
    converged : ndarray of bool, shape (n_starts,)
    """
    C = C.copy()
    P = K @ C
    n_starts = C.shape[1]
    history = [np.abs(P).sum(axis=0)]
    # No start comes from a sign pattern, so the first check always moves.
    signs = np.zeros_like(C)
    KS_all = np.zeros_like(C)  # K @ signs
    active = np.ones(n_starts, dtype=bool)
    n_iter = np.zeros(n_starts, dtype=int)
    for step in range(max_iter + 1):
        idx = np.flatnonzero(active)
        # A zero projection gets sign +1 (Kwak 2008): any fixed choice keeps the pattern finite.
        new_signs = np.where(P[:, idx] >= 0, 1.0, -1.0)
        moved = np.any(new_signs != signs[:, idx], axis=0)
        active[idx[~moved]] = False
        idx, new_signs = idx[moved], new_signs[:, moved]
        if idx.size == 0 or step == max_iter:
            break
        if step:
            KS = _update_kernel_times_signs(K, KS_all[:, idx], signs[:, idx], new_signs)
        else:
            KS = K @ new_signs
        norms = np.sqrt(np.einsum("ij,ij->j", new_signs, KS))
        KS_all[:, idx] = KS
        signs[:, idx] = new_signs
        C[:, idx] = new_signs / norms
        P[:, idx] = KS / norms
        n_iter[idx] += 1
        history.append(np.abs(P).sum(axis=0))
    return C, np.array(history), n_iter, ~active


def _update_kernel_times_signs(K, KS, signs, new_signs):
    """``K @ new_signs`` from ``KS = K @ signs``, reading only the rows of K whose sign flipped.

    After the first steps few signs change, so this costs O(n * flips) per
    start instead of a full O(n^2) pass over K (K is symmetric: column i is row i).
    """
    for col in range(KS.shape[1]):
        flipped = np.flatnonzero(new_signs[:, col] != signs[:, col])
        if 2 * flipped.size > K.shape[0]:
            KS[:, col] = K @ new_signs[:, col]
        else:
            KS[:, col] += new_signs[flipped, col] @ K[flipped] * 2.0
    return KS


class L1KernelPCA(BaseKernelPCA):
    """L1-norm kernel PCA by Kim's boundary-walking (fixed-point) algorithm, with deflation.

    Component 1 solves (Kim, problem 1)::

        maximise  sum_i |phi~(a_i)^T x|   subject to  ||x|| = 1,

    through the equivalent problem 2: minimise ``||x||`` subject to
    ``sum_i |phi~(a_i)^T x| = 1``. On that boundary, with sign pattern
    ``s_i = sign(phi~(a_i)^T x_t)``, the iterate lies on the hyperplane
    ``{x : sum_i s_i phi~(a_i)^T x = 1}``, whose closest point to the origin is
    ``z = u / ||u||^2`` with ``u = sum_i s_i phi~(a_i)``; rescaling it onto the
    constraint gives ``x_{t+1} = z / sum_i |phi~(a_i)^T z|``. Up to scale this is
    ``x_{t+1} ∝ u = sum_i s_i phi~(a_i)``: Kwak's fixed-point iteration for
    L1-PCA, with ``||x_{t+1}|| = 1 / f(x_{t+1})`` where ``f`` is problem 1's
    objective of the unit direction. The objective never decreases, since for
    unit ``x_t`` and ``u`` built from its signs

        f(x_t) = u^T x_t <= ||u|| = s^T Phi~ u / ||u|| <= f(u / ||u||) = f(x_{t+1}),

    with equality throughout only if ``x_{t+1} = x_t``; so no sign pattern
    repeats and the loop ends, in finitely many steps, when the signs stop
    changing (Kim's convergence result; Kwak, theorem 1).

    **Kernel form.** With ``x = sum_j c_j phi~(a_j)``, the projections are
    ``K~ c`` and ``u`` has dual vector ``s``, so one step is
    ``c <- s / sqrt(s^T K~ s)`` (unit norm; Kim's unscaled closest point is
    ``s / (s^T K~ s)``) and ``s <- sign(K~ c)``: only the centered kernel
    matrix is needed.

    **Further components** come from deflation: projecting ``v = Phi~^T c`` (unit)
    out of every training feature, ``phi'_i = (I - v v^T) phi~_i``, gives the
    kernel ``K' = K~ - (K~ c)(K~ c)^T``, which equals
    ``(I - K~ c c^T) K~ (I - c c^T K~)`` when ``c^T K~ c = 1``. A unit direction
    ``c'`` found on ``K'`` is ``v' = sum_i c'_i phi'_i``; over the original
    centered features its coefficients are ``c' - sum_j c_j <v_j, Phi~^T c'>``,
    so ``dual_coef_^T K~ dual_coef_ = I``.

    Each component keeps the best of ``n_restarts`` random starts (Gaussian
    dual vectors: random directions in the span of the data) and the KPCA start:
    the top eigenvector of the deflated kernel, computed by Rayleigh-Ritz in
    the span of the top ``n_components`` eigenvectors of ``K~`` (one eigensolve
    for all components; exact for the first one, where it is the kernel
    principal component).

    Parameters
    ----------
    n_components : int, default=None
        Number of components; at most ``n_samples - 1``. None: 10, or fewer on fewer samples.
    kernel, gamma, sigma, degree, coef0
        See :class:`~kpca_bench.methods.kpca.KernelPCA`.
    n_restarts : int, default=5
        Random starts per component, besides the KPCA start.
    max_iter : int, default=100
        Maximum sign-pattern updates per start; reaching it raises a
        ``ConvergenceWarning``. The iteration usually stops after a few.
    random_state : int, RandomState or None
        Seeds the random starts and the Lanczos start vector.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_train, n_components)
        ``v_j = sum_i dual_coef_[i, j] phi~(a_i)``; orthonormal in feature
        space. Each column's sign makes its largest-magnitude training
        projection positive.
    objective_history_ : list of ndarray
        For each component, the objective ``sum_i |<phi'_i, v_j>|`` on the
        deflated kernel at every step of the start that was kept (first entry:
        its start). Non-decreasing.
    n_iter_ : int
        The most sign-pattern updates of any kept start (scikit-learn wants an
        int); component j's count is ``len(objective_history_[j]) - 1``.
    projection_variances_, kernel_, gamma_, centering_, X_fit_, n_features_in_
        As in :class:`~kpca_bench.methods.kpca.BaseKernelPCA`. There are no
        eigenvalues: ``projection_variances_`` serves the Mahalanobis score.

    References
    ----------
    C. Kim, D. Klabjan. A simple and fast algorithm for L1-norm kernel PCA.
    IEEE Transactions on Pattern Analysis and Machine Intelligence 42(8), 2020
    (problems 1 and 2 and the convergence results as summarised in
    ``papers/kim_l1-norm-kernel-pca.txt``).

    N. Kwak. Principal component analysis based on L1-norm maximization.
    IEEE Transactions on Pattern Analysis and Machine Intelligence 30(9), 2008.
    """

    _parameter_constraints: dict = {
        **BaseKernelPCA._parameter_constraints,
        "n_restarts": [NumberInterval(Integral, 0, None, closed="left")],
        "max_iter": [NumberInterval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
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
        n_restarts=5,
        max_iter=100,
        random_state=None,
    ):
        super().__init__(n_components, kernel=kernel, gamma=gamma, sigma=sigma, degree=degree, coef0=coef0)
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.random_state = random_state

    def _fit_components(self, K_centered):
        self._check_n_components(K_centered.shape[0])  # sets n_components_ (also when called directly)
        rng = check_random_state(self.random_state)
        n, k = K_centered.shape[0], self.n_components_
        solver = "arpack" if n > _ARPACK_MIN_SAMPLES else "eigh"
        eig = top_eigenpairs(K_centered, k, solver, rng.randint(np.iinfo(np.int32).max))
        values, U = eig.values, eig.vectors
        # Same cut-off as kpca.dual_coefficients: rounding level of the top eigenvalue.
        zero_tol = values[0] * n * np.finfo(float).eps
        K = K_centered.copy()
        dual = np.zeros((n, k))
        projections = np.zeros((n, k))
        self.objective_history_, n_iters = [], []
        for j in range(k):
            if np.trace(K) <= n * zero_tol:
                warnings.warn(f"the centered kernel has rank {j}, so components {j + 1} to {k} are zero", stacklevel=4)
                self.objective_history_ += [np.zeros(1)] * (k - j)
                break
            kpca_start = self._kpca_start(values, U, projections[:, :j], zero_tol)
            # Without a KPCA start (no variance left in its subspace) one random start is the minimum.
            random_starts = self._random_starts(K, rng, max(self.n_restarts, 1 - len(kpca_start)))
            starts = np.column_stack([*kpca_start, *random_starts.T])
            C, history, n_iter, converged = l1_fixed_point(K, starts, self.max_iter)
            best = int(np.argmax(history[-1]))
            if not converged[best]:
                warnings.warn(
                    f"L1-norm KPCA component {j + 1}: the sign pattern still changed after "
                    f"max_iter={self.max_iter} steps; increase max_iter",
                    ConvergenceWarning,
                    stacklevel=4,
                )
            c, p = C[:, best], K @ C[:, best]
            if p[np.argmax(np.abs(p))] < 0:
                c, p = -c, -p
            dual[:, j] = c - dual[:, :j] @ (projections[:, :j].T @ c)
            projections[:, j] = p
            K -= np.outer(p, p)
            self.objective_history_.append(history[: n_iter[best] + 1, best])
            n_iters.append(n_iter[best])
        self.dual_coef_ = dual
        self.n_iter_ = int(max(n_iters, default=0))

    @staticmethod
    def _kpca_start(values, U, projections, zero_tol) -> list:
        """Top eigenvector of the deflated kernel by Rayleigh-Ritz on the top KPCA eigenvectors.

        ``K' U = U diag(values) - P (P^T U)`` with P the projections on the
        components found so far, so ``U^T K' U`` is a small matrix and one
        eigensolve of the full kernel serves every component; for the first
        component this is exactly the top kernel principal component.
        Returns the unit dual vector in a list, or an empty list when the
        deflated kernel has no variance left in that subspace.
        """
        B = U.T @ projections
        mu, y = linalg.eigh(np.diag(values) - B @ B.T, subset_by_index=[len(values) - 1, len(values) - 1])
        if mu[0] <= zero_tol:
            return []
        return [U @ y[:, 0] / np.sqrt(mu[0])]

    @staticmethod
    def _random_starts(K: np.ndarray, rng, count: int) -> np.ndarray:
        C = rng.standard_normal((K.shape[0], count))
        return C / np.sqrt(np.einsum("ij,ij->j", C, K @ C))
