"""Thin wrappers over scikit-learn: its one-class SVM with every kpca-bench kernel, and the kNN-distance
and linear-PCA detectors of the benchmark suites, built on its ``NearestNeighbors`` and ``PCA``."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.decomposition import PCA
from sklearn.neighbors import NearestNeighbors
from sklearn.svm import OneClassSVM
from sklearn.utils.validation import check_is_fitted, validate_data

from kpca_bench.kernels import KERNEL_PARAMETER_CONSTRAINTS, make_kernel, validated_input
from kpca_bench.param_validation import fit_context, NumberInterval, RealNotInt, StrOptions


class KernelOneClassSVM(OutlierMixin, BaseEstimator):
    """scikit-learn's ``OneClassSVM`` on a kernel matrix built by :mod:`kpca_bench.kernels`.

    The one-class SVM itself is scikit-learn's (``kernel="precomputed"``); this
    class only supplies the kernel, so the same widths (``sigma`` or ``gamma``)
    and the categorical ``hamming`` kernel mean the same thing here as in the
    kernel-PCA methods. Li et al. (section IV.B) compare against it with the
    Gaussian and Hamming kernels.

    Signs as in scikit-learn: ``score_samples`` is higher for more normal
    points, ``decision_function = score_samples - offset_``, ``predict`` in {+1, -1}.

    Parameters
    ----------
    kernel : {"rbf", "poly", "linear", "hamming", "hamming_normalized"}, default="rbf"
    gamma : float or "mean_pairwise", default=None
        RBF width in ``exp(-gamma ||x - y||^2)``, the polynomial scale, or the
        Hamming kernel's lambda (see :func:`kpca_bench.kernels.make_kernel`).
    sigma : float, default=None
        RBF width in ``exp(-||x - y||^2 / (2 sigma^2))``; exclusive with gamma.
    degree, coef0 : polynomial kernel ``(gamma <x, y> + coef0)^degree``.
    nu : float in (0, 1], default=0.5
        Upper bound on the share of training errors and lower bound on the share
        of support vectors (Schölkopf et al. 2001).
    tol : float > 0, default=1e-3
        Stopping tolerance of libsvm.

    Attributes
    ----------
    svm_ : OneClassSVM
        The fitted scikit-learn estimator (on the precomputed training kernel).
    kernel_ : Kernel
        The resolved kernel; ``gamma_`` its width (or lambda).
    X_fit_ : ndarray of shape (n_train, n_features)
    offset_ : float
        ``svm_.offset_``.

    References
    ----------
    B. Schölkopf, J. Platt, J. Shawe-Taylor, A. Smola, R. Williamson. Estimating
    the support of a high-dimensional distribution. Neural Computation 13(7), 2001.
    """

    _parameter_constraints: dict = {
        **KERNEL_PARAMETER_CONSTRAINTS,
        "nu": [NumberInterval(Real, 0, 1, closed="right")],
        "tol": [NumberInterval(Real, 0, None, closed="neither")],
    }

    def __init__(self, *, kernel="rbf", gamma=None, sigma=None, degree=3, coef0=1.0, nu=0.5, tol=1e-3):
        self.kernel = kernel
        self.gamma = gamma
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.nu = nu
        self.tol = tol

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit scikit-learn's one-class SVM on the training kernel of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, at least 2 samples; integer category codes for a Hamming kernel.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X = validated_input(self, X, self.kernel, reset=True)
        if X.shape[0] < 2:
            raise ValueError(f"n_samples={X.shape[0]}: the one-class SVM needs at least 2 training samples")
        self.kernel_ = make_kernel(
            X, self.kernel, gamma=self.gamma, sigma=self.sigma, degree=self.degree, coef0=self.coef0
        )
        self.gamma_ = self.kernel_.gamma
        self.X_fit_ = X
        self.svm_ = OneClassSVM(kernel="precomputed", nu=self.nu, tol=self.tol).fit(self.kernel_(X))
        self.offset_ = float(self.svm_.offset_[0])
        return self

    def _cross_kernel(self, X) -> np.ndarray:
        check_is_fitted(self, "svm_")
        return self.kernel_(validated_input(self, X, self.kernel, reset=False), self.X_fit_)

    def score_samples(self, X):
        """``sum_i alpha_i k(x_i, x)``: higher means more normal (scikit-learn's sign).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score, with the training data's features.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``svm_.score_samples`` on the kernel of X against the training points: the
            higher, the more normal.
        """
        K = self._cross_kernel(X)
        return self.svm_.score_samples(K)

    def decision_function(self, X):
        """Shifted scores, ``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            The SVM's decision value: positive inside the estimated support (inliers),
            negative outside it (outliers).
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """Whether each point is an inlier (+1) or an outlier (-1), by scikit-learn's ``OneClassSVM.predict``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to label.

        Returns
        -------
        labels : ndarray of int of shape (n_samples,)
            +1 where the SVM's decision value is positive, -1 elsewhere (libsvm's rule:
            a point exactly on the boundary is an outlier).
        """
        K = self._cross_kernel(X)
        return self.svm_.predict(K)


def finite(scores: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``scores``, or a clear error when squared distances of the features overflow to inf / NaN."""
    if not np.all(np.isfinite(scores)):
        raise ValueError(
            f"distances between features as large as {np.max(np.abs(X)):.3g} overflow; "
            "scale the features (dataset.scaling: standard or minmax)"
        )
    return scores


class KNNDetector(OutlierMixin, BaseEstimator):
    """Distance to the k-th nearest training point, on scikit-learn's ``NearestNeighbors``.

    The kNN detector of Ramaswamy, Rastogi & Shim (2000) as PyOD's ``KNN`` computes it
    with its defaults (``n_neighbors=5``, ``method="largest"``): the outlier score of a
    new point is its distance to its k-th nearest neighbour among the training points.
    ``score_samples`` is minus that distance (scikit-learn's sign: higher = more normal).

    Parameters
    ----------
    n_neighbors : int >= 1, default=5
    method : {"largest", "mean", "median"}, default="largest"
        The k-th distance, or the mean / median of the k distances.
    metric : str, default="minkowski"
        Any metric of ``NearestNeighbors`` (with ``p=2``: Euclidean).

    Attributes
    ----------
    neighbors_ : NearestNeighbors
    offset_ : float
        Minus the training points' 95th-percentile score (``predict`` flags 5 %).

    References
    ----------
    S. Ramaswamy, R. Rastogi, K. Shim. Efficient algorithms for mining outliers from
    large data sets. SIGMOD 2000.
    """

    _parameter_constraints: dict = {
        "n_neighbors": [NumberInterval(Integral, 1, None, closed="left")],
        "method": [StrOptions({"largest", "mean", "median"})],
        "metric": [str],
    }

    def __init__(self, *, n_neighbors=5, method="largest", metric="minkowski"):
        self.n_neighbors = n_neighbors
        self.method = method
        self.metric = metric

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Index the training points and set ``offset_`` from their leave-one-out scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, more samples than ``n_neighbors``: each training point's leave-one-out
            score takes ``n_neighbors`` others.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X = validate_data(self, X, dtype=np.float64)
        if X.shape[0] <= self.n_neighbors:
            raise ValueError(
                f"n_neighbors={self.n_neighbors} needs more training samples than neighbours (each "
                f"training point's leave-one-out score takes {self.n_neighbors} others), "
                f"got n_samples={X.shape[0]}"
            )
        self.neighbors_ = NearestNeighbors(n_neighbors=self.n_neighbors, metric=self.metric).fit(X)
        # The training points' own scores leave each point out of its neighbours (as PyOD does).
        distances, _ = NearestNeighbors(n_neighbors=self.n_neighbors + 1, metric=self.metric).fit(X).kneighbors(X)
        self.offset_ = float(np.quantile(-self._reduce(distances[:, 1:]), 0.05))
        return self

    def _reduce(self, distances: np.ndarray) -> np.ndarray:
        if self.method == "largest":
            return distances[:, -1]
        return np.mean(distances, axis=1) if self.method == "mean" else np.median(distances, axis=1)

    def score_samples(self, X):
        """Minus the distance to the k-th nearest training point: higher means more normal.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Minus the k-th nearest distance (or the mean / median of the k distances, by
            ``method``): the higher, the more normal. A training point passed here counts
            itself as its nearest neighbour (distance 0), unlike the leave-one-out scores
            ``offset_`` is taken from.
        """
        check_is_fitted(self, "neighbors_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        distances, _ = self.neighbors_.kneighbors(X)
        return -finite(self._reduce(distances), X)

    def decision_function(self, X):
        """Shifted scores, ``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            ``score_samples(X) - offset_``: at or above 0 for inliers, below 0 for outliers.
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """Whether each point is an inlier (+1) or an outlier (-1).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to label.

        Returns
        -------
        labels : ndarray of int of shape (n_samples,)
            +1 where ``decision_function(X) >= 0``, -1 elsewhere.
        """
        return np.where(self.decision_function(X) >= 0, 1, -1)


class PCADetector(OutlierMixin, BaseEstimator):
    """Linear PCA reconstruction error, on scikit-learn's ``PCA``.

    The outlier score of a point is its squared distance to the principal subspace of
    the training data, ``||x - x_hat||^2`` with ``x_hat = inverse_transform(transform(x))``
    (Shyu et al. 2003's minor-component view; Hoffmann 2007's linear baseline).

    Parameters
    ----------
    n_components : int >= 1 or float in (0, 1), default=0.9
        Components kept, or the share of variance they explain (scikit-learn's meaning).
    whiten : bool, default=False

    Attributes
    ----------
    pca_ : PCA
    offset_ : float
        The training scores' 5th percentile (``predict`` flags 5 % of the training points).
    """

    _parameter_constraints: dict = {
        "n_components": [
            NumberInterval(Integral, 1, None, closed="left"),
            NumberInterval(RealNotInt, 0, 1, closed="neither"),
        ],
        "whiten": ["boolean"],
    }

    def __init__(self, *, n_components=0.9, whiten=False):
        self.n_components = n_components
        self.whiten = whiten

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit scikit-learn's ``PCA`` on X and set ``offset_`` from the training points' scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data. An integer ``n_components`` above ``min(n_samples, n_features)`` is
            reduced to it.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X = validate_data(self, X, dtype=np.float64)
        n_components = self.n_components
        if isinstance(n_components, Integral):
            n_components = min(n_components, *X.shape)
        self.pca_ = PCA(n_components=n_components, whiten=self.whiten, svd_solver="full").fit(X)
        self.offset_ = float(np.quantile(self.score_samples(X), 0.05))
        return self

    def score_samples(self, X):
        """Minus the squared reconstruction error: higher means more normal.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``-||x - x_hat||^2``, minus the squared distance to the principal subspace: the
            higher, the more normal.
        """
        check_is_fitted(self, "pca_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        residual = X - self.pca_.inverse_transform(self.pca_.transform(X))
        with np.errstate(over="ignore", invalid="ignore"):
            return -finite(np.einsum("ij,ij->i", residual, residual), X)

    def decision_function(self, X):
        """Shifted scores, ``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            ``score_samples(X) - offset_``: at or above 0 for inliers, below 0 for outliers.
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """Whether each point is an inlier (+1) or an outlier (-1).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to label.

        Returns
        -------
        labels : ndarray of int of shape (n_samples,)
            +1 where ``decision_function(X) >= 0``, -1 elsewhere.
        """
        return np.where(self.decision_function(X) >= 0, 1, -1)
