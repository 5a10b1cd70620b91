"""Exact KPCA at the SAS paper's letter size: the eigensolver's accuracy and the one-n x n-matrix contract.

The letter example (16,000 x 16, Gaussian s = 7.071, 200 components) is too big
for a test; the same shape of problem at n = 450 checks ARPACK against LAPACK
``eigh`` (NOTES.md: a fast solver must be checked against eigh on a problem
small enough for both, since the reconstruction error depends on the tail of
the spectrum), and a spy on ``scipy.linalg.eigh`` checks that exact KPCA hands
it its own kernel to overwrite instead of a copy.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.methods import KernelPCA, reconstruction_error
from kpca_bench.methods import kpca as kpca_module

SIGMA, K_COMPONENTS = 7.071, 200


@pytest.fixture(scope="module")
def letters_like():
    """Integer features 0-15 as in the letter data; 450 training and 100 test rows."""
    X = np.random.default_rng(0).integers(0, 16, size=(550, 16)).astype(float)
    return X[:450], X[450:]


def test_arpack_matches_eigh_on_the_top_200(letters_like):
    train, test = letters_like
    eigh = KernelPCA(K_COMPONENTS, sigma=SIGMA, eigen_solver="eigh").fit(train)
    arpack = KernelPCA(K_COMPONENTS, sigma=SIGMA, eigen_solver="arpack", random_state=0).fit(train)
    assert_allclose(arpack.eigenvalues_, eigh.eigenvalues_, rtol=1e-9)
    # The 200th eigenvalue, where a randomized solver went 3% low, is exact too.
    assert abs(arpack.eigenvalues_[-1] / eigh.eigenvalues_[-1] - 1) < 1e-9
    assert_allclose(reconstruction_error(arpack, test), reconstruction_error(eigh, test), rtol=1e-7, atol=1e-10)
    assert_allclose(np.abs(arpack.transform(test)), np.abs(eigh.transform(test)), atol=1e-7)


def test_exact_kpca_lets_eigh_overwrite_its_only_kernel_matrix(letters_like, monkeypatch):
    train, _ = letters_like
    seen = {}
    original = kpca_module.linalg.eigh

    def spy(a, **kwargs):
        seen.update(kwargs, fortran=a.flags.f_contiguous, owner=a.base if a.base is not None else a,
                    before=a.copy())
        return original(a, **kwargs)

    monkeypatch.setattr(kpca_module.linalg, "eigh", spy)
    model = KernelPCA(K_COMPONENTS, sigma=SIGMA, eigen_solver="eigh").fit(train)
    # In place: LAPACK gets a Fortran-ordered view (no copy is needed) and may destroy it.
    assert seen["overwrite_a"] is True and seen["fortran"]
    assert seen["owner"].shape == (450, 450)
    assert not np.array_equal(seen["owner"], seen["before"].T)  # it was overwritten
    # What the base class used to compute from K after the solve is still right without it.
    K = make_kernel(train, "rbf", sigma=SIGMA)(train)
    K = KernelCentering.fit(K).center_train(K)
    assert_allclose(model.projection_variances_, np.var(K @ model.dual_coef_, axis=0), rtol=1e-8)
