"""The breast_cancer_wisconsin loader's noise option (Shen & Asgharzadeh, "Novelty Detection")."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from kpca_bench.datasets import uci
from kpca_bench.errors import DataError

ROWS = "\n".join(f"{1000 + i},{i % 10 + 1},{(3 * i) % 10 + 1},1,{i % 3 + 1},2,{i % 7 + 1},3,1,1,{2 if i % 3 else 4}"
                 for i in range(40)) + "\n1057013,8,4,5,1,2,?,7,3,1,4\n"


@pytest.fixture
def files(tmp_path):
    path = tmp_path / "breast-cancer-wisconsin.data"
    path.write_text(ROWS)
    return {path.name: path}


def test_no_noise_by_default(files):
    plain = uci.load_breast_cancer_wisconsin(files=files)
    assert_array_equal(plain.X, np.round(plain.X))
    assert_array_equal(uci.load_breast_cancer_wisconsin(files=files, noise=0.0).X, plain.X)


def test_noise_is_uniform_within_the_given_share_of_each_feature_std(files):
    plain = uci.load_breast_cancer_wisconsin(files=files)
    noisy = uci.load_breast_cancer_wisconsin(files=files, noise=0.05, noise_seed=3)
    jitter = (noisy.X - plain.X) / np.where(plain.X.std(axis=0, ddof=1) > 0, plain.X.std(axis=0, ddof=1), 1)
    assert noisy.X.shape == plain.X.shape == (40, 9)
    assert_array_equal(noisy.y, plain.y)
    assert np.all(np.abs(jitter) <= 0.05)
    varying = plain.X.std(axis=0) > 0
    assert np.all(np.abs(jitter[:, varying]).max(axis=0) > 0.03)  # it spans the interval, not a tiny corner
    assert not np.any(noisy.X[:, ~varying] - plain.X[:, ~varying])  # a constant column has no spread to scale
    assert "noise" in noisy.provenance.notes


def test_noise_is_reproducible_by_seed(files):
    first = uci.load_breast_cancer_wisconsin(files=files, noise=0.05, noise_seed=1).X
    assert_array_equal(first, uci.load_breast_cancer_wisconsin(files=files, noise=0.05, noise_seed=1).X)
    assert not np.array_equal(first, uci.load_breast_cancer_wisconsin(files=files, noise=0.05, noise_seed=2).X)


def test_negative_noise_is_a_clear_error(files):
    with pytest.raises(DataError, match="noise must be >= 0"):
        uci.load_breast_cancer_wisconsin(files=files, noise=-0.05)
