"""The 0 / 1 label convention: with neither inliers nor outliers named, 1 is the outlier class.

This is how ODDS (Rayana 2016) and ADBench (Han et al. 2022) label their files
(``y = 1`` anomaly, ``0`` normal), and the default for a user's file, an OpenML
dataset and the ADBench datasets. Any other label set needs the classes named.
"""

from __future__ import annotations

from kpca_bench.datasets.base import Dataset
from kpca_bench.errors import DataError

INLIER, OUTLIER = 0, 1
CONVENTION = "labels 0 / 1 read as inlier / outlier (1 = outlier, the ODDS and ADBench convention)"


def check_binary(dataset: Dataset) -> None:
    """Raise :class:`DataError`, listing the labels found, unless they are 0 and 1."""
    if not set(dataset.class_names) <= {INLIER, OUTLIER} or len(dataset.class_names) < 2:
        raise DataError(
            f"{dataset.name}: dataset.inliers: neither inliers nor outliers are given, so the labels "
            f"must be 0 / 1 (1 = outlier), but they are {list(dataset.class_names)}; name the classes "
            "with dataset.inliers and dataset.outliers"
        )
