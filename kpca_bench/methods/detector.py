"""Turn a kernel-PCA variant and a subspace score into a scikit-learn outlier detector."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin, clone
from sklearn.utils.validation import check_is_fitted

from kpca_bench.devices import is_device_array, namespace, to_numpy
from kpca_bench.kernels import validated_input
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.methods.scores import OUTLIER_SCORES, training_outlier_scores
from kpca_bench.param_validation import fit_context, HasMethods, NumberInterval, StrOptions


class KernelSubspaceDetector(OutlierMixin, BaseEstimator):
    """Novelty detector: fit a kernel subspace on inliers, score by a subspace distance.

    Follows scikit-learn's outlier-detector sign: ``score_samples`` is higher
    for more normal points (it is minus the outlier score), ``decision_function
    = score_samples - offset_`` and ``predict`` returns +1 (inlier) / -1 (outlier).
    For PyOD's sign (higher = more anomalous, ``labels_`` in {0, 1}) wrap it in
    :class:`kpca_bench.methods.interop.PyODAdapter`.

    Parameters
    ----------
    estimator : BaseKernelPCA, default=None
        Any kernel-PCA variant (exact, sparse, L1-norm, Nystrom). Cloned in fit.
        None: ``KernelPCA()`` (10 components, RBF kernel, Das et al.'s width).
    outlier_score : {"reconstruction_error", "mahalanobis"}, default="reconstruction_error"
        The subspace distance (a config's ``score:`` key). Named so as not to hide
        scikit-learn's ``score`` method.
    contamination : float in (0, 0.5], default=0.05
        Share of training points that ``predict`` flags; sets ``offset_``.

    Attributes
    ----------
    estimator_ : the fitted kernel-PCA variant.
    offset_ : float
        The ``contamination`` quantile of the training points' ``score_samples``,
        taken from the projection the estimator kept at fit (``training_projection_``)
        when it has one, so fitting builds the training kernel once.
    n_features_in_ : int

    Arrays of another array-API library (a GPU's) pass through to the
    estimator, which computes where they live (see its ``device``); the scores
    come back in their namespace.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "project"]), None],
        "outlier_score": [StrOptions(set(OUTLIER_SCORES))],
        "contamination": [NumberInterval(Real, 0, 0.5, closed="right")],
    }

    def __init__(self, estimator=None, *, outlier_score="reconstruction_error", contamination=0.05):
        self.estimator = estimator
        self.outlier_score = outlier_score
        self.contamination = contamination

    # False: the wrapped estimator's own parameters are validated when it is fitted.
    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit a clone of ``estimator`` on X and set ``offset_`` from the training points' scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (the inliers, in a novelty setting); integer category codes for a
            Hamming kernel. An array of an array-API library (CuPy, PyTorch) passes through to
            the estimator.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X = self._validated(X, reset=True)
        return self._scoring(clone(KernelPCA() if self.estimator is None else self.estimator).fit(X), X)

    def _scoring(self, fitted_estimator, X):
        """Self with ``fitted_estimator`` (fitted on the validated ``X``) as its subspace and its ``offset_``."""
        self.estimator_ = fitted_estimator
        # n scores to the host for NumPy's quantile, which the array API lacks.
        training_scores = -to_numpy(training_outlier_scores(self.estimator_, self.outlier_score, X))
        self.offset_ = float(np.quantile(training_scores, self.contamination))
        return self

    def _validated(self, X, *, reset: bool):
        """X checked by scikit-learn (on a host copy of a device array, O(n d)), read as category codes where the
        estimator's kernel is a Hamming kernel (:func:`kpca_bench.kernels.validated_input`); a device array itself
        goes on."""
        kernel = getattr(KernelPCA() if self.estimator is None else self.estimator, "kernel", None)
        checked = validated_input(self, X, kernel, reset=reset)
        return X if is_device_array(X) else checked

    def score_samples(self, X):
        """Minus the outlier score: higher means more normal.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score, with the training data's features.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Minus ``outlier_score`` (the reconstruction error or the Mahalanobis distance in
            the fitted subspace, :mod:`kpca_bench.methods.scores`): the higher, the more
            normal. NumPy for NumPy input, else an array of X's namespace.
        """
        check_is_fitted(self, "estimator_")
        return -OUTLIER_SCORES[self.outlier_score](self.estimator_, self._validated(X, reset=False))

    def decision_function(self, X):
        """Shifted scores, ``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            ``score_samples(X) - offset_``: at or above 0 for inliers, below 0 for outliers
            (for about a ``contamination`` share of the training points). In X's namespace, as
            ``score_samples``.
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
        labels : ndarray of int64 of shape (n_samples,)
            +1 where ``decision_function(X) >= 0``, -1 elsewhere; in X's namespace, as
            ``score_samples``.
        """
        decision = self.decision_function(X)
        xp = namespace(decision)
        return xp.where(decision >= 0, xp.ones_like(decision, dtype=xp.int64), -xp.ones_like(decision, dtype=xp.int64))


def fitted_subspace(detector: KernelSubspaceDetector, X):
    """The kernel-PCA variant ``detector.fit(X)`` fits (its ``estimator``, cloned), fitted on ``X`` as ``fit``
    checks it. With :func:`around_subspace` it is ``detector.fit(X)`` in two steps, so that one fit can serve
    detectors of several outlier scores (the runner's fit groups)."""
    estimator = clone(KernelPCA() if detector.estimator is None else detector.estimator)
    return estimator.fit(clone(detector)._validated(X, reset=True))


def around_subspace(detector: KernelSubspaceDetector, fitted_estimator, X) -> KernelSubspaceDetector:
    """A copy of ``detector`` fitted on ``X`` around ``fitted_estimator``, a kernel-PCA variant already fitted
    on ``X`` (:func:`fitted_subspace`), without fitting it again: the same fitted estimator (shared, not
    copied) and the detector's own ``offset_`` from the training points' scores, taken from the projection
    the estimator kept at fit when it has one. Equal to ``detector.fit(X)`` with the same estimator seed."""
    if detector.outlier_score not in OUTLIER_SCORES:
        raise ValueError(f"outlier_score must be one of {', '.join(OUTLIER_SCORES)}, got {detector.outlier_score!r}")
    scored = clone(detector)
    return scored._scoring(fitted_estimator, scored._validated(X, reset=True))
