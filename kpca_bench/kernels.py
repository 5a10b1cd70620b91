"""Kernel functions, bandwidth conventions and kernel-matrix centering.

The papers disagree on how an RBF width is written, so this module fixes one
internal convention and converts the others into it:

* internal: ``k(x, y) = exp(-gamma * ||x - y||^2)`` (scikit-learn, Wang & Tanaka);
* ``sigma``: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))`` (Das et al., Li et al.,
  the SAS paper), so ``gamma = 1 / (2 sigma^2)``;
* ``"mean_pairwise"``: sigma^2 is the mean squared distance over all pairs
  ``i != j`` of training points (Das et al., section V).

For categorical data (integer category codes, as the loaders give them) the
``hamming`` kernel is Couto's; its ``lambda`` is passed as ``gamma`` (see
:func:`hamming_kernel`).

Every fitted estimator records the resolved ``gamma_`` so a result row states
the width that was actually used.

Kernel matrices are built by :func:`kernel_matrix`: BLAS inner products and the
element-wise steps of scikit-learn's ``pairwise_kernels`` (in its order, so the
values are its values), in cache-sized row blocks spread over the BLAS threads
allowed at the time, with no temporary as large as the result. Arrays of another
array-API library (a GPU's; :mod:`kpca_bench.devices`) take the same element-wise
steps in larger row blocks on their own device.
"""

from __future__ import annotations

import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from numbers import Integral, Real
from typing import Callable

import numpy as np
from sklearn.utils import gen_batches
from sklearn.utils.validation import check_array, validate_data
from threadpoolctl import ThreadpoolController

from kpca_bench.devices import block_rows, device_of, is_device_array, namespace, to_numpy, to_target
from kpca_bench.param_validation import NumberInterval, StrOptions, validate_params

KERNELS = ("rbf", "poly", "linear", "hamming", "hamming_normalized")
HAMMING_KERNELS = ("hamming", "hamming_normalized")
GAMMA_HEURISTICS = ("mean_pairwise",)
# Bytes of one row block of a kernel matrix (our choice): small enough that a block stays in the
# cache between its inner products and its element-wise steps, large enough that the blocks'
# overhead is small (benchmarks/bench_kernels.py measures the build).
BLOCK_BYTES = 4 * 2**20
# Rows of the bands in which a symmetric kernel's upper triangle is computed and then mirrored
# below the diagonal (our choice: a band's diagonal tile of 2 MiB stays in the cache).
MIRROR_ROWS = 512
# Side of the square tiles copied one at a time when mirroring (our choice: a 128 KiB tile and its
# transpose stay in the L2 cache while it is read by columns; benchmarks/bench_kernels.py).
TRANSPOSE_TILE = 128

# The kernel parameters of every estimator that builds its kernel with make_kernel.
# Constraints that combine parameters (gamma or sigma; the Hamming lambda in (0, 1])
# are checked in make_kernel and resolve_gamma.
KERNEL_PARAMETER_CONSTRAINTS: dict = {
    "kernel": [StrOptions(set(KERNELS))],
    "gamma": [NumberInterval(Real, 0, None, closed="neither"), StrOptions(set(GAMMA_HEURISTICS)), None],
    "sigma": [NumberInterval(Real, 0, None, closed="neither"), None],
    "degree": [NumberInterval(Integral, 1, None, closed="left")],
    "coef0": [NumberInterval(Real, None, None, closed="neither")],
}


def mean_pairwise_sq_distance(X: np.ndarray) -> float:
    """Mean of ``||x_i - x_j||^2`` over all ordered pairs ``i != j``.

    Uses ``sum_ij ||x_i - x_j||^2 = 2 n sum_i ||x_i||^2 - 2 ||sum_i x_i||^2`` so it
    costs O(n d) instead of building the n x n distance matrix.
    """
    n = X.shape[0]
    if n < 2:
        raise ValueError("the mean pairwise distance needs at least 2 samples")
    total = 2 * n * np.einsum("ij,ij->", X, X) - 2 * np.sum(X.sum(axis=0) ** 2)
    return float(total / (n * (n - 1)))


