"""Thin wrappers that give scikit-learn's outlier detectors every kpca-bench kernel."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin, _fit_context
from sklearn.svm import OneClassSVM
from sklearn.utils.validation import check_is_fitted, validate_data

from kpca_bench.kernels import KERNEL_PARAMETER_CONSTRAINTS, make_kernel
from kpca_bench.param_validation import NumberInterval


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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        X = validate_data(self, X, dtype=np.float64)
        if X.shape[0] < 2:
            raise ValueError(f"n_samples={X.shape[0]}: the one-class SVM needs at least 2 training samples")
        self.kernel_ = make_kernel(X, self.kernel, gamma=self.gamma, sigma=self.sigma, degree=self.degree,
                                   coef0=self.coef0)
        self.gamma_ = self.kernel_.gamma
        self.X_fit_ = X
        self.svm_ = OneClassSVM(kernel="precomputed", nu=self.nu, tol=self.tol).fit(self.kernel_(X))
        self.offset_ = float(self.svm_.offset_[0])
        return self

    def _cross_kernel(self, X) -> np.ndarray:
        check_is_fitted(self, "svm_")
        return self.kernel_(validate_data(self, X, dtype=np.float64, reset=False), self.X_fit_)

    def score_samples(self, X):
        """``sum_i alpha_i k(x_i, x)``: higher means more normal (scikit-learn's sign)."""
        K = self._cross_kernel(X)
        return self.svm_.score_samples(K)

    def decision_function(self, X):
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        K = self._cross_kernel(X)
        return self.svm_.predict(K)
