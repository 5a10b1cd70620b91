"""Low-rank kernel PCA by the Nystrom method with k-means landmarks (SAS paper).

The n x n kernel matrix is never built: the training points are mapped into
the span of c landmark features ``phi(z_1), ..., phi(z_c)`` and ordinary PCA
is done there, at O(n c^2) time and O(n c) memory instead of O(n^3) and O(n^2).
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy import linalg
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils.validation import check_array

from kpca_bench.devices import device_of, is_numpy, namespace, to_numpy, to_target
from kpca_bench.eigensolvers import column_signs, top_eigenpairs
from kpca_bench.kernels import KernelCentering
from kpca_bench.methods.kpca import DEVICE_PARAMETER_CONSTRAINTS, BaseKernelPCA, Projection, warn_float32_accuracy
from kpca_bench.param_validation import fit_context, NumberInterval, StrOptions

LANDMARK_METHODS = ("kmeans", "random")
PROJECTIONS = ("landmarks", "training")


def pinv_sqrt(W: np.ndarray) -> np.ndarray:
    """Pseudo-inverse square root ``W^{+1/2} = U L^{-1/2} U^T`` of a PSD matrix (SAS step 4).

    Eigenvalues at or below ``c * eps * max(L)`` (rounding level, as in
    ``scipy.linalg.pinvh``) are treated as zero: dividing by their square root
    would turn rounding noise into large feature coordinates.
    """
    values, vectors = linalg.eigh(W)
    keep = values > values.max(initial=0.0) * W.shape[0] * np.finfo(float).eps
    vectors = vectors[:, keep]
    return (vectors / np.sqrt(values[keep])) @ vectors.T


class NystromKernelPCA(BaseKernelPCA):
    """Kernel PCA on a Nystrom feature map with k-means (or random) landmarks.

    The seven computation steps of Shen & Asgharzadeh:

    1. landmarks ``z_1..z_c``: k-means centroids with k-means++ seeding;
    2. ``E = k(X, Z)`` (n x c);
    3. ``W = k(Z, Z)`` (c x c);
    4. ``P^{-1} = W^{+1/2}``, the pseudo-inverse square root of W;
    5. ``G = E P^{-1}`` and its centered version ``G~ = G - mean(G)``;
    6. ``G~^T G~ = V L V^T`` (c x c), keeping the top ``n_components``;
    7. ``K~ ~= G~ G~^T``, whose top eigenvectors are ``U = G~ V L^{-1/2}``
       (the paper prints ``G~ V L^{-1}``, which is ``U L^{-1/2}``, the
       feature-space normalised dual vectors of exact KPCA).

    **What the model is, exactly.** ``g(x) = k(x, Z) W^{+1/2}`` are the
    coordinates of ``P_Z phi(x)``, the projection of ``phi(x)`` onto the span of
    the landmark features, in an orthonormal basis of that span. Centering G on
    its training mean therefore centres feature space at ``m_Z = P_Z m``, the
    projection of the training mean ``m`` (projection is linear). Component j is
    the unit feature-space vector ``v_j = sum_l dual_coef_[l, j] phi(z_l)`` with
    ``dual_coef_ = W^{+1/2} V``; the components are exactly orthonormal in
    feature space (``dual_coef_^T W dual_coef_ = I``). Because ``v_j`` lies in
    the landmark span, ``<v_j, m_Z> = <v_j, m>`` and the scores
    ``<v_j, phi(x) - m> = (g(x) - mean g) V`` are the *exact* projections of the
    truly centered ``phi~(x)`` on these components, and ``eigenvalues_`` are the
    exact training variances (times n) along them.

    **Scoring choice.** :meth:`project` returns ``sq_norms = ||phi(x) - m_Z||^2
    = k(x, x) - 2 k(x, Z) w + w^T W w`` with ``m_Z = sum_l w_l phi(z_l)``
    (``center_coef_ = w = W^+ mean_i k(Z, x_i)``), computed with the true
    kernel diagonal. Equivalently ``||g(x) - mean g||^2 + (k(x, x) - ||g(x)||^2)``:
    the distance inside the landmark span plus the exact Nystrom residual of
    ``phi(x)`` off it. So the reconstruction error is the exact squared distance
    of ``phi(x)`` from the affine subspace ``m_Z + span(v_j)``; the only
    approximation is the centre ``m_Z`` for ``m``, and with the training points
    as landmarks (c = n) it is exact KPCA's error for any x. The alternatives
    were rejected: the purely approximate ``||g(x) - mean g||^2`` ignores the
    part of ``phi(x)`` outside the landmark span, so with an RBF kernel a point
    far from every landmark (``g(x) -> 0``) gets a small, bounded error -- the
    worst outliers look normal; the fully exact ``||phi(x) - m||^2`` needs
    ``mean_i k(x, x_i)`` (O(n) per point) and ``mean_ij k(x_i, x_j)`` (O(n^2)),
    which this method exists to avoid.

    Parameters
    ----------
    n_components : int, default=None
        Number of components; at most ``min(n_samples - 1, n_landmarks)``. None: 10, or that many if fewer.
    n_landmarks : int, default=200
        Number of landmarks c (the SAS paper uses 200 centroids on letter
        recognition). More than ``n_samples`` is reduced to ``n_samples`` with
        a warning. Ignored when ``landmarks`` is an array.
    landmarks : {"kmeans", "random"} or array-like of shape (c, n_features), default="kmeans"
        ``"kmeans"``: centroids of scikit-learn's ``KMeans`` with k-means++
        seeding (SAS step 1; Zhang, Tsang & Kwok 2008). ``"random"``: c
        training points drawn without replacement (the classical Nystrom
        method, as ``sklearn.kernel_approximation.Nystroem``). An array gives
        the landmarks explicitly.
    kernel : {"rbf", "poly", "linear"}, default="rbf"
    gamma : float or "mean_pairwise", default=None
        See :class:`~kpca_bench.methods.kpca.KernelPCA`.
    sigma : float, default=None
        The SAS paper's Gaussian "kernel parameter" s in ``exp(-||x - y||^2 / (2 s^2))``.
    degree, coef0 : polynomial kernel ``(gamma <x, y> + coef0)^degree``; the
        paper's ``(x . y + c)^d`` is ``gamma=None`` (1), ``coef0=c``, ``degree=d``.
    projection : {"landmarks", "training"}, default="landmarks"
        How :meth:`project` (and ``transform``) scores a point x.
        ``"landmarks"`` (our choice): through the c landmarks, as described
        above, at O(c) kernel evaluations per point. ``"training"`` follows
        the paper's text ("KPCA in SAS/IML": to score new points, the centred
        kernel ``K~_{p x n}`` against all n training points times
        ``U = G~ V Lambda^{-1}``, step 7): scores ``k~(x, X) G~ V Lambda^{-1}``,
        the paper's ``S`` up to a per-component scale, chosen so that the
        components ``sum_i U_ij phi~(x_i)`` have unit norm under the Nystrom
        approximation ``K~ ~= G~ G~^T``; ``||phi~(x)||^2`` is then the exact
        norm about the training mean. It costs O(n) kernel evaluations per
        point, keeps the training set (``X_fit_``) and evaluates the training
        kernel once in fit, in row blocks, for its column means (the paper's
        ``KPCATrain`` likewise returns them, ``RowMeans``, to ``KPCAScore``). The paper
        gives this for new points only and is silent about the training
        points' scores; every point the caller passes is scored the same way
        (our choice).
    device, dtype : see :class:`~kpca_bench.methods.kpca.KernelPCA`. Landmarks are
        chosen on the host (scikit-learn's ``KMeans``); the kernels and their
        products run on the device, the c x c steps 4 and 6 on the host.

    Attributes
    ----------
    landmarks_ : ndarray of shape (c, n_features)
    n_landmarks_ : int
        The number of landmarks c actually used.
    dual_coef_ : ndarray of shape (c, n_components)
        Coefficients of the components over the **landmark** features
        ``phi(z_l)`` (uncentered), not over the n training points as in exact
        KPCA. A method that measures sparsity on ``dual_coef_`` sees a dense
        matrix; over the training set the expansion uses c of n points, a
        density of c / n by construction.
    center_coef_ : ndarray of shape (c,)
        ``w`` with ``m_Z = sum_l w_l phi(z_l)``, the centre of feature space.
    training_coef_ : ndarray of shape (n_train, n_components)
        ``U = G~ V Lambda^{-1}``, the coefficients over the centred training
        features that ``projection="training"`` scores with (only then).
    X_fit_ : ndarray of shape (n_train, n_features)
        The training data (only with ``projection="training"``).
    centering_ : KernelCentering
        The exact training kernel's centring (only with ``projection="training"``).
    eigenvalues_ : ndarray of shape (n_components,)
        Top eigenvalues of ``G~^T G~`` = of ``G~ G~^T``, the Nystrom
        approximation of the centered training kernel; comparable to
        :attr:`KernelPCA.eigenvalues_ <kpca_bench.methods.kpca.KernelPCA>`.
    projection_variances_ : ndarray of shape (n_components,)
        Variance of each component's projection over the training points
        (``eigenvalues_ / n``), for the Mahalanobis score; with
        ``projection="training"`` still those of the Nystrom training scores
        ``G~ V``, which that projection of the training points approximates.
    kernel_ : Kernel
    gamma_ : float or None
    n_features_in_ : int

    References
    ----------
    X. Shen, Z. Asgharzadeh. Kernel principal component analysis using SAS.
    SAS Institute technical paper: "Low-Rank Approximation Using the Nystrom
    Method", eq. 21, and the seven computation steps of "KPCA in SAS/IML".

    K. Zhang, I. W. Tsang, J. T. Kwok. Improved Nystrom low-rank approximation
    and error analysis. ICML 2008 (k-means landmarks).
    """

    _parameter_constraints: dict = {
        **BaseKernelPCA._parameter_constraints,
        "n_landmarks": [NumberInterval(Integral, 1, None, closed="left")],
        "landmarks": [StrOptions(set(LANDMARK_METHODS)), "array-like"],
        "random_state": ["random_state"],
        "projection": [StrOptions(set(PROJECTIONS))],
        **DEVICE_PARAMETER_CONSTRAINTS,
    }
    _array_api_support = True

    def __init__(
        self,
        n_components=None,
        *,
        n_landmarks=200,
        landmarks="kmeans",
        kernel="rbf",
        gamma=None,
        sigma=None,
        degree=3,
        coef0=1.0,
        random_state=None,
        projection="landmarks",
        device=None,
        dtype=None,
    ):
        super().__init__(n_components, kernel=kernel, gamma=gamma, sigma=sigma, degree=degree, coef0=coef0)
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.random_state = random_state
        self.projection = projection
        self.device = device
        self.dtype = dtype

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the low-rank components on X without building the n x n kernel.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, at least 2 samples. An array of an array-API library (CuPy,
            PyTorch) is computed on its device (see ``device``); landmarks are chosen on a host copy.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X = self._validate_training_data(X)
        Z = self._select_landmarks(to_numpy(X))
        if not is_numpy(X):
            Z = to_target(Z, (namespace(X), device_of(X)), dtype=X.dtype)
        self.landmarks_, self.n_landmarks_ = Z, Z.shape[0]
        if self.n_components is None:
            self.n_components_ = min(self.n_components_, self.n_landmarks_)
        if self.n_components_ > self.n_landmarks_:
            raise ValueError(
                f"n_components={self.n_components_} is more than the {self.n_landmarks_} components "
                f"that {self.n_landmarks_} landmarks can give; use n_components <= n_landmarks"
            )

        E = self.kernel_(X, Z)  # step 2
        W = self.kernel_(Z)  # step 3
        xp = namespace(E)
        # Step 4 on the c x c matrix, on the host (SciPy's eigh; the array API's has no cut-off) and back.
        W_isqrt = to_target(pinv_sqrt(to_numpy(W)), (xp, device_of(E)), dtype=E.dtype)
        G = E @ W_isqrt  # step 5
        g_mean = xp.mean(G, axis=0)
        G -= g_mean
        C = G.T @ G
        eig = top_eigenpairs(C, self.n_components_, "eigh")  # step 6
        if self._dtype() == "float32":
            warn_float32_accuracy(C, eig)  # the measured residuals of the c x c eigenpairs, as KernelPCA warns
        del C
        values, V = eig.values, eig.vectors
        train_scores = G @ V  # = U L^{1/2}, step 7
        # Exact KPCA fixes signs on the eigenvectors U of K~; U is proportional
        # to train_scores, so fixing the same way makes c = n runs identical.
        signs = column_signs(train_scores)
        V *= signs
        train_scores *= signs

        self.eigenvalues_ = values
        self.dual_coef_ = W_isqrt @ V
        self.center_coef_ = W_isqrt @ g_mean
        self._score_offsets = g_mean @ V
        self._center_sq_norm = float(g_mean @ g_mean)
        self.projection_variances_ = xp.var(train_scores, axis=0)
        if self.projection == "training":
            self._fit_training_projection(X, train_scores, values)
        return self

    def _fit_training_projection(self, X: np.ndarray, train_scores: np.ndarray, values: np.ndarray) -> None:
        """``X_fit_``, the exact centring and ``training_coef_ = G~ V Lambda^{-1}`` (SAS scoring step)."""
        self.X_fit_ = X
        xp = namespace(X)
        column_means = xp.empty(X.shape[0], dtype=X.dtype, device=device_of(X))
        for rows in gen_batches(X.shape[0], self._block_rows()):
            column_means[rows] = xp.mean(self.kernel_(X[rows, :], X), axis=1)  # K is symmetric
        self.centering_ = KernelCentering(column_means=column_means, grand_mean=float(xp.mean(column_means)))
        positive = values > 0
        self.training_coef_ = xp.where(
            positive, train_scores / xp.where(positive, values, xp.ones_like(values)), xp.zeros_like(train_scores)
        )

    def _select_landmarks(self, X: np.ndarray) -> np.ndarray:
        if not isinstance(self.landmarks, str):
            Z = check_array(self.landmarks, dtype=np.float64)
            if Z.shape[1] != X.shape[1]:
                raise ValueError(f"landmarks have {Z.shape[1]} features, but X has {X.shape[1]}")
            return Z
        c, n = self.n_landmarks, X.shape[0]
        if c > n:
            warnings.warn(f"n_landmarks={c} is more than the {n} training samples; using {n}", stacklevel=4)
            c = n
        rng = check_random_state(self.random_state)
        if self.landmarks == "random":
            return X[rng.permutation(n)[:c]]
        return KMeans(n_clusters=c, init="k-means++", n_init=1, random_state=rng).fit(X).cluster_centers_

    def project(self, X) -> Projection:
        """Projections on the components and the squared distance to the centre (see ``projection``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to project, with the training data's features.

        Returns
        -------
        projection : Projection
            ``scores`` of shape (n_samples, n_components_) and ``sq_norms`` of shape (n_samples,):
            with ``projection="landmarks"``, ``(g(x) - mean g) V`` and ``||phi(x) - m_Z||^2``; with
            ``"training"``, the centred kernel against the training points times ``training_coef_``
            and ``||phi~(x)||^2`` about the exact training mean. Arrays where the fitted model lives.
        """
        X = self._validate_test_data(X)
        if self.projection == "training":
            return self._project_on_training(X, self.training_coef_)
        E = self.kernel_(X, self.landmarks_)
        sq_norms = self.kernel_.diag(X) - 2.0 * (E @ self.center_coef_) + self._center_sq_norm
        return Projection(scores=E @ self.dual_coef_ - self._score_offsets, sq_norms=sq_norms)