def hamming_domain_sizes(X) -> tuple[int, ...]:
    """``|D_i|`` of every column of integer category codes: its largest code + 1, and at least 2.

    X is read by :func:`category_codes`. The loaders code each attribute's categories
    over the whole dataset, so the largest code seen in training plus one is the
    attribute's number of values whenever its last category occurs in training. An
    attribute constant in the training data still varies in the dataset (else it would
    not be an attribute), hence the floor of 2; this recovers the declared domains of
    Li et al.'s four categorical datasets (Chess has three attributes that are
    constant among its "won" positions).
    """
    return tuple(int(size) for size in np.maximum(category_codes(X).max(axis=0) + 1, 2))


def category_codes(X) -> np.ndarray:
    """X as an int64 array of category codes, read as scikit-learn reads any input (``check_array``).

    A NumPy array, a list of lists or a pandas DataFrame of whole numbers >= 0
    (integer or float columns) give the same codes. A DataFrame's categorical columns
    are read by their values, as scikit-learn reads them, not by pandas' codes:
    categories that are whole numbers >= 0 are the codes; categories of any other kind
    (strings) are refused, to be encoded first.

    Raises
    ------
    ValueError
        One message naming the fix, for strings, NaN, negative or fractional codes.
    """
    X = check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=0)
    if X.dtype.kind == "O":  # a DataFrame of mixed column types: numbers, unless some are strings
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError):
            pass
    if X.dtype.kind not in "biuf":
        problem = "strings" if X.dtype.kind in "OUS" else f"values of dtype {X.dtype}"
    elif not np.isfinite(X).all():
        problem = "NaN or infinite values"
    elif np.any(X % 1 != 0):
        problem = f"non-integer values such as {X[X % 1 != 0][0]:g}"
    elif np.any(X < 0):
        problem = f"negative values such as {X[X < 0][0]:g}"
    else:
        return X.astype(np.int64)
    raise ValueError(
        f"the Hamming kernel needs categorical data as integer codes >= 0, got {problem}: encode each "
        "categorical column as codes 0, 1, 2, ... (sklearn.preprocessing.OrdinalEncoder, or a pandas "
        "categorical's .cat.codes, missing values are -1 there: drop or impute them first), as the "
        "loaders of categorical datasets do"
    )


def validated_input(estimator, X, kernel: str | None, *, reset: bool) -> np.ndarray:
    """X (a device array: its host copy) through scikit-learn's ``validate_data`` for ``estimator``, as float64
    NumPy.

    For a Hamming ``kernel`` X is read as category codes first (:func:`category_codes`), so that an array, a list
    or a DataFrame of codes give the same numbers, and strings, NaN, negative or fractional codes its one error
    naming the fix (rather than scikit-learn's float conversion error).
    """
    host = to_numpy(X) if is_device_array(X) else X
    if kernel not in HAMMING_KERNELS:
        return validate_data(estimator, host, dtype=np.float64, reset=reset)
    checked = validate_data(estimator, host, dtype=None, ensure_all_finite=False, reset=reset)
    return category_codes(checked).astype(np.float64)


