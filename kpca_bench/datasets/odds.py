"""Loaders for ODDS outlier-detection benchmark files (MATLAB ``.mat`` with ``X`` and ``y``)."""

from __future__ import annotations

import numpy as np

from kpca_bench.datasets.base import NUMERIC, Dataset, Provenance
from kpca_bench.datasets.formats import read_mat


def load_satimage2(*, files) -> Dataset:
    """Satimage-2 from ODDS (Rayana 2016): 36 numeric features, y = 0 inlier / 1 outlier as ODDS labels them."""
    X, y = read_mat(files["satimage-2.mat"], "X", "y")
    return Dataset(
        name="satimage2",
        X=np.asarray(X, dtype=np.float64),
        y=np.asarray(y).ravel().astype(np.int64),
        feature_kinds=(NUMERIC,) * X.shape[1],
        provenance=Provenance(source=""),
    )
