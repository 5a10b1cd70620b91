"""Datasets that ship with a dependency, so they work offline anywhere."""

from __future__ import annotations

import numpy as np
import sklearn
from sklearn.datasets import load_digits as _sklearn_digits

from kpca_bench.datasets.base import NUMERIC, Dataset, Provenance


def load_digits() -> Dataset:
    """scikit-learn's copy of the UCI optical digits test set, 1,797 images of 8x8 pixels in 0..16."""
    bunch = _sklearn_digits()
    return Dataset(
        name="digits",
        X=bunch.data.astype(np.float64),
        y=bunch.target,
        feature_kinds=(NUMERIC,) * bunch.data.shape[1],
        provenance=Provenance(source=f"scikit-learn {sklearn.__version__} sklearn.datasets.load_digits"),
    )
