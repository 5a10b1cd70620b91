"""The block Krylov solver against LAPACK's eigh, and the "auto" rule on a grid of sizes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import linalg
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from kpca_bench import eigensolvers
from kpca_bench.devices import device_of
from kpca_bench.eigensolvers import block_krylov_eigh, choose_solver, top_eigenpairs
from kpca_bench.kernels import KernelCentering, make_kernel

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def centered_rbf():
    """A centered RBF kernel of 400 letters-like points: a real kernel spectrum, slowly decaying."""
    X = np.random.default_rng(0).integers(0, 16, size=(400, 16)).astype(float)
    K = make_kernel(X, "rbf", sigma=7.071)(X)
    return KernelCentering.fit(K).center_train(K)


def dense_top(K, k):
    values, vectors = linalg.eigh(K, subset_by_index=[len(K) - k, len(K) - 1])
    return values[::-1], vectors[:, ::-1]


@pytest.mark.parametrize("k", [1, 15, 40])
def test_block_solver_matches_eigh(centered_rbf, k):
    values, vectors = dense_top(centered_rbf, k)
    result = block_krylov_eigh(centered_rbf, k, random_state=0)
    assert_allclose(result.values, values, rtol=1e-8)
    # Up to sign, the same vectors.
    assert_allclose(np.abs(np.sum(result.vectors * vectors, axis=0)), 1.0, atol=1e-8)
    assert_allclose(result.vectors.T @ result.vectors, np.eye(k), atol=1e-12)


def test_reported_residuals_are_the_true_ones_and_meet_the_tolerance(centered_rbf):
    result = block_krylov_eigh(centered_rbf, 15, random_state=0)
    true = np.linalg.norm(centered_rbf @ result.vectors - result.vectors * result.values, axis=0)
    assert_allclose(result.residuals, true, atol=1e-12 * result.values[0])
    assert np.all(result.residuals <= 1e-8 * result.values[0])


def test_deterministic_given_random_state(centered_rbf):
    a, b = (block_krylov_eigh(centered_rbf, 10, random_state=3) for _ in range(2))
    assert np.array_equal(a.values, b.values) and np.array_equal(a.vectors, b.vectors)


def test_low_rank_matrix_keeps_growing_its_basis():
    """A rank-3 matrix: the Krylov space is invariant after one block, random rows take over."""
    X = np.random.default_rng(1).normal(size=(300, 3))
    K = X @ X.T
    result = block_krylov_eigh(K, 5, random_state=0)
    assert_allclose(result.values[:3], dense_top(K, 3)[0], rtol=1e-10)
    assert_allclose(result.values[3:], 0.0, atol=1e-10 * result.values[0])


def test_stopping_short_warns_with_the_worst_residual(centered_rbf):
    with pytest.warns(ConvergenceWarning, match=r"residual .* \* lambda_1 on eigenpair \d+ .*eigen_solver='eigh'"):
        block_krylov_eigh(centered_rbf, 40, tol=1e-14, max_restarts=1, random_state=0)


def test_block_solver_refuses_a_basis_as_large_as_the_matrix():
    with pytest.raises(ValueError, match="must be smaller than n"):
        block_krylov_eigh(np.eye(50), 20)


@pytest.mark.parametrize("solver", ["eigh", "arpack", "block", "auto"])
def test_top_eigenpairs_agree_across_solvers_with_fixed_signs(centered_rbf, solver):
    values, vectors = dense_top(centered_rbf, 10)
    vectors = vectors * np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(10)])
    result = top_eigenpairs(centered_rbf.copy(), 10, solver, random_state=0)
    assert result.solver == ("eigh" if solver == "auto" else solver)  # 400 samples: the dense solver
    assert_allclose(result.values, values, rtol=1e-8)
    assert_allclose(result.vectors, vectors, atol=1e-7)


# (n, k, BLAS threads) -> the solver "auto" picks: eigh below 1,000 samples or while the block basis would exceed
# 40 % of n (one thread) or 25 % (two and more); then block from 2,000 samples on once n^2 k reaches 1.5e8 with one
# thread, at any k with two and more; arpack otherwise.
AUTO_GRID = [
    ((100, 5, 1), "eigh"),
    ((1000, 5, 1), "arpack"),
    ((1000, 150, 1), "arpack"),
    ((1000, 170, 1), "eigh"),
    ((1000, 200, 1), "eigh"),
    ((1999, 200, 1), "arpack"),
    ((2000, 37, 1), "arpack"),
    ((2000, 38, 1), "block"),
    ((3000, 16, 1), "arpack"),
    ((3000, 17, 1), "block"),
    ((4000, 10, 1), "block"),
    ((12000, 1, 1), "arpack"),
    ((100000, 1, 1), "block"),
    ((16000, 200, 1), "block"),
    ((999, 5, 2), "eigh"),
    ((1000, 5, 2), "arpack"),
    ((1000, 50, 2), "arpack"),
    ((1000, 100, 2), "eigh"),
    ((1999, 10, 2), "arpack"),
    ((2000, 1, 2), "block"),
    ((2000, 200, 2), "block"),
    ((1900, 200, 2), "eigh"),
    ((16000, 4000, 2), "eigh"),
    ((1500, 10, 8), "arpack"),
    ((2000, 10, 8), "block"),
    ((16000, 200, 8), "block"),
]


@pytest.mark.parametrize(("size", "expected"), AUTO_GRID)
def test_auto_rule_on_a_grid_of_sizes(size, expected):
    assert choose_solver(*size) == expected


@pytest.mark.parametrize(("threads", "expected"), [(1, "arpack"), (2, "block")])
def test_auto_decides_by_the_blas_threads_in_force(threads, expected):
    """2,000 samples, 10 components: ARPACK on one thread, the block solver on two; both give the same eigenpairs."""
    X = np.random.default_rng(0).integers(0, 16, size=(2000, 16)).astype(float)
    K = make_kernel(X, "rbf", gamma=0.01)(X)
    K = KernelCentering.fit(K).center_train(K)
    with threadpool_limits(limits=threads):
        assert choose_solver(2000, 10) == expected
        result = top_eigenpairs(K, 10, "auto", random_state=0)
    assert result.solver == expected
    assert_allclose(result.values, top_eigenpairs(K, 10, "eigh").values, rtol=1e-8)


def test_auto_is_within_ten_percent_of_the_better_iterative_solver_on_the_committed_grid():
    """The measured grid (benchmarks/bench_eigensolvers.py): at every n, k and thread count the rule's solver took
    at most 1.1 times the better of ARPACK and block."""
    grid = pd.read_csv(ROOT / "results" / "benchmarks" / "eigensolvers.tsv", sep="\t")
    assert set(grid.threads) == {1, 2} and grid.n.min() <= 1000 and grid.n.max() >= 16000
    assert grid.k.min() <= 10 and grid.k.max() >= 200
    chosen = [getattr(row, f"{choose_solver(row.n, row.k, row.threads)}_s") for row in grid.itertuples()]
    ratio = pd.Series(chosen, index=grid.index) / grid[["arpack_s", "block_s"]].min(axis=1)
    assert ratio.max() <= 1.1, grid.assign(ratio=ratio)[ratio > 1.1].to_string()


def test_unknown_solver_is_refused():
    with pytest.raises(ValueError, match="unknown eigen_solver 'lobpcg'"):
        top_eigenpairs(np.eye(3), 1, "lobpcg")


@pytest.mark.parametrize("scale", [1.0, 1e-10])
def test_rows_are_orthonormalized_also_when_nearly_dependent(scale):
    """Cholesky QR for well-conditioned rows, Householder QR when a row nearly repeats another."""
    P = np.random.default_rng(0).normal(size=(4, 50))
    P[3] = P[2] + scale * P[3]
    Q = eigensolvers._normalize_rows(P)
    assert_allclose(Q @ Q.T, np.eye(4), atol=1e-6 if scale < 1 else 1e-12)
    assert_allclose(P[:3] @ Q.T @ Q, P[:3], atol=1e-5)  # the span of P's independent rows is kept


@pytest.fixture
def counted_device(monkeypatch):
    """array_api_strict's device1 with its host transfers counted: ``to_device`` (how an array comes to the host;
    ``np.asarray`` is refused there), ``asarray`` of a NumPy array (host to device), and scalar reads."""
    xp = pytest.importorskip("array_api_strict")
    counts = {"to_host": 0, "to_device": 0, "scalars": 0}
    array_type = type(xp.asarray(0.0))

    def counting(method, key, counts_it=lambda *args, **kwargs: True):
        def wrapper(*args, **kwargs):
            counts[key] += counts_it(*args, **kwargs)
            return method(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(array_type, "to_device", counting(array_type.to_device, "to_host"))
    for scalar in ("__bool__", "__float__", "__int__", "__index__"):
        monkeypatch.setattr(array_type, scalar, counting(getattr(array_type, scalar), "scalars"))
    from_host = lambda obj, *args, **kwargs: isinstance(obj, np.ndarray)  # noqa: E731
    monkeypatch.setattr(xp, "asarray", counting(xp.asarray, "to_device", from_host))
    return xp, xp.Device("device1"), counts


def test_the_block_solver_stays_on_the_device_between_cycles(centered_rbf, counted_device):
    """Per solve, arrays cross between host and device a fixed number of times (the random starting block goes
    over, nothing comes back), however many cycles it takes; each cycle reads a few scalars."""
    xp, device, counts = counted_device
    K = xp.asarray(centered_rbf, device=device)
    seen = {}
    for tol in (1e-1, 1e-10):
        counts.update(dict.fromkeys(counts, 0))
        result = block_krylov_eigh(K, 15, random_state=0, tol=tol)
        seen[tol] = dict(counts)
        assert device_of(result.values) == device_of(result.vectors) == device_of(result.residuals) == device
    assert seen[1e-1]["to_host"] == seen[1e-10]["to_host"] == 0
    assert seen[1e-1]["to_device"] == seen[1e-10]["to_device"] == 1
    # The tighter tolerance takes more cycles, which read more scalars (whether the residuals are small enough,
    # whether a block lost rows): the cycles differ, the array transfers do not.
    assert seen[1e-10]["scalars"] > 2 * seen[1e-1]["scalars"] > 0