def hamming_kernel(X, Y, lam: float, domain_sizes, normalize: bool = False) -> np.ndarray:
    """Couto's Hamming kernel between rows of integer category codes.

    ``k(x, y) = sum over all strings u of lam^{d(x, u)} lam^{d(y, u)}``, ``d`` the
    Hamming distance, which factorises over attributes as ``prod_i h_i(x_i, y_i)``
    with ``h_i = a_i = 1 + (|D_i| - 1) lam^2`` if ``x_i = y_i`` and
    ``b_i = 2 lam + (|D_i| - 2) lam^2`` otherwise. Computed in logs,
    ``log k = sum_i log b_i + sum_i [x_i = y_i] log(a_i / b_i)``, where the
    second sum is an inner product of one-hot codes weighted by
    ``log(a_i / b_i)``. ``normalize`` divides by ``sqrt(k(x, x) k(y, y)) = prod_i a_i``,
    the same constant for every pair.

    Parameters
    ----------
    X, Y : array-like of shape (n, d) and (m, d), integer category codes (read by :func:`category_codes`).
    lam : float in (0, 1]
    domain_sizes : sequence of d ints, ``|D_i|``.
    normalize : bool, default=False

    References
    ----------
    J. Couto. Kernel k-means for categorical data. LNCS 3646, 2005 (Li et al.'s ref. [7]).
    """
    left, right, offset = _hamming_factors(X, Y, lam, domain_sizes, normalize)
    return kernel_matrix(left, right, _Exponential(offset=offset), symmetric=Y is X).values


def _hamming_factors(X, Y, lam, domain_sizes, normalize):
    """``log k(X, Y) = left @ right.T + offset`` (see :func:`hamming_kernel`)."""
    X, Y = category_codes(X), category_codes(Y)
    sizes = np.asarray(domain_sizes, dtype=np.float64)
    log_match = np.log1p((sizes - 1) * lam**2)
    log_mismatch = np.log(2 * lam + (sizes - 2) * lam**2)
    # One block of one-hot columns per attribute, wide enough for codes training did not show.
    widths = np.maximum(sizes.astype(np.int64), np.maximum(X.max(axis=0, initial=0), Y.max(axis=0, initial=0)) + 1)
    columns = np.r_[0, np.cumsum(widths)[:-1]]
    weighted = np.zeros((X.shape[0], widths.sum()))
    np.put_along_axis(weighted, columns + X, log_match - log_mismatch, axis=1)
    one_hot = np.zeros((Y.shape[0], widths.sum()))
    np.put_along_axis(one_hot, columns + Y, 1.0, axis=1)
    offset = -np.sum(log_match - log_mismatch) if normalize else np.sum(log_mismatch)
    return weighted, one_hot, float(offset)


@lru_cache(maxsize=1)
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController().select(user_api="blas")


def single_threaded_blas():
    """Context manager: BLAS on one thread for the duration (process-wide)."""
    return _blas_controller().limit(limits=1)


def blas_threads() -> int:
    """The BLAS thread limit in force (threadpoolctl's, e.g. the runner's cap per cell), at least 1."""
    return max(1, min((lib.num_threads for lib in _blas_controller().lib_controllers), default=1))


