"""What a Nystrom fit evaluates: no n x n kernel by default, exactly one with the paper's scoring step.

The SAS letter run's Nystrom fit times were those of ``projection="training"``, whose fit evaluates
the whole training kernel once for its column means (the paper's RowMeans) and whose transform of the
training rows evaluates it again; the benchmark's were the default projection's. These count kernel
entries (not seconds) so that a second n x n pass, or one in the default fit, cannot come back unseen.
"""

import numpy as np
import pytest

from kpca_bench import kernels
from kpca_bench.methods.nystrom import NystromKernelPCA

N, C = 300, 20


@pytest.fixture
def entries(monkeypatch):
    """Kernel entries evaluated, one count per call of a fitted kernel (``Kernel.__call__``)."""
    counted = []
    call = kernels.Kernel.__call__

    def counting(self, X, Y=None):
        counted.append(len(X) * len(X if Y is None else Y))
        return call(self, X, Y)

    monkeypatch.setattr(kernels.Kernel, "__call__", counting)
    return counted


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(N, 4))


def test_default_fit_evaluates_no_n_by_n_kernel(entries, X):
    NystromKernelPCA(5, n_landmarks=C, random_state=0).fit(X)
    assert entries and max(entries) <= N * C
    assert sum(entries) == N * C + C * C  # E = k(X, Z) and W = k(Z, Z), nothing else


def test_training_projection_fit_evaluates_the_training_kernel_once(entries, X):
    model = NystromKernelPCA(5, n_landmarks=C, projection="training", random_state=0).fit(X)
    assert sum(entries) == N * C + C * C + N * N  # the column means of k(X, X): one pass
    entries.clear()
    model.transform(X[:7])
    assert sum(entries) == 7 * N  # scoring goes through all n training rows, as the paper's KPCAScore
