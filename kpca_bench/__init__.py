"""kpca-bench: reproducible benchmarks of kernel PCA for outlier detection and sparse kernel PCA.

``kpca_bench.run(config, methods=..., out=...)`` runs an experiment and returns its tables
(:mod:`kpca_bench.api`), and ``kpca_bench.load(folder)`` reads them back from a finished run's folder;
they are imported on first use, so that ``import kpca_bench`` (and the
command line's ``--help``) load no heavy library.
"""

__version__ = "0.1.0"

__all__ = ["Results", "load", "run"]


def __getattr__(name: str):
    if name in __all__:
        from kpca_bench import api

        return getattr(api, name)
    raise AttributeError(f"module 'kpca_bench' has no attribute {name!r}")
