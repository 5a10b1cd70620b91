"""Kernel-PCA variants, outlier scores and baselines, as scikit-learn estimators."""

from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.kpca import BaseKernelPCA, KernelPCA, Projection
from kpca_bench.methods.scores import OUTLIER_SCORES, mahalanobis_distance, reconstruction_error

__all__ = [
    "BaseKernelPCA",
    "KernelPCA",
    "KernelSubspaceDetector",
    "OUTLIER_SCORES",
    "Projection",
    "mahalanobis_distance",
    "reconstruction_error",
]
