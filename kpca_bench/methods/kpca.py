"""Exact kernel PCA, and the shared fitting path of every kernel-PCA variant.

Every variant (exact, sparse by elastic net, sparse by ADMM, L1-norm, Nystrom)
describes its components by a dual coefficient matrix ``A`` of shape
(n_train, n_components): component ``j`` is ``v_j = sum_i A[i, j] phi~(x_i)``
with ``phi~`` the feature map centered on the training mean. That matrix is
what sparsity is measured on, and :meth:`BaseKernelPCA.project` is all the
outlier scores in :mod:`kpca_bench.methods.scores` need.

A variant that declares ``_array_api_support`` (exact and Nystrom kernel PCA)
computes on a GPU when asked (``device="cuda"``, a run's ``execution.device``) or
when given arrays of another array-API library; its fitted arrays then live on
that device (:mod:`kpca_bench.devices`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import gen_batches
from sklearn.utils.validation import check_is_fitted

from kpca_bench.devices import (
    DEVICE_FORMS,
    DeviceError,
    check_fits,
    compute_target,
    device_name,
    device_of,
    is_device_array,
    is_numpy,
    like_input,
    namespace,
    solver_plan,
    to_target,
)
from kpca_bench.devices import block_rows as device_block_rows
from kpca_bench.eigensolvers import DEFAULT_TOL, EIGEN_SOLVERS, block_sizes, choose_solver, top_eigenpairs
from kpca_bench.kernels import (
    BLOCK_BYTES,
    KERNEL_PARAMETER_CONSTRAINTS,
    KernelCentering,
    make_kernel,
    map_row_blocks,
    validated_input,
)
from kpca_bench.param_validation import fit_context, NumberInterval, Options, StrOptions

# Components kept when n_components is None (fewer when the training samples allow fewer).
DEFAULT_COMPONENTS = 10
DTYPES = ("float64", "float32")
# The block solver's residual tolerance in float32 (relative to lambda_1): the square root of its
# machine epsilon, the residual float32 products can certify; DEFAULT_TOL is beneath their rounding.
FLOAT32_TOL = float(np.finfo(np.float32).eps) ** 0.5


class DeviceOption(Options):
    """scikit-learn's parameter constraint for a device: any form :func:`kpca_bench.devices.device_name` reads
    (``"cpu"``, ``"cuda"``, ``"cuda:N"``, a ``torch.device``, a CuPy ``Device``)."""

    def __init__(self):
        super().__init__(object, set())

    def is_satisfied_by(self, val):
        try:
            device_name(val)
        except DeviceError:
            return False
        return True

    def __str__(self):
        return f"a device ({DEVICE_FORMS})"


# The parameters of a variant that computes through the array API (``_array_api_support``).
DEVICE_PARAMETER_CONSTRAINTS: dict = {
    "device": [DeviceOption(), None],
    "dtype": [StrOptions(set(DTYPES)), None],
}


def fit_dtype(dtype: str | None, X) -> str:
    """The precision of a fit on X: ``dtype``; for None, float32 where X is a float32 array of an array-API
    library (float32 in, float32 out), else float64 (NumPy input keeps the NumPy path's precision on any
    device, so a run's ``device`` never changes the precision of its numbers)."""
    if dtype is not None:
        return dtype
    return "float32" if is_device_array(X) and str(X.dtype).rsplit(".", 1)[-1] == "float32" else "float64"


@dataclass(frozen=True)
class Projection:
    """Test points seen from a fitted kernel subspace.

    Attributes
    ----------
    scores : ndarray of shape (n_samples, n_components)
        ``<v_j, phi~(x)>`` for every component ``v_j``.
    sq_norms : ndarray of shape (n_samples,)
        ``||phi~(x)||^2``, the squared feature-space distance to the training mean.
    """

    scores: np.ndarray
    sq_norms: np.ndarray


RANK_CUTOFFS = ("numerical", "positive")


def dual_coefficients(eigenvalues: np.ndarray, eigenvectors: np.ndarray, rank_cutoff: str = "numerical") -> np.ndarray:
    """Scale eigenvectors ``u_j`` of the centered kernel to ``alpha_j = u_j / sqrt(lambda_j)``.

    Then ``alpha_j^T K~ alpha_j = 1``: each component has unit norm in feature
    space (Schölkopf et al. 1998, eq. 16). Components whose eigenvalue is
    numerically zero carry no direction; their coefficients are set to zero.
    ``rank_cutoff="numerical"`` calls an eigenvalue zero at or below
    ``max * n * eps``; ``"positive"`` only at or below 0, keeping the tail that
    rounding leaves above 0 (see :class:`KernelPCA`).
    """
    xp = namespace(eigenvalues, eigenvectors)
    largest = max(float(xp.max(eigenvalues)), 0.0) if eigenvalues.shape[0] else 0.0
    tol = largest * eigenvectors.shape[0] * xp.finfo(eigenvalues.dtype).eps if rank_cutoff == "numerical" else 0.0
    null = eigenvalues <= tol
    if bool(xp.any(null)):
        warnings.warn(
            f"{int(xp.sum(xp.astype(null, xp.int64)))} of {eigenvalues.shape[0]} kernel principal components "
            "have a zero eigenvalue (the centered kernel has lower rank); their coefficients are set to 0",
            stacklevel=3,
        )
    # 1 stands in for the null eigenvalues under the root, so that no 1/0 is ever computed (or warned of).
    scale = xp.where(
        null, xp.zeros_like(eigenvalues), 1.0 / xp.sqrt(xp.where(null, xp.ones_like(eigenvalues), eigenvalues))
    )
    return eigenvectors * scale


class BaseKernelPCA(TransformerMixin, BaseEstimator):
    """Fit a kernel on training data, center it, and hand it to a component solver.

    Subclasses implement ``_fit_components(K_centered)`` and set ``dual_coef_``
    (and ``eigenvalues_`` when the method has them). They must not modify
    ``K_centered`` in place unless they also override ``_training_scores``,
    the one later use of it.

    Fitted attributes set here: ``n_features_in_``, ``X_fit_``, ``kernel_``,
    ``gamma_`` (the resolved RBF or polynomial gamma, None for linear),
    ``centering_``, ``training_projection_`` (the :class:`Projection` of the
    training points, from the training kernel: scoring them needs no second
    kernel), ``projection_variances_`` (variance of each component's
    projection over the training points, used by the Mahalanobis score).

    ``_parameter_constraints`` declares the parameters' types and ranges, as
    scikit-learn's estimators do; subclasses extend it with
    ``{**Base._parameter_constraints, ...}``. fit checks it first; what depends
    on the data (``n_components <= n_samples - 1``) or on several parameters
    at once is checked in code.

    ``_array_api_support`` (False here): whether the variant computes through
    the array API, on the device of its ``device`` / ``dtype`` parameters (see
    :class:`KernelPCA`); the others compute on the host with NumPy.
    """

    _array_api_support = False

    _parameter_constraints: dict = {
        "n_components": [NumberInterval(Integral, 1, None, closed="left"), None],
        **KERNEL_PARAMETER_CONSTRAINTS,
    }

    def __init__(self, n_components=None, *, kernel="rbf", gamma=None, sigma=None, degree=3, coef0=1.0):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the components on X (training inliers in a novelty setting).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, at least 2 samples (and more than ``n_components``); integer
            category codes for a Hamming kernel. An array of an array-API library (CuPy,
            PyTorch) is computed on its device by a variant with ``_array_api_support`` (see
            its ``device``), on a host copy by the others.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X = self._validate_training_data(X)
        if not is_numpy(X):
            self._check_device_memory(X)
        K = self.kernel_(X)
        self.centering_ = KernelCentering.fit(K)
        K = self.centering_.center_train(K)
        self.X_fit_ = X
        xp = namespace(K)
        sq_norms = xp.asarray(xp.linalg.diagonal(K), copy=True)  # ||phi~(x_i)||^2, before a solver may overwrite K
        self._fit_components(K)
        scores = self._training_scores(K)
        self.training_projection_ = Projection(scores=scores, sq_norms=sq_norms)
        self.projection_variances_ = self._projection_variances(scores)
        return self

    def _training_scores(self, K_centered: np.ndarray) -> np.ndarray:
        """Projections of the training points on the components, ``K~ A``."""
        return K_centered @ self.dual_coef_

    def _projection_variances(self, training_scores: np.ndarray) -> np.ndarray:
        """Variance of each component's projection over the training points."""
        return namespace(training_scores).var(training_scores, axis=0)

    def _validate_training_data(self, X) -> np.ndarray:
        """Check X and n_components against it; set ``n_features_in_``, ``kernel_`` and ``gamma_``.

        Returns X as NumPy, or on the device the variant computes on (:meth:`_compute_target`).
        scikit-learn's checks and the kernel's width look at a host copy of device
        arrays (O(n d), against the kernel's O(n^2)), so the width is the NumPy path's to the bit.
        """
        checked = self._checked(X, reset=True)
        if checked.shape[0] < 2:
            raise ValueError(f"kernel PCA needs at least 2 training samples, got n_samples = {checked.shape[0]}")
        self._check_n_components(checked.shape[0])
        self.kernel_ = make_kernel(
            checked, self.kernel, gamma=self.gamma, sigma=self.sigma, degree=self.degree, coef0=self.coef0
        )
        self.gamma_ = self.kernel_.gamma
        self._fit_dtype = fit_dtype(getattr(self, "dtype", "float64"), X)
        target = self._compute_target(X)
        return (
            checked
            if target is None
            else to_target(X if is_device_array(X) else checked, target, dtype=getattr(target[0], self._dtype()))
        )

    def _checked(self, X, *, reset: bool) -> np.ndarray:
        """X as float64 NumPy, as category codes for a Hamming kernel (:func:`kpca_bench.kernels.validated_input`)."""
        return validated_input(self, X, self.kernel, reset=reset)

    def _dtype(self) -> str:
        """The precision of the fit (:func:`fit_dtype`, set when the training data are checked)."""
        return getattr(self, "_fit_dtype", None) or getattr(self, "dtype", None) or "float64"

    def _compute_target(self, X):
        """None for the NumPy path, else the (namespace, device) to compute on: see :mod:`kpca_bench.devices`."""
        if not self._array_api_support:
            return None
        target = compute_target(X, getattr(self, "device", None))
        if target is None and self._dtype() != "float64":
            raise ValueError(
                f"dtype={self._dtype()!r} computes through the array API: give device='cuda' or "
                "arrays of an array-API library; NumPy arrays on the CPU compute in float64"
            )
        return target

    def _fitted_target(self):
        """Where the fitted arrays live: None for NumPy, else (namespace, device)."""
        return None if is_numpy(self.dual_coef_) else (namespace(self.dual_coef_), device_of(self.dual_coef_))

    def _validate_test_data(self, X) -> np.ndarray:
        check_is_fitted(self, "dual_coef_")
        checked = self._checked(X, reset=False)
        target = self._fitted_target()
        return (
            checked
            if target is None
            else to_target(X if is_device_array(X) else checked, target, dtype=self.dual_coef_.dtype)
        )

    def _check_n_components(self, n_samples: int) -> None:
        """Set ``n_components_``: ``n_components``, or for None :data:`DEFAULT_COMPONENTS` or fewer on few samples."""
        k = self.n_components
        if k is None:
            self.n_components_ = min(DEFAULT_COMPONENTS, n_samples - 1)
            return
        self.n_components_ = k
        if k > n_samples - 1:
            raise ValueError(
                f"n_components={k} is more than the {n_samples - 1} components that {n_samples} "
                f"training samples can have (centering removes one); use n_components <= {n_samples - 1} "
                "or more training samples"
            )

    def _check_device_memory(self, X) -> None:
        """Refuse before any work a fit whose arrays would not fit on X's device (:func:`check_fits`), by what
        the solver that will run there holds (:func:`solver_plan`)."""
        n, k = X.shape[0], min(self.n_components_, X.shape[0])
        solver = getattr(self, "eigen_solver", "block")  # estimators without the choice: as the block solver
        if solver == "auto":  # as top_eigenpairs resolves it for a device array: never arpack there
            solver = choose_solver(n, k)
            solver = "block" if solver == "arpack" else solver
        block, basis = block_sizes(k)
        float32 = self._dtype() == "float32"  # eigh and arpack then measure their residuals (warn_float32_accuracy)
        plan = solver_plan(solver, k, basis, block, checks_residuals=float32 and solver != "block")
        check_fits(n, X.shape[1], plan, (namespace(X), device_of(X)), itemsize=np.dtype(self._dtype()).itemsize)

    def _fit_components(self, K_centered: np.ndarray) -> None:
        raise NotImplementedError

    def project(self, X) -> Projection:
        """Components' projections of X and ``||phi~(x)||^2`` (see :class:`Projection`).

        The test-vs-train kernel is built, centred and projected in cache-sized row
        blocks spread over the BLAS threads (:func:`kpca_bench.kernels.map_row_blocks`),
        each block no larger than scikit-learn's ``working_memory``
        (``sklearn.config_context(working_memory=MiB)``), so scoring many points
        never holds the full n_test x n_train matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to project, with the training data's features.

        Returns
        -------
        projection : Projection
            ``scores`` of shape (n_samples, n_components_), ``<v_j, phi~(x)>``, and ``sq_norms``
            of shape (n_samples,), ``||phi~(x)||^2``; arrays where the fitted model lives
            (NumPy, or the device's library after a fit on a device), not converted back.
        """
        return self._project_on_training(self._validate_test_data(X), self.dual_coef_)

    def _project_on_training(self, X: np.ndarray, coef: np.ndarray) -> Projection:
        """``Projection`` of validated X on the components ``sum_i coef[i, j] phi~(x_i)`` over ``X_fit_``."""
        xp, device = namespace(coef), device_of(coef)
        scores = xp.empty((X.shape[0], coef.shape[1]), dtype=coef.dtype, device=device)
        sq_norms = xp.empty(X.shape[0], dtype=coef.dtype, device=device)

        def project_rows(rows: slice) -> None:
            K, row_means = self.centering_.center_cross(self.kernel_(X[rows, :], self.X_fit_))
            sq_norms[rows] = self.centering_.sq_norms(self.kernel_.diag(X[rows, :]), row_means)
            scores[rows, :] = K @ coef

        blocks = list(gen_batches(X.shape[0], self._block_rows()))
        if is_numpy(coef):
            map_row_blocks(project_rows, blocks)
        else:  # a device runs each block's products whole; threads would only queue them
            for rows in blocks:
                project_rows(rows)
        return Projection(scores=scores, sq_norms=sq_norms)

    def _block_rows(self) -> int:
        """Test rows per block: :data:`kpca_bench.kernels.BLOCK_BYTES`, or fewer within ``working_memory``.

        A block holds its kernel rows, 8 bytes x n_train per row: the kernel
        builds them in place (:func:`kpca_bench.kernels.kernel_matrix`). On a
        device, sized from its free memory (:func:`kpca_bench.devices.block_rows`).
        """
        if (target := self._fitted_target()) is not None:
            return device_block_rows(self.X_fit_.shape[0], target)
        block_bytes = min(BLOCK_BYTES, get_config()["working_memory"] * 2**20)
        return max(1, int(block_bytes // (8 * self.X_fit_.shape[0])))

    def transform(self, X):
        """Projections of X on the kernel principal components, shape (n_samples, n_components).

        NumPy for NumPy input (also when computed on a device), else in X's namespace.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components_)
            ``project(X).scores``, ``<v_j, phi~(x)>`` for each component ``v_j``.
        """
        return like_input(self.project(X).scores, X)


class KernelPCA(BaseKernelPCA):
    """Exact kernel PCA keeping the top ``n_components`` eigenpairs (Schölkopf et al. 1998).

    Parameters
    ----------
    n_components : int, default=None
        Number of kernel principal components; at most ``n_samples - 1``. None:
        10, or ``n_samples - 1`` when there are fewer samples (``n_components_``).
    kernel : {"rbf", "poly", "linear", "hamming", "hamming_normalized"}, default="rbf"
        See :func:`kpca_bench.kernels.make_kernel`.
    gamma : float or "mean_pairwise", default=None
        RBF width in ``exp(-gamma ||x - y||^2)``, or the polynomial kernel's
        scale. For RBF, None means ``"mean_pairwise"``: sigma^2 = mean squared
        pairwise distance of the training points (Das et al., section V).
    sigma : float, default=None
        RBF width in ``exp(-||x - y||^2 / (2 sigma^2))``; exclusive with gamma.
    degree, coef0 : polynomial kernel ``(gamma <x, y> + coef0)^degree``.
    eigen_solver : {"auto", "eigh", "arpack", "block"}, default="auto"
        ``eigh``: LAPACK, top eigenpairs only. ``arpack``: Lanczos, for large n.
        ``block``: block Lanczos with a certified residual (see
        :func:`kpca_bench.eigensolvers.block_krylov_eigh`). ``auto`` (our
        choice): the fastest of them for n, n_components and the BLAS threads
        the fit has that meets the accuracy contract
        (:func:`kpca_bench.eigensolvers.choose_solver`).
    random_state : int >= 0 or None
        Start vector of ``arpack`` and ``block``; unused by ``eigh``.
    rank_cutoff : {"numerical", "positive"}, default="numerical"
        Which eigenvalues count as zero (their components get zero coefficients
        and zero variance). ``"numerical"`` (our choice): at or below
        ``max * n * eps``, so only directions the kernel really has are kept.
        ``"positive"``: only those at or below 0, so components on eigenvalues
        that are rounding noise are kept too; that is Li et al.'s "p is searched
        from 1 to N_tr" (section IV.B) read literally. Their values then depend on
        the eigensolver.
    device : {"cpu", "cuda", "cuda:N"}, torch.device, CuPy Device or None, default=None
        Where to compute. None: the run's ``execution.device``, else where X lives
        (NumPy: the CPU; CuPy or PyTorch arrays: their device). ``"cuda"`` (the
        library's current GPU) or ``"cuda:N"`` (the GPU numbered N) moves
        NumPy input to the GPU (CuPy or PyTorch, :func:`kpca_bench.devices.cuda_library`)
        and gives NumPy back from ``transform`` and the scores. Fitted arrays stay
        on the device.
    dtype : {"float64", "float32"} or None, default=None
        Precision on a device. None: float32 for float32 arrays of an array-API
        library (a float32 tensor gives float32 results), else float64 (NumPy
        input included, whatever its dtype). ``"float32"`` warns with the residual
        it reached (float64 reaches ``1e-8 * lambda_1``; float32 about its
        epsilon's square root).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centered training kernel, largest first.
    eigen_solver_ : str
        The solver that ran (``auto`` resolved).
    eigen_residuals_ : ndarray of shape (n_components,) or None
        ``||K~ u_j - lambda_j u_j||`` of each eigenpair, from the ``block`` solver; None otherwise.
    dual_coef_ : ndarray of shape (n_train, n_components)
        ``alpha_j = u_j / sqrt(lambda_j)``, so every component has unit norm.

    References
    ----------
    B. Schölkopf, A. Smola, K.-R. Müller. Nonlinear component analysis as a
    kernel eigenvalue problem. Neural Computation 10(5), 1998.
    """

    # The first k components do not depend on how many are computed.
    nested_components = True
    _array_api_support = True

    _parameter_constraints: dict = {
        **BaseKernelPCA._parameter_constraints,
        "eigen_solver": [StrOptions(set(EIGEN_SOLVERS))],
        "random_state": [NumberInterval(Integral, 0, None, closed="left"), None],
        "rank_cutoff": [StrOptions(set(RANK_CUTOFFS))],
        **DEVICE_PARAMETER_CONSTRAINTS,
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
        eigen_solver="auto",
        random_state=None,
        rank_cutoff="numerical",
        device=None,
        dtype=None,
    ):
        super().__init__(n_components, kernel=kernel, gamma=gamma, sigma=sigma, degree=degree, coef0=coef0)
        self.eigen_solver = eigen_solver
        self.random_state = random_state
        self.rank_cutoff = rank_cutoff
        self.device = device
        self.dtype = dtype

    def _fit_components(self, K_centered):
        self._check_n_components(K_centered.shape[0])  # sets n_components_ (also when called directly)
        # K_centered is this fit's own temporary: letting eigh overwrite it keeps
        # one n x n matrix in memory instead of two (the SAS paper's n = 16,000).
        float32 = self._dtype() == "float32"
        eig = top_eigenpairs(
            K_centered,
            self.n_components_,
            self.eigen_solver,
            self.random_state,
            overwrite=True,
            tol=FLOAT32_TOL if float32 else DEFAULT_TOL,
        )
        self.eigenvalues_, self.eigen_solver_, self.eigen_residuals_ = eig.values, eig.solver, eig.residuals
        if float32:
            warn_float32_accuracy(K_centered, eig)
        self.dual_coef_ = dual_coefficients(eig.values, eig.vectors, self.rank_cutoff)

    def _training_scores(self, K_centered):
        """``K~ alpha_j = sqrt(lambda_j) u_j = lambda_j alpha_j``, without K (which eigh may have overwritten)."""
        return self.dual_coef_ * self.eigenvalues_

    def _projection_variances(self, training_scores):
        """``lambda_j / n``: ``K~ alpha_j = sqrt(lambda_j) u_j`` has mean 0 (``1^T K~ = 0``) and squared
        norm ``lambda_j``; a component set to zero by :func:`dual_coefficients` has variance 0.
        """
        xp = namespace(self.dual_coef_)
        live = xp.any(self.dual_coef_ != 0, axis=0)
        return xp.where(live, self.eigenvalues_, xp.zeros_like(self.eigenvalues_)) / self.dual_coef_.shape[0]


def warn_float32_accuracy(K, eig) -> None:
    """Warn that a float32 fit is only as accurate as the largest residual of its eigenpairs, measured.

    The block solver's residuals, or ``||K u_j - lambda_j u_j||`` computed here
    (the array-API path never overwrites K).
    """
    xp = namespace(K)
    residuals = (
        eig.residuals
        if eig.residuals is not None
        else xp.linalg.vector_norm(K @ eig.vectors - eig.vectors * eig.values, axis=0)
    )
    worst = float(xp.max(residuals)) / float(eig.values[0])
    warnings.warn(
        f"dtype='float32': the eigenpairs' residuals reach {worst:.1e} * lambda_1 (float64 reaches "
        f"{DEFAULT_TOL:g}); reconstruction errors and Mahalanobis distances are no more accurate than "
        "that; use dtype='float64' for certified numbers",
        UserWarning,
        stacklevel=4,
    )