def row_blocks(n_rows: int, n_cols: int, band_rows: int | None = None) -> list[slice]:
    """Row blocks of about :data:`BLOCK_BYTES` of an ``n_rows x n_cols`` float64 matrix.

    With ``band_rows``, no block crosses a multiple of it.
    """
    size = max(1, BLOCK_BYTES // max(1, 8 * n_cols))
    return [
        slice(start, min(start + size, band.stop))
        for band in gen_batches(n_rows, max(1, band_rows or n_rows))
        for start in range(band.start, band.stop, size)
    ]


def map_row_blocks(func: Callable[[slice], object], blocks: list[slice]) -> list:
    """``func(rows)`` for every row block, on the BLAS threads; the results in block order.

    Each block is handled whole by one thread, so its element-wise steps run
    while it is in the cache. With more than one thread allowed
    (:func:`blas_threads`), the blocks go to that many threads, each with a
    single-threaded BLAS (the limit is process-wide for the duration), so the
    cores are shared out once and never oversubscribed.
    """
    threads = min(blas_threads(), len(blocks))
    if threads <= 1:
        return [func(rows) for rows in blocks]
    with single_threaded_blas(), ThreadPoolExecutor(threads) as pool:
        return list(pool.map(func, blocks))


@dataclass(frozen=True)
class _Gaussian:
    """``exp(-gamma ||x - y||^2)`` from the inner products ``<-2 x, y>``, in place on a row block.

    The steps and their order are scikit-learn's ``euclidean_distances`` and
    ``rbf_kernel`` for float64 (``-2 <x, y> + ||x||^2 + ||y||^2``, clipped at 0,
    the diagonal of a kernel of X with itself set to 0), so the values are theirs.
    Its left rows come scaled by -2 (:meth:`Kernel._operands`): a power of two
    scales every rounding step with it, so BLAS returns ``-2 <x, y>`` exactly and
    scikit-learn's separate pass over the block is saved.
    """

    gamma: float
    left_sq_norms: np.ndarray
    right_sq_norms: np.ndarray
    zero_diagonal: bool

    def __call__(self, block: np.ndarray, rows: slice, columns: slice) -> None:
        block += self.left_sq_norms[rows, np.newaxis]
        block += self.right_sq_norms[columns]
        np.maximum(block, 0, out=block)
        if self.zero_diagonal:
            diagonal = np.arange(max(rows.start, columns.start), min(rows.stop, columns.stop))
            block[diagonal - rows.start, diagonal - columns.start] = 0
        block *= -self.gamma
        np.exp(block, out=block)


@dataclass(frozen=True)
class _Polynomial:
    """``(gamma <x, y> + coef0)^degree`` in place, in scikit-learn's ``polynomial_kernel`` order."""

    gamma: float
    coef0: float
    degree: int

    def __call__(self, block: np.ndarray, rows: slice, columns: slice) -> None:
        block *= self.gamma
        block += self.coef0
        block **= self.degree


@dataclass(frozen=True)
class _Exponential:
    """``exp(<x, y> + offset)`` in place: the Hamming kernel from its log (:func:`hamming_kernel`)."""

    offset: float

    def __call__(self, block: np.ndarray, rows: slice, columns: slice) -> None:
        block += self.offset
        np.exp(block, out=block)


@dataclass(frozen=True)
class KernelMatrix:
    """A kernel matrix and the sum of its values, taken block by block while each block was in the cache.

    The sum answers the two questions asked of a new kernel without another pass
    over it: a non-finite value makes it non-finite (:meth:`finite`), and an RBF
    kernel of n points sums to n exactly when it is the identity
    (:meth:`is_identity`). Either answer is confirmed on the values themselves
    before it is given, since a sum can also overflow or round.
    """

    values: np.ndarray
    total: float

    def finite(self) -> bool:
        return bool(np.isfinite(self.total)) or bool(np.isfinite(self.values).all())

    def is_identity(self) -> bool:
        """Whether every value off the diagonal is 0 (for a kernel whose diagonal is 1)."""
        n = self.values.shape[0]
        return self.total == n and np.count_nonzero(self.values) == n


def kernel_matrix(
    left: np.ndarray, right: np.ndarray, finish: Callable | None = None, symmetric: bool = False
) -> KernelMatrix:
    """``finish(left @ right.T)`` built in row blocks (:func:`map_row_blocks`) without n x m temporaries.

    Each block's inner products are written by BLAS straight into the result,
    and ``finish(block, rows, columns)`` turns them into kernel values in place,
    so the only n x m array is the result itself.

    ``symmetric=True`` (the kernel of a set of points with itself) computes, for
    bands of :data:`MIRROR_ROWS` rows, the columns from the band's first row on
    (the upper triangle and the square diagonal tiles), then mirrors the part
    right of each diagonal tile below it, tile by tile: half the inner products and half the element-wise steps
    (``exp``). The upper triangle then holds exactly the values of the full
    computation, and the lower one its mirror, which differs from a full
    computation's only by the rounding of ``||x||^2 + ||y||^2`` taken in the
    other order.
    """
    K = np.empty((left.shape[0], right.shape[0]))
    n, m = K.shape

    def fill(rows: slice) -> float:
        columns = slice(rows.start - rows.start % MIRROR_ROWS if symmetric else 0, m)
        block = K[rows, columns]
        np.matmul(left[rows], right[columns].T, out=block)  # BLAS writes into the strided view (np.dot would not)
        if finish is not None:
            finish(block, rows, columns)
        with np.errstate(over="ignore"):  # a sum that overflows is checked on the values (KernelMatrix.finite)
            total = float(block.sum())
            if symmetric:  # the mirror image of what lies right of the diagonal tile, without another pass
                total += total - float(block[:, :MIRROR_ROWS].sum())
        return total

    def mirror(band: slice) -> None:
        for start in range(band.stop, n, TRANSPOSE_TILE):
            below = slice(start, min(start + TRANSPOSE_TILE, n))
            for column in range(band.start, band.stop, TRANSPOSE_TILE):
                within = slice(column, min(column + TRANSPOSE_TILE, band.stop))
                K[below, within] = K[within, below].T

    totals = map_row_blocks(fill, row_blocks(n, m, MIRROR_ROWS if symmetric else None))
    if symmetric:
        map_row_blocks(mirror, list(gen_batches(n, MIRROR_ROWS)))
    return KernelMatrix(K, total=sum(totals))


def gamma_from_sigma(sigma: float) -> float:
    """Convert a width ``sigma`` of ``exp(-d^2 / (2 sigma^2))`` into ``gamma``."""
    return 1.0 / (2.0 * sigma**2)


@validate_params(
    {name: KERNEL_PARAMETER_CONSTRAINTS[name] for name in ("gamma", "sigma")}, prefer_skip_nested_validation=True
)
def resolve_gamma(X: np.ndarray, gamma=None, sigma=None) -> float:
    """The RBF ``gamma`` for training data ``X`` from either convention.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training data, used only by the ``"mean_pairwise"`` heuristic.
    gamma : float, "mean_pairwise" or None
        Width in ``exp(-gamma d^2)``. None with ``sigma`` None means
        ``"mean_pairwise"``.
    sigma : float or None
        Width in ``exp(-d^2 / (2 sigma^2))``. Exclusive with ``gamma``.
    """
    if gamma is not None and sigma is not None:
        raise ValueError("give the RBF width as gamma or as sigma, not both")
    if sigma is not None:
        return gamma_from_sigma(float(sigma))
    if gamma is None or gamma == "mean_pairwise":
        sigma2 = mean_pairwise_sq_distance(X)
        if not np.isfinite(sigma2):
            raise ValueError(
                f"the mean pairwise squared distance overflows: features as large as "
                f"{np.max(np.abs(X)):.3g}; scale the features (dataset.scaling: standard or minmax)"
            )
        if sigma2 == 0:
            raise ValueError(
                "all training points are identical, so the mean pairwise distance is 0; "
                "give the RBF width explicitly (gamma or sigma)"
            )
        return 1.0 / (2.0 * sigma2)
    return float(gamma)


@dataclass(frozen=True)
class Kernel:
    """A kernel with all of its parameters resolved.

    ``poly`` is ``(gamma <x, y> + coef0)^degree`` and ``linear`` is ``<x, y>``.
    ``hamming`` / ``hamming_normalized`` are Couto's kernel on category codes
    (:func:`hamming_kernel`) with ``gamma`` as its lambda and ``domain_sizes``
    the number of values of each attribute.
    """

    name: str
    gamma: float | None = None
    degree: int = 3
    coef0: float = 1.0
    domain_sizes: tuple[int, ...] | None = None

    def __post_init__(self):
        if self.name not in KERNELS:
            raise ValueError(f"unknown kernel {self.name!r}; accepted: {', '.join(KERNELS)}")

    @property
    def _gamma(self) -> float:
        """``gamma`` of a kernel that has one: every kernel but linear (:func:`make_kernel` resolves it)."""
        assert self.gamma is not None, f"the {self.name} kernel needs its gamma"
        return self.gamma

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        """The kernel matrix ``k(X, Y)`` (``k(X, X)`` when Y is None), built by :func:`kernel_matrix`.

        The values are those of scikit-learn's ``pairwise_kernels`` (same steps in
        the same order) and of :func:`hamming_kernel`, for the training kernel and
        for test-vs-train blocks alike.

        Raises ValueError if it is not finite (features so large that their
        products overflow), and warns when an RBF kernel of X with itself has
        underflowed to the identity: every pair of points is then "infinitely"
        far apart, and scores built on it carry no information.
        """
        itself = Y is None or Y is X
        if is_device_array(X):
            return self._array_api_kernel(X, X if itself else Y, itself)
        if self.name in HAMMING_KERNELS:
            return hamming_kernel(
                X, X if itself else Y, self._gamma, self.domain_sizes, normalize=self.name == "hamming_normalized"
            )
        X = _host_float64(X)
        Y = X if itself else _host_float64(Y)
        K = kernel_matrix(*self._operands(X, Y, itself), symmetric=itself)
        if not K.finite():
            raise ValueError(
                f"the {self.name} kernel of these data is not finite: features as large as "
                f"{np.max(np.abs(X)):.3g} overflow its products; scale the features "
                "(dataset.scaling: standard or minmax)"
            )
        if self.name == "rbf" and itself and X.shape[0] > 1 and K.is_identity():
            warnings.warn(
                f"the RBF kernel with gamma={self.gamma:.3g} underflows to the identity on these "
                f"{X.shape[0]} points (every pair is too far apart): its scores are uninformative; "
                "use a smaller gamma or scale the features",
                RuntimeWarning,
                stacklevel=2,
            )
        return K.values

    def _array_api_kernel(self, X, Y, itself: bool):
        """The kernel matrix of array-API arrays (a GPU's), built in row blocks on their device.

        The element-wise steps and their order are the NumPy path's (scikit-learn's),
        without its cache tiles and mirroring, which a GPU does not need. The Hamming
        kernels are built on the host and moved back: their one-hot operands need
        ``put_along_axis``, which the array API lacks.
        """
        xp, device = namespace(X), device_of(X)
        if self.name in HAMMING_KERNELS:
            return to_target(self(to_numpy(X), None if itself else to_numpy(Y)), (xp, device), dtype=X.dtype)
        x_sq_norms = xp.sum(X * X, axis=1)
        y_sq_norms = x_sq_norms if itself else xp.sum(Y * Y, axis=1)
        K = xp.empty((X.shape[0], Y.shape[0]), dtype=X.dtype, device=device)
        blocks = list(gen_batches(X.shape[0], block_rows(Y.shape[0], (xp, device), _itemsize(X))))
        total = 0.0  # the sum of K, as on the NumPy path (KernelMatrix): one number, read once at the end
        for rows in blocks:
            if self.name == "rbf":
                block = (-2.0 * X[rows, :]) @ Y.T + x_sq_norms[rows, None] + y_sq_norms[None, :]
                block = xp.clip(block, min=0.0)
                if itself:
                    diagonal = xp.eye(block.shape[0], block.shape[1], k=rows.start, dtype=X.dtype, device=device)
                    block = xp.where(diagonal == 1, xp.zeros_like(block), block)
                block = xp.exp(block * -self._gamma)
            elif self.name == "poly":
                block = (X[rows, :] @ Y.T * self._gamma + self.coef0) ** self.degree
            else:
                block = X[rows, :] @ Y.T
            K[rows, :] = block
            total = total + xp.sum(block)
        total = float(total)
        # A sum that is not finite is confirmed on the values, block by block (no n x m temporary).
        if not math.isfinite(total) and not all(bool(xp.all(xp.isfinite(K[rows, :]))) for rows in blocks):
            raise ValueError(
                f"the {self.name} kernel of these data is not finite: features as large as "
                f"{float(xp.max(xp.abs(X))):.3g} overflow its products; scale the features "
                "(dataset.scaling: standard or minmax)"
            )
        n = X.shape[0]
        if self.name == "rbf" and itself and n > 1 and total == n and int(xp.count_nonzero(K)) == n:
            warnings.warn(
                f"the RBF kernel with gamma={self.gamma:.3g} underflows to the identity on these "
                f"{n} points (every pair is too far apart): its scores are uninformative; "
                "use a smaller gamma or scale the features",
                RuntimeWarning,
                stacklevel=3,
            )
        return K

    def _operands(self, X: np.ndarray, Y: np.ndarray, itself: bool) -> tuple[np.ndarray, np.ndarray, Callable | None]:
        """The left and right rows of :func:`kernel_matrix` and its in-place step to this kernel's values."""
        if self.name == "rbf":
            x_sq_norms = np.einsum("ij,ij->i", X, X)
            y_sq_norms = x_sq_norms if itself else np.einsum("ij,ij->i", Y, Y)
            return -2.0 * X, Y, _Gaussian(self._gamma, x_sq_norms, y_sq_norms, zero_diagonal=itself)
        if self.name == "poly":
            return X, Y, _Polynomial(self._gamma, self.coef0, self.degree)
        return X, Y, None

    def diag(self, X: np.ndarray) -> np.ndarray:
        """``k(x, x)`` for every row of X, without building a matrix."""
        if is_device_array(X):
            xp = namespace(X)
            if self.name in HAMMING_KERNELS:
                return to_target(self.diag(to_numpy(X)), (xp, device_of(X)), dtype=X.dtype)
            return self._array_api_diag(X, xp)
        X = _host_float64(X)
        if self.name in ("rbf", "hamming_normalized"):
            return np.ones(X.shape[0])
        if self.name == "hamming":
            return np.full(X.shape[0], np.exp(np.sum(np.log1p((np.asarray(self.domain_sizes) - 1) * self._gamma**2))))
        sq_norms = np.einsum("ij,ij->i", X, X)
        if self.name == "linear":
            return sq_norms
        return (self._gamma * sq_norms + self.coef0) ** self.degree

    def _array_api_diag(self, X, xp):
        if self.name == "rbf":
            return xp.ones(X.shape[0], dtype=X.dtype, device=device_of(X))
        sq_norms = xp.sum(X * X, axis=1)
        return sq_norms if self.name == "linear" else (self._gamma * sq_norms + self.coef0) ** self.degree


def _host_float64(X) -> np.ndarray:
    """X as a float64 NumPy array: a NumPy array as ``np.asarray`` gives it (no copy when it is one), a list or
    a data frame in C order, so that its numbers are a NumPy array's to the last bit."""
    return np.asarray(X, dtype=np.float64) if isinstance(X, np.ndarray) else np.ascontiguousarray(X, dtype=np.float64)


def _itemsize(array) -> int:
    """Bytes of one number of an array-API array (its dtype's, through NumPy's name for it)."""
    return np.dtype(str(array.dtype).rsplit(".", 1)[-1]).itemsize


@validate_params(KERNEL_PARAMETER_CONSTRAINTS, prefer_skip_nested_validation=True)
def make_kernel(X: np.ndarray, kernel="rbf", *, gamma=None, sigma=None, degree=3, coef0=1.0) -> Kernel:
    """Build a :class:`Kernel` for training data X, resolving width heuristics.

    For ``poly`` a ``gamma`` of None means 1 (the plain ``(<x, y> + coef0)^d``).
    For ``hamming`` / ``hamming_normalized`` ``gamma`` is Couto's lambda in (0, 1]
    and the attributes' numbers of values come from X (:func:`hamming_domain_sizes`).
    """
    if kernel == "rbf":
        return Kernel("rbf", gamma=resolve_gamma(X, gamma, sigma))
    if kernel == "poly":
        if sigma is not None:
            raise ValueError("sigma is an RBF width; the polynomial kernel takes gamma, degree and coef0")
        return Kernel("poly", gamma=1.0 if gamma is None else float(gamma), degree=int(degree), coef0=float(coef0))
    if kernel == "linear":
        return Kernel("linear")
    # The declaration leaves only the Hamming kernels here.
    if sigma is not None or gamma is None or isinstance(gamma, str) or not 0 < gamma <= 1:
        raise ValueError(
            f"the Hamming kernel takes its lambda as gamma, a number in (0, 1]; got gamma={gamma!r}"
            + (f", sigma={sigma!r}" if sigma is not None else "")
        )
    return Kernel(kernel, gamma=float(gamma), domain_sizes=hamming_domain_sizes(X))


@dataclass(frozen=True)
class KernelCentering:
    """Centering of kernel matrices in feature space, learned from a training kernel.

    With ``phi~(x) = phi(x) - mean_i phi(x_i)`` over the training points:
    ``K~ = K - 1K - K1 + 1K1`` for the training kernel, and for test rows
    ``k~(x, x_i) = k(x, x_i) - mean_j k(x, x_j) - mean_j k(x_j, x_i) + mean_jl k(x_j, x_l)``
    (Schölkopf, Smola & Müller 1998, appendix B). Equivalent to scikit-learn's
    ``KernelCenterer`` and also gives ``||phi~(x)||^2``, which the
    reconstruction error needs. Works on any array-API array; ``column_means``
    lives where the training kernel did.
    """

    column_means: np.ndarray
    grand_mean: float

    @classmethod
    def fit(cls, K_train: np.ndarray) -> "KernelCentering":
        if not is_device_array(K_train):
            K_train = _host_float64(K_train)
        xp = namespace(K_train)
        column_means = xp.mean(K_train, axis=0)
        return cls(column_means=column_means, grand_mean=float(xp.mean(column_means)))

    def center_train(self, K_train: np.ndarray) -> np.ndarray:
        """Centered training kernel; modifies ``K_train`` in place to save memory.

        One pass over K in row blocks on the BLAS threads (:func:`map_row_blocks`),
        each block taking the three steps while it is in the cache.
        """

        def center(rows: slice) -> None:
            block = K_train[rows]
            block -= self.column_means[np.newaxis, :]
            block -= self.column_means[rows, np.newaxis]
            block += self.grand_mean

        if is_device_array(K_train):
            return self._center_train_array_api(K_train)
        K_train = _host_float64(K_train)  # a float64 NumPy array itself, centred in place
        map_row_blocks(center, row_blocks(*K_train.shape))
        return K_train

    def _center_train_array_api(self, K_train):
        """:meth:`center_train` on a device, in row blocks sized from its free memory (:func:`block_rows`)."""
        xp = namespace(K_train)
        for rows in gen_batches(
            K_train.shape[0], block_rows(K_train.shape[1], (xp, device_of(K_train)), _itemsize(K_train))
        ):
            K_train[rows, :] = (
                K_train[rows, :] - self.column_means[None, :] - self.column_means[rows, None] + self.grand_mean
            )
        return K_train

    def center_cross(self, K_cross: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Centered test-vs-train kernel (modified in place) and the row means it removed.

        The row means are needed for ``||phi~(x)||^2``; see :meth:`sq_norms`.
        """
        row_means = namespace(K_cross).mean(K_cross, axis=1)
        K_cross -= self.column_means[None, :]
        K_cross -= row_means[:, None]
        K_cross += self.grand_mean
        return K_cross, row_means

    def sq_norms(self, diag: np.ndarray, row_means: np.ndarray) -> np.ndarray:
        """``||phi~(x)||^2 = k(x, x) - 2 mean_i k(x, x_i) + mean_ij k(x_i, x_j)``."""
        return diag - 2.0 * row_means + self.grand_mean
