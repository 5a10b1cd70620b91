"""Outlier scores computed in the subspace of any fitted kernel-PCA variant.

Each score is a plain function ``score(model, X) -> ndarray`` where ``model``
is a fitted :class:`~kpca_bench.methods.kpca.BaseKernelPCA` (or anything with
the same ``project`` contract) and a **higher value means more abnormal**.
:class:`~kpca_bench.methods.detector.KernelSubspaceDetector` flips the sign once,
to scikit-learn's ``score_samples`` convention.

They compute where the model's projection lives (a GPU's arrays included, through
the array API) and give NumPy back for NumPy input (:func:`kpca_bench.devices.like_input`).
"""

from __future__ import annotations

import numpy as np

from kpca_bench.devices import is_numpy, like_input, namespace


def reconstruction_error(model, X) -> np.ndarray:
    """Hoffmann's reconstruction error ``||phi~(z)||^2 - sum_j <v_j, phi~(z)>^2``.

    The squared distance of ``phi(z)`` from its projection onto the span of the
    components, for orthonormal components (Hoffmann 2007, eq. 9; Das et al.,
    section II; Li et al., eqs. 9-11).
    """
    return like_input(_reconstruction_error(model, model.project(X)), X)


def _reconstruction_error(model, projection):
    return projection.sq_norms - namespace(projection.scores).sum(projection.scores**2, axis=1)


def mahalanobis_distance(model, X) -> np.ndarray:
    """Mahalanobis distance in the kernel principal subspace, ``sum_j y_j^2 / var_j``.

    With ``y_j = <v_j, phi~(z)>`` and ``var_j`` the variance of ``y_j`` over the
    training points. For exact KPCA ``var_j = lambda_j / N`` with ``lambda_j``
    the eigenvalues of the centered kernel, which is Li et al.'s eq. 13,
    ``N y^T Gamma^{-1} y``.

    A component with zero variance over the training points is left out: a sparse
    variant can drop every training point from a component (the elastic net of a
    sparse KPCA on a small dataset), whose scores are then all zero, and 0 / 0 is
    no distance.
    """
    return like_input(_mahalanobis_distance(model, model.project(X)), X)


def _mahalanobis_distance(model, projection):
    xp = namespace(projection.scores)
    variances = xp.asarray(model.projection_variances_)
    if is_numpy(projection.scores):
        # NumPy's boolean column index, whose result's memory layout sets the order of the sum's additions:
        # the stored numbers were computed so (a gathered copy, as below, differs in the last bit).
        used = variances > 0
        return np.sum(projection.scores[:, used] ** 2 / variances[used], axis=1)
    used = xp.nonzero(variances > 0)[0]  # the array API indexes columns by position only
    return xp.sum(xp.take(projection.scores, used, axis=1) ** 2 / xp.take(variances, used), axis=1)


OUTLIER_SCORES = {
    "reconstruction_error": reconstruction_error,
    "mahalanobis": mahalanobis_distance,
}
_OF_PROJECTION = {
    "reconstruction_error": _reconstruction_error,
    "mahalanobis": _mahalanobis_distance,
}


def training_outlier_scores(model, score: str, X):
    """The outlier score named ``score`` of the points ``X`` that ``model`` was fitted on.

    From the projection the model kept at fit (``training_projection_``), so the
    training kernel is not built a second time; a model that keeps none
    projects ``X`` anew.
    """
    projection = getattr(model, "training_projection_", None)
    return like_input(_OF_PROJECTION[score](model, model.project(X) if projection is None else projection), X)
