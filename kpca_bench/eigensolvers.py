"""Top eigenpairs of a dense symmetric positive semi-definite matrix.

:func:`block_krylov_eigh` is a thick-restart block Lanczos method (block
Krylov–Schur for a symmetric matrix) with full reorthogonalisation and
Rayleigh–Ritz extraction. Its only products with the matrix are ``K @ P`` with
``P`` a block of many columns, which BLAS runs as one matrix-matrix product
(dgemm) near the machine's peak, where ARPACK's single-vector Lanczos reads the
whole matrix for every vector. It stops on the residuals
``||K v - theta v|| <= tol * theta_1`` of every wanted Ritz pair and returns
them, so the answer is certified, not estimated.

References: G. H. Golub, R. Underwood, "The block Lanczos method for computing
eigenvalues", 1977; G. W. Stewart, "A Krylov–Schur algorithm for large
eigenproblems", SIAM J. Matrix Anal. Appl. 23(3), 2001 (the restart); Y. Saad,
"Numerical Methods for Large Eigenvalue Problems", 2nd ed., 2011, sections 6.3
and 8.3 (block Lanczos, residual of a Ritz pair). Block size and basis size are
our choices (see :func:`block_sizes`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import linalg
from scipy.sparse.linalg import eigsh
from sklearn.exceptions import ConvergenceWarning

from kpca_bench.kernels import single_threaded_blas

EIGEN_SOLVERS = ("auto", "eigh", "arpack", "block")
# Residual tolerance relative to the largest eigenvalue (issue 19's contract).
DEFAULT_TOL = 1e-8
DEFAULT_MAX_RESTARTS = 100
# The "auto" rule's thresholds, from benchmarks/bench_eigensolvers.py (results/benchmarks/eigensolvers.md).
AUTO_BLOCK_MIN_COMPONENTS = 50
AUTO_BLOCK_MIN_SAMPLES = 5000
AUTO_MAX_BASIS_SHARE = 0.12


@dataclass(frozen=True)
class EigenResult:
    """Top eigenpairs, largest first, with the residual of each pair.

    Attributes
    ----------
    values : ndarray of shape (k,)
    vectors : ndarray of shape (n, k), orthonormal columns.
    solver : str
        The solver that ran (``"auto"`` resolved).
    residuals : ndarray of shape (k,) or None
        ``||K v_j - lambda_j v_j||`` (the block solver's; None for ``eigh`` and
        ``arpack``, which may not keep K to measure them).
    """

    values: np.ndarray
    vectors: np.ndarray
    solver: str
    residuals: np.ndarray | None = None


def choose_solver(n: int, k: int) -> str:
    """The fastest solver meeting the contract for ``k`` of ``n`` eigenpairs (the ``"auto"`` rule).

    ``eigh`` when the block solver's basis (:func:`block_sizes`) would exceed
    :data:`AUTO_MAX_BASIS_SHARE` of n: few samples or many components, where
    the dense reduction is as fast and works in place (the block solver's
    workspace, two n x basis arrays, is otherwise at most a quarter of K's
    8 n^2 bytes). Else ``block`` from :data:`AUTO_BLOCK_MIN_COMPONENTS` components
    or :data:`AUTO_BLOCK_MIN_SAMPLES` samples on (a K of 200 MB and more, read
    from memory for every product), where products with blocks of vectors beat
    ARPACK's one vector at a time, and ``arpack`` below. Thresholds from
    ``benchmarks/bench_eigensolvers.py``; all three meet the accuracy contract there.
    """
    if block_sizes(k)[1] > AUTO_MAX_BASIS_SHARE * n:
        return "eigh"
    return "block" if k >= AUTO_BLOCK_MIN_COMPONENTS or n >= AUTO_BLOCK_MIN_SAMPLES else "arpack"


def top_eigenpairs(K: np.ndarray, n_components: int, solver: str = "auto", random_state=None, *,
                   overwrite: bool = False) -> EigenResult:
    """The ``n_components`` largest eigenpairs of a symmetric PSD matrix, largest first.

    ``eigh`` asks LAPACK for that index range only (no full decomposition);
    ``arpack`` uses Lanczos iterations (scipy ``eigsh``); ``block`` is
    :func:`block_krylov_eigh`; ``auto`` picks by :func:`choose_solver`.
    Eigenvector signs are fixed so that each vector's largest-magnitude entry
    is positive, which makes results reproducible across solvers.

    ``overwrite=True`` lets ``eigh`` destroy K instead of copying it, so at most
    one n x n matrix exists (2 GB instead of 4 GB at n = 16,000). LAPACK works in
    place only on Fortran-ordered arrays; for a C-ordered symmetric K its
    transpose is the same matrix in Fortran order. The other solvers never modify K.
    """
    n = K.shape[0]
    if solver == "auto":
        solver = choose_solver(n, n_components)
    if solver == "eigh":
        A = K.T if overwrite and K.flags.c_contiguous else K
        values, vectors = linalg.eigh(A, subset_by_index=[n - n_components, n - 1], overwrite_a=overwrite)
        result = EigenResult(values[::-1], vectors[:, ::-1], solver)
    elif solver == "arpack":
        v0 = np.random.default_rng(random_state).uniform(-1, 1, n)
        values, vectors = eigsh(K, k=n_components, which="LA", v0=v0)
        order = np.argsort(values)[::-1]
        result = EigenResult(values[order], vectors[:, order], solver)
    elif solver == "block":
        result = block_krylov_eigh(K, n_components, random_state=random_state)
    else:
        raise ValueError(f"unknown eigen_solver {solver!r}; accepted: {', '.join(EIGEN_SOLVERS)}")
    vectors = result.vectors
    rows = np.argmax(np.abs(vectors), axis=0)
    vectors *= np.sign(vectors[rows, np.arange(vectors.shape[1])])
    return result


def block_sizes(k: int, block_size: int | None = None, n_blocks: int | None = None) -> tuple[int, int]:
    """Block size ``b`` and basis size ``m`` (a multiple of ``b``); our choice, from ``bench_eigensolvers.py``.

    32 columns keep each product a dgemm near peak speed, and smaller blocks
    need fewer products in all; a restart keeps ``m - 2b`` (about ``2k``) Ritz
    vectors, which needed fewer products than keeping fewer or using larger blocks.
    """
    b = block_size or 32
    return b, b * (n_blocks or max(4, -(-2 * k // b) + 2))


def block_krylov_eigh(K: np.ndarray, k: int, *, tol: float = DEFAULT_TOL, block_size: int | None = None,
                      n_blocks: int | None = None, max_restarts: int = DEFAULT_MAX_RESTARTS,
                      random_state=None) -> EigenResult:
    """The ``k`` largest eigenpairs of a symmetric PSD matrix by thick-restart block Lanczos.

    Each cycle grows an orthonormal basis ``Q`` block by block (``P <- K P``
    orthogonalised twice against ``Q``, classical Gram–Schmidt), keeping
    ``W = K Q`` from the products themselves; Rayleigh–Ritz on ``Q^T W``
    gives Ritz pairs ``(theta_j, x_j = Q s_j)`` and their residuals
    ``W s_j - theta_j x_j`` without further products. When every wanted
    residual is at most ``tol * theta_1`` it stops; otherwise it keeps the
    best ``m - 2b`` Ritz vectors (and their ``K x``) and continues the Krylov
    sequence from the pending block (Stewart 2001). ``K`` is only read.

    Parameters
    ----------
    K : ndarray of shape (n, n), symmetric positive semi-definite.
    k : int, 1 <= k < n.
    tol : float
        Stop when ``||K x_j - theta_j x_j|| <= tol * theta_1`` for every j < k.
    block_size, n_blocks : int, optional
        Default from :func:`block_sizes`.
    max_restarts : int
        Cycles before giving up with a :class:`~sklearn.exceptions.ConvergenceWarning`.
    random_state : int, Generator or None
        Seed of the random starting block; the result is deterministic given it.
    """
    n = K.shape[0]
    b, m = block_sizes(k, block_size, n_blocks)
    keep = m - 2 * b
    if m >= n:
        raise ValueError(f"the block solver's basis ({m} vectors for {k} eigenpairs) must be smaller than n = {n}; "
                         "use eigen_solver='eigh'")
    rng = np.random.default_rng(random_state)
    # Rows are basis vectors: row blocks of C-ordered arrays are contiguous, so
    # ``P^T K`` (= ``(K P)^T``, K symmetric) is written in place by one dgemm.
    Qt = np.empty((m, n))
    Wt = np.empty((m, n))
    filled, cycles = 0, 0
    block = rng.standard_normal((b, n))
    # Only the products with K run on every BLAS thread: the many small calls
    # around them would wait for all threads at each call, which on shared
    # cores costs far more than the calls themselves.
    while True:
        while filled < m:
            new = slice(filled, filled + b)
            with single_threaded_blas():
                Qt[new] = _orthonormal_rows(Qt[:filled], block, rng)
            np.matmul(Qt[new], K, out=Wt[new])
            block = Wt[new].copy()
            filled += b
        with single_threaded_blas():
            theta, S = _rayleigh_ritz(Qt, Wt)
            residuals = _residual_norms(Qt, Wt, theta[:k], S[:, :k])
        cycles += 1
        if np.all(residuals <= tol * theta[0]) or cycles > max_restarts:
            break
        with single_threaded_blas():
            block = _orthonormal_rows(Qt, block, rng)  # the next Lanczos block, orthogonal to all of Q
            Qt[:keep] = S[:, :keep].T @ Qt
            Wt[:keep] = S[:, :keep].T @ Wt
        filled = keep
    vectors = (S[:, :k].T @ Qt).T
    worst = int(np.argmax(residuals))
    if residuals[worst] > tol * theta[0]:
        warnings.warn(
            f"block Krylov eigensolver stopped after {max_restarts} restarts with residual "
            f"{residuals[worst] / theta[0]:.1e} * lambda_1 on eigenpair {worst + 1} "
            f"(wanted <= {tol:g} * lambda_1); raise max_restarts, or use eigen_solver='eigh'",
            ConvergenceWarning, stacklevel=2)
    return EigenResult(values=theta[:k], vectors=vectors, solver="block", residuals=residuals)



def _orthonormal_rows(Qt: np.ndarray, P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Rows of P made orthonormal and orthogonal to Qt's rows (two passes of block Gram–Schmidt).

    Rows that lose nearly all their norm to the projection (the Krylov space
    became invariant, e.g. a low-rank kernel) are replaced by random rows, so
    the basis keeps growing inside the complement.
    """
    P = P.copy()
    for _ in range(2):
        norms = np.linalg.norm(P, axis=1)
        P -= (P @ Qt.T) @ Qt
        lost = np.linalg.norm(P, axis=1) <= 1e-8 * norms
        if lost.any():
            P[lost] = rng.standard_normal((int(lost.sum()), P.shape[1]))
            P[lost] -= (P[lost] @ Qt.T) @ Qt
        P = _normalize_rows(P)
    return P


