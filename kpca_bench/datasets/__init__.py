"""Datasets: the registry, loaders, and where data files live."""

from kpca_bench.datasets.base import CATEGORICAL, NUMERIC, Dataset, FileRecord, Provenance
from kpca_bench.datasets.registry import DATASETS, DatasetSpec, load_dataset

__all__ = ["CATEGORICAL", "DATASETS", "Dataset", "DatasetSpec", "FileRecord", "NUMERIC", "Provenance", "load_dataset"]
