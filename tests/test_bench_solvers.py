"""Benchmarks of the solvers: bench_eigensolvers.py (the grid behind eigen_solver="auto"), bench_vs_peers.py's two
tasks, and diag_skpca_enet_solvers.py's coordinate descent posed as the same problem as SKPCA's LARS."""

import csv
import importlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from kpca_bench.eigensolvers import choose_solver
from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.methods.sparse_enet import elastic_net_columns, enet_penalties

ROOT = Path(__file__).parents[1]


@pytest.fixture
def benchmarks(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    monkeypatch.delenv("KPCA_BENCH_DATA", raising=False)  # letters-like integers: no data needed
    return lambda name: importlib.import_module(name)


def test_the_grid_appends_one_row_per_point_under_one_header(benchmarks, tmp_path):
    bench = benchmarks("bench_eigensolvers")
    out = tmp_path / "grid.tsv"
    bench.run_grid("letter", [1], [300], [5], 1, out)
    bench.run_grid("letter", [2], [300], [5, 10], 1, out)
    rows = list(csv.DictReader(out.open(), delimiter="\t"))
    assert [(r["threads"], r["k"]) for r in rows] == [("1", "5"), ("2", "5"), ("2", "10")]
    assert list(rows[0]) == list(bench.COLUMNS)
    assert all(float(r["arpack_diff"]) < 1e-8 and float(r["block_diff"]) < 1e-8 for r in rows)


def test_the_table_shows_the_rules_solver_and_its_time_over_the_better_iterative_one(benchmarks):
    bench = benchmarks("bench_eigensolvers")
    grid = pd.DataFrame(
        {
            "dataset": "letter",
            "threads": [1, 2],
            "n": [2000, 2000],
            "k": [10, 10],
            "repeat": 15,
            "eigh_s": 0.4,
            "arpack_s": [0.06, 0.12],
            "block_s": [0.09, 0.08],
            "arpack_diff": 1e-15,
            "block_diff": 1e-15,
            "load_1min": 1.0,
        }
    )
    ruled = bench.with_rule(grid)
    assert list(ruled.auto) == [choose_solver(2000, 10, 1), choose_solver(2000, 10, 2)] == ["arpack", "block"]
    assert_allclose(ruled.auto_over_best, [1.0, 1.0])
    slower = bench.with_rule(grid.assign(arpack_s=[0.10, 0.12]))  # arpack chosen on one thread, block faster there
    assert slower.auto_over_best.iloc[0] == pytest.approx(0.10 / 0.09)
    lines = bench.table(grid).splitlines()
    assert "| letter | 1 | 2000 | 10 | 0.400 | 0.060 | 0.090 | arpack | 1.00 |" in lines[4]
    assert "up to 15 solves" in lines[0]


@pytest.mark.parametrize(("ours", "theirs"), [("arpack", "arpack"), ("eigh", "dense")])
def test_both_libraries_project_alike_and_score_alike(benchmarks, ours, theirs):
    """fit + transform and fit + score compute the same numbers on both sides (up to each component's sign)."""
    peers = benchmarks("bench_vs_peers")
    rng = np.random.default_rng(0)
    train, test = rng.random((300, 20)), rng.random((120, 20))
    gamma = peers.mean_pairwise_gamma(train)
    ours_t = peers.ours(ours, gamma, "transform")(train, test)
    theirs_t = peers.sklearn_case(theirs, gamma, "transform")(train, test)
    assert ours_t.shape == (120, peers.N_COMPONENTS)
    assert_allclose(np.abs(ours_t), np.abs(theirs_t), atol=1e-8 * np.abs(theirs_t).max())
    ours_s = peers.ours(ours, gamma, "score")(train, test)
    theirs_s = peers.sklearn_case(theirs, gamma, "score")(train, test)
    assert_allclose(ours_s, theirs_s, rtol=1e-8, atol=1e-10)


def test_coordinate_descent_solves_the_same_elastic_net_as_lars_where_it_is_well_conditioned(benchmarks):
    """On 40 points (K^2 + lam I with condition number about 170) scikit-learn's coordinate descent, posed as the
    diagnostic poses it, reaches LARS's exact solution: a gap on the suite's data comes from conditioning, not from
    a different problem."""
    diag = benchmarks("diag_skpca_enet_solvers")
    X = np.random.default_rng(0).random((40, 3))
    K = make_kernel(X, "rbf", gamma=2.0)(X)
    K = KernelCentering.fit(K).center_train(K)
    Y = K @ np.random.default_rng(1).standard_normal((40, 2))
    lam, lam_j = enet_penalties(1.0, 0.5)
    gram = K @ K.T
    lars = elastic_net_columns(gram + lam * np.eye(40), K @ Y, lam_j)
    cd, converged = diag.coordinate_descent(K, gram, Y, tol=1e-14, max_iter=1_000_000)
    assert converged and 0 < np.count_nonzero(lars) < lars.size
    assert_allclose(cd, lars, atol=1e-10 * np.abs(lars).max())
    assert diag.objective(K, Y, cd, lam, lam_j) == pytest.approx(diag.objective(K, Y, lars, lam, lam_j), rel=1e-12)
