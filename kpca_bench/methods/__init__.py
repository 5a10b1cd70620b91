"""Kernel-PCA variants, outlier scores and baselines, as scikit-learn estimators."""

from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.interop import (
    PyODAdapter,
    adbench_model,
    outlier_average_precision_scorer,
    outlier_roc_auc_scorer,
)
from kpca_bench.methods.kpca import BaseKernelPCA, KernelPCA, Projection
from kpca_bench.methods.scores import OUTLIER_SCORES, mahalanobis_distance, reconstruction_error

__all__ = [
    "BaseKernelPCA",
    "KernelPCA",
    "KernelSubspaceDetector",
    "OUTLIER_SCORES",
    "Projection",
    "PyODAdapter",
    "adbench_model",
    "outlier_average_precision_scorer",
    "outlier_roc_auc_scorer",
    "mahalanobis_distance",
    "reconstruction_error",
]