def _normalize_rows(P: np.ndarray) -> np.ndarray:
    """An orthonormal basis of P's rows: Cholesky QR, or Householder QR when P is too ill-conditioned for it.

    Cholesky QR costs one product ``P P^T`` and one triangular solve, where a
    Householder QR of an n x 32 panel makes many small BLAS calls, each slow
    when the cores are shared; called twice per block it is as accurate as
    long as P's condition number is below about 1e8 (Fukaya et al., "CholeskyQR2", 2014).
    """
    try:
        L = linalg.cholesky(P @ P.T, lower=True)
    except linalg.LinAlgError:
        L = None
    if L is not None and np.all(np.abs(np.diag(L)) > 1e-8 * np.abs(L).max()):
        return linalg.solve_triangular(L, P, lower=True)
    R = linalg.qr(P.T, mode="r")[0]
    return linalg.solve_triangular(R[:P.shape[0]], P, trans="T", lower=False)


def _rayleigh_ritz(Qt: np.ndarray, Wt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ritz values (descending) and coefficient vectors of ``Q^T K Q``."""
    H = Qt @ Wt.T
    theta, S = linalg.eigh((H + H.T) / 2)
    return theta[::-1], S[:, ::-1]


def _residual_norms(Qt: np.ndarray, Wt: np.ndarray, theta: np.ndarray, S: np.ndarray) -> np.ndarray:
    """``||K x_j - theta_j x_j||`` with ``K x_j = W s_j`` (W = K Q from the products)."""
    return np.linalg.norm(S.T @ Wt - theta[:, None] * (S.T @ Qt), axis=1)
