"""kpca-bench: reproducible benchmarks of kernel PCA for outlier detection and sparse kernel PCA."""

__version__ = "0.1.0"
