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

A matrix of another array-API library (a GPU's; :mod:`kpca_bench.devices`) is
solved on its device by the same iteration, every step there (the m x m
Rayleigh–Ritz problem by the library's ``eigh``, each block's orthonormal basis
by its QR): between cycles only scalars come to the host (whether the residuals
are small enough, whether a block lost rows), so a GPU never waits for a
transfer of a matrix.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
from scipy import linalg
from scipy.sparse.linalg import eigsh
from sklearn.exceptions import ConvergenceWarning

from kpca_bench.devices import device_of, is_numpy, namespace, to_numpy, to_target
from kpca_bench.kernels import blas_threads, single_threaded_blas

EIGEN_SOLVERS = ("auto", "eigh", "arpack", "block")
# Residual tolerance relative to the largest eigenvalue: every iterative solver stops at the same accuracy,
# so that their eigenpairs agree with eigh's (tests/test_eigensolvers.py).
DEFAULT_TOL = 1e-8
DEFAULT_MAX_RESTARTS = 100
# The "auto" rule's thresholds, from benchmarks/bench_eigensolvers.py (results/benchmarks/eigensolvers.md).
AUTO_EIGH_BELOW_SAMPLES = 1000


@dataclass(frozen=True)
class AutoThresholds:
    """Where ``"auto"`` changes solver at one BLAS thread count (:func:`choose_solver`)."""

    eigh_basis_share: float  # eigh while the block solver's basis exceeds this share of n
    block_min_samples: int  # block from this many samples on ...
    block_min_work: float  # ... once n^2 k reaches this


# BLAS threads -> thresholds; more threads than measured take the last entry.
AUTO_THRESHOLDS = {1: AutoThresholds(0.4, 2000, 150e6), 2: AutoThresholds(0.25, 2000, 0.0)}


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


def choose_solver(n: int, k: int, threads: int | None = None) -> str:
    """The fastest solver meeting the contract for ``k`` of ``n`` eigenpairs on ``threads`` BLAS threads (``"auto"``).

    ``eigh`` below :data:`AUTO_EIGH_BELOW_SAMPLES` samples (every solver takes
    hundredths of a second there, and the dense one needs no starting vector)
    and while the block solver's basis (:func:`block_sizes`) exceeds the
    thread count's ``eigh_basis_share`` of n (many components for few samples,
    where the dense reduction is as fast; the block solver's workspace, two
    n x basis arrays, stays under 0.8 of K's 8 n^2 bytes). Otherwise ``block``
    from ``block_min_samples`` samples once ``n^2 k`` reaches
    ``block_min_work``, ``arpack`` below (:data:`AUTO_THRESHOLDS`).

    ARPACK reads all of K for every product with one vector, some multiple of k
    of them, so its time grows as ``n^2 k``; the block solver's products with
    32 vectors at a time run near the machine's peak but carry a fixed cost per
    cycle, which pays from that size on. With two threads it pays from 2,000
    samples at any k: ARPACK gains nothing from the second thread (it lost
    time on the benchmark grid), where the block solver's products use both.

    ``threads`` defaults to the BLAS thread limit in force
    (:func:`kpca_bench.kernels.blas_threads`, e.g. the runner's one thread per
    cell). The thresholds are measured at 1 and 2 threads; more use 2's.
    """
    threads = blas_threads() if threads is None else threads
    rule = AUTO_THRESHOLDS[min(max(threads, 1), max(AUTO_THRESHOLDS))]
    if n < AUTO_EIGH_BELOW_SAMPLES or block_sizes(k)[1] > rule.eigh_basis_share * n:
        return "eigh"
    return "block" if n >= rule.block_min_samples and n * n * k >= rule.block_min_work else "arpack"


def top_eigenpairs(
    K: np.ndarray,
    n_components: int,
    solver: str = "auto",
    random_state=None,
    *,
    overwrite: bool = False,
    tol: float = DEFAULT_TOL,
) -> EigenResult:
    """The ``n_components`` largest eigenpairs of a symmetric PSD matrix, largest first.

    ``eigh`` asks LAPACK for that index range only (no full decomposition);
    ``arpack`` uses Lanczos iterations (scipy ``eigsh``); ``block`` is
    :func:`block_krylov_eigh`; ``auto`` picks by :func:`choose_solver` for the
    BLAS threads in force.
    Eigenvector signs are fixed so that each vector's largest-magnitude entry
    is positive, which makes results reproducible across solvers.

    ``overwrite=True`` lets ``eigh`` destroy K instead of copying it, so at most
    one n x n matrix exists (2 GB instead of 4 GB at n = 16,000). LAPACK works in
    place only on Fortran-ordered arrays; for a C-ordered symmetric K its
    transpose is the same matrix in Fortran order. The other solvers never modify K.

    An array-API K (a GPU's) is solved on its device: ``eigh`` by the library's
    full ``eigh``, ``block`` there too; ``auto`` never picks ``arpack`` for it
    (ARPACK is a host library), and an explicit ``arpack`` copies K to the host.
    ``tol`` is the block solver's (:func:`block_krylov_eigh`).
    """
    n = K.shape[0]
    if solver == "auto":
        solver = choose_solver(n, n_components)
        if solver == "arpack" and not is_numpy(K):
            solver = "block"
    if not is_numpy(K) and solver == "eigh":
        result = _array_api_eigh(K, n_components)
    elif not is_numpy(K) and solver == "arpack":
        host = top_eigenpairs(to_numpy(K), n_components, solver, random_state)
        target = (namespace(K), device_of(K))
        return replace(
            host,
            values=to_target(host.values, target, dtype=K.dtype),
            vectors=to_target(host.vectors, target, dtype=K.dtype),
        )
    elif solver == "eigh":
        A = K.T if overwrite and K.flags.c_contiguous else K
        values, vectors = linalg.eigh(A, subset_by_index=[n - n_components, n - 1], overwrite_a=overwrite)
        result = EigenResult(values[::-1], vectors[:, ::-1], solver)
    elif solver == "arpack":
        v0 = np.random.default_rng(random_state).uniform(-1, 1, n)
        values, vectors = eigsh(K, k=n_components, which="LA", v0=v0)
        order = np.argsort(values)[::-1]
        result = EigenResult(values[order], vectors[:, order], solver)
    elif solver == "block":
        result = block_krylov_eigh(K, n_components, random_state=random_state, tol=tol)
    else:
        raise ValueError(f"unknown eigen_solver {solver!r}; accepted: {', '.join(EIGEN_SOLVERS)}")
    if is_numpy(result.vectors):
        # In place: the vectors keep the memory layout (eigh's reversed view) that later products were computed with.
        vectors = result.vectors
        vectors *= column_signs(vectors)
        return result
    return replace(result, vectors=result.vectors * column_signs(result.vectors))


def column_signs(vectors):
    """The sign of each column's largest-magnitude entry (its first, on a tie), 1 for a zero column.

    Multiplying by them fixes eigenvector signs deterministically (scikit-learn's ``svd_flip`` rule on columns).
    """
    xp = namespace(vectors)
    largest = xp.take(vectors, xp.argmax(xp.abs(vectors), axis=0), axis=0)
    signs = xp.sign(xp.linalg.diagonal(largest))
    return xp.where(signs == 0, xp.ones_like(signs), signs)


def _array_api_eigh(K, k: int) -> EigenResult:
    """The top ``k`` eigenpairs by the array library's full ``eigh`` (the array API has no index subset)."""
    xp = namespace(K)
    values, vectors = xp.linalg.eigh(K)
    n = K.shape[0]
    return EigenResult(xp.flip(values[n - k :], axis=0), xp.flip(vectors[:, n - k :], axis=1), "eigh")


def block_sizes(k: int, block_size: int | None = None, n_blocks: int | None = None) -> tuple[int, int]:
    """Block size ``b`` and basis size ``m`` (a multiple of ``b``); our choice, from ``bench_eigensolvers.py``.

    32 columns keep each product a dgemm near peak speed, and smaller blocks
    need fewer products in all; a restart keeps ``m - 2b`` (about ``2k``) Ritz
    vectors, which needed fewer products than keeping fewer or using larger blocks.
    """
    b = block_size or 32
    return b, b * (n_blocks or max(4, -(-2 * k // b) + 2))


def block_krylov_eigh(
    K: np.ndarray,
    k: int,
    *,
    tol: float = DEFAULT_TOL,
    block_size: int | None = None,
    n_blocks: int | None = None,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
    random_state=None,
) -> EigenResult:
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
        raise ValueError(
            f"the block solver's basis ({m} vectors for {k} eigenpairs) must be smaller than n = {n}; "
            "use eigen_solver='eigh'"
        )
    rng = np.random.default_rng(random_state)
    if not is_numpy(K):
        values, vectors, residuals = _array_api_block_krylov(K, k, b, m, tol=tol, max_restarts=max_restarts, rng=rng)
        _warn_unless_converged(residuals, values, tol, max_restarts)
        return EigenResult(values=values, vectors=vectors, solver="block", residuals=residuals)
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
    _warn_unless_converged(residuals, theta, tol, max_restarts)
    return EigenResult(values=theta[:k], vectors=vectors, solver="block", residuals=residuals)


def _warn_unless_converged(residuals, theta, tol: float, max_restarts: int) -> None:
    """Warn if a residual is above ``tol * theta_1``; reads three scalars of device arrays, no more."""
    worst = int(namespace(residuals).argmax(residuals))
    largest, first = float(residuals[worst]), float(theta[0])
    if largest > tol * first:
        warnings.warn(
            f"block Krylov eigensolver stopped after {max_restarts} restarts with residual "
            f"{largest / first:.1e} * lambda_1 on eigenpair {worst + 1} "
            f"(wanted <= {tol:g} * lambda_1); raise max_restarts, or use eigen_solver='eigh'",
            ConvergenceWarning,
            stacklevel=3,
        )


def _array_api_block_krylov(
    K, k: int, b: int, m: int, *, tol: float, max_restarts: int, rng: np.random.Generator
) -> tuple:
    """:func:`block_krylov_eigh`'s iteration on an array-API K (a GPU's): the top ``k`` Ritz values, vectors and
    residuals, all on K's device.

    Every step runs on K's device, the m x m Rayleigh–Ritz problem too (in float64 for a float32 K, as the
    NumPy path). The host sends the random starting block (and fresh rows for a block that lost some) and
    reads scalars only: whether every residual is small enough, once a cycle; whether a block lost rows.
    """
    xp, device = namespace(K), device_of(K)
    n, keep = K.shape[0], m - 2 * b
    Qt = xp.zeros((m, n), dtype=K.dtype, device=device)
    Wt = xp.zeros((m, n), dtype=K.dtype, device=device)
    filled, cycles = 0, 0
    block = to_target(rng.standard_normal((b, n)), (xp, device), dtype=K.dtype)
    while True:
        while filled < m:
            Qt[filled : filled + b, :] = _array_api_orthonormal_rows(Qt[:filled, :], block, rng)
            Wt[filled : filled + b, :] = Qt[filled : filled + b, :] @ K  # = (K Q)^T, K symmetric
            block = xp.asarray(Wt[filled : filled + b, :], copy=True)
            filled += b
        theta, S = _array_api_rayleigh_ritz(Qt @ Wt.T, K.dtype)
        coef = S[:, :k]
        residuals = xp.linalg.vector_norm(coef.T @ Wt - theta[:k, None] * (coef.T @ Qt), axis=1)
        cycles += 1
        if bool(xp.all(residuals <= tol * theta[0])) or cycles > max_restarts:
            break
        block = _array_api_orthonormal_rows(Qt, block, rng)
        kept = S[:, :keep]
        Qt[:keep, :] = kept.T @ Qt
        Wt[:keep, :] = kept.T @ Wt
        filled = keep
    return theta[:k], (coef.T @ Qt).T, residuals


def _array_api_rayleigh_ritz(H, dtype) -> tuple:
    """:func:`_rayleigh_ritz_of` on H's device: the library's full ``eigh`` of the small symmetric part, in
    float64, largest first, as ``dtype``."""
    xp = namespace(H)
    H = xp.astype(H, xp.float64)
    theta, S = xp.linalg.eigh((H + H.T) / 2)
    return xp.astype(xp.flip(theta, axis=0), dtype), xp.astype(xp.flip(S, axis=1), dtype)


def _array_api_orthonormal_rows(Qt, P, rng: np.random.Generator):
    """:func:`_orthonormal_rows` for array-API arrays, on their device; the rows that lost their norm are
    refilled one by one (the array API has no boolean-mask assignment of rows)."""
    xp = namespace(P)
    for _ in range(2):
        norms = xp.linalg.vector_norm(P, axis=1)
        P = P - (P @ Qt.T) @ Qt
        lost = xp.linalg.vector_norm(P, axis=1) <= 1e-8 * norms
        if bool(xp.any(lost)):  # one scalar read; the mask itself only where the Krylov space became invariant
            P = _refilled(Qt, P, np.flatnonzero(to_numpy(lost)), rng)
        Q, _ = xp.linalg.qr(P.T)  # Householder QR on the device: no b x b problem goes to the host
        P = Q.T
    return P


def _refilled(Qt, P, lost: np.ndarray, rng: np.random.Generator):
    """P with its rows ``lost`` replaced by random rows orthogonal to Qt's."""
    fresh = to_target(rng.standard_normal((lost.size, P.shape[1])), (namespace(P), device_of(P)), dtype=P.dtype)
    fresh = fresh - (fresh @ Qt.T) @ Qt
    for row, index in enumerate(lost):
        P[int(index), :] = fresh[row, :]
    return P


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
    return linalg.solve_triangular(R[: P.shape[0]], P, trans="T", lower=False)


def _rayleigh_ritz(Qt: np.ndarray, Wt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ritz values (descending) and coefficient vectors of ``Q^T K Q``."""
    return _rayleigh_ritz_of(Qt @ Wt.T)


def _rayleigh_ritz_of(H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of the symmetric part of ``H = Q^T K Q``, largest first."""
    theta, S = linalg.eigh((H + H.T) / 2)
    return theta[::-1], S[:, ::-1]


def _residual_norms(Qt: np.ndarray, Wt: np.ndarray, theta: np.ndarray, S: np.ndarray) -> np.ndarray:
    """``||K x_j - theta_j x_j||`` with ``K x_j = W s_j`` (W = K Q from the products)."""
    return np.linalg.norm(S.T @ Wt - theta[:, None] * (S.T @ Qt), axis=1)
