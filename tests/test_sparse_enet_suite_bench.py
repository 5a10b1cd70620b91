"""benchmarks/bench_skpca_suite.py: the suite's SKPCA fits saved, and compared bit for bit with a reference or a peer."""

import importlib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[1]
WINE = ["--include", "adbench_wine"]  # one of the suite's smallest datasets: 90 kernel rows, a fit in 0.1 s


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return importlib.import_module("bench_skpca_suite")


def test_a_missing_reference_folder_is_one_error_line(bench, tmp_path, capsys):
    assert bench.main(["--reference", str(tmp_path / "nowhere")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and error.count("\n") == 1 and "nowhere" in error


@pytest.mark.parametrize("data, include", [("empty", []), ("real", ["adbench_wnie"])])
def test_no_dataset_fitted_is_one_error_line_not_a_clean_comparison(
    bench, request, monkeypatch, tmp_path, capsys, data, include
):
    """An empty KPCA_BENCH_DATA, or a typo in --include, fits nothing: no "differ: none", no division by zero."""
    folder = request.getfixturevalue("real_data_dir") if data == "real" else tmp_path / "empty"
    monkeypatch.setenv("KPCA_BENCH_DATA", str(folder))
    peer = ROOT / "kpca_bench" / "methods" / "sparse_enet.py"
    args = ["--reference", str(tmp_path), "--peer", str(peer)] + (["--include", *include] if include else [])
    assert bench.main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: no dataset of ") and captured.err.count("\n") == 1
    assert "differ" not in captured.out and "total fit time" not in captured.out


@pytest.mark.real_data
def test_a_saved_fit_is_identical_to_a_refit_and_to_the_peer_and_a_one_ulp_change_is_not(
    bench, real_data_dir, monkeypatch, tmp_path, capsys
):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(real_data_dir))
    assert bench.main([*WINE, "--save", str(tmp_path)]) == 0
    saved = bench.Fit.load(tmp_path / "adbench_wine.npz")
    assert saved.n_iter == 6 and saved.dual_coef.shape == (90, 10)
    assert any(w.startswith("ConvergenceWarning: SKPCA stopped after max_iter=6") for w in saved.warnings)
    capsys.readouterr()

    peer = ROOT / "kpca_bench" / "methods" / "sparse_enet.py"
    assert bench.main([*WINE, "--reference", str(tmp_path), "--peer", str(peer)]) == 0
    assert "datasets whose fits differ: none" in capsys.readouterr().out

    nudged = saved.dual_coef.copy()
    row, column = np.argwhere(nudged != 0)[0]
    nudged[row, column] = np.nextafter(nudged[row, column], np.inf)
    bench.Fit(nudged, saved.objective, saved.n_iter, saved.warnings, saved.seconds).save(tmp_path / "adbench_wine.npz")
    assert bench.main([*WINE, "--reference", str(tmp_path)]) == 1
    assert "datasets whose fits differ: adbench_wine" in capsys.readouterr().out


def test_the_alternation_converges_slowly_and_linearly_not_by_cycling(monkeypatch):
    """benchmarks/diag_skpca_convergence.py's facts on a small case: why SKPCA's 6 alternations stop short of tol.

    Each alternation shrinks the change of beta by a steady factor a little below 1 (linear convergence),
    eq. (10) never rises, and no component flips its sign or trades places with another: a cycle or a
    stall would show a factor of 1 without decrease, or flips."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    diag = importlib.import_module("diag_skpca_convergence")
    from kpca_bench.eigensolvers import top_eigenpairs
    from kpca_bench.methods.kpca import dual_coefficients
    from kpca_bench.methods.sparse_enet import alternations, enet_penalties

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(140, 5)), rng.normal(3, 1, size=(10, 5))]
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    K = diag.centered_kernel(X, 10)
    start = top_eigenpairs(K, 10, "eigh", 0)
    steps = alternations(K, dual_coefficients(start.values, start.vectors), *enet_penalties(1.0, 0.5))
    (beta_prev, alpha_prev, objective_prev), changes = next(steps), []
    for _, (beta, alpha, objective) in zip(range(59), steps):
        facts = diag.step_facts(K, beta, beta_prev, alpha, alpha_prev)
        assert facts["sign_flips"] == facts["order_changes"] == 0
        assert objective <= objective_prev * (1 + 1e-12)
        changes.append(np.linalg.norm(beta - beta_prev) / np.linalg.norm(beta_prev))
        beta_prev, alpha_prev, objective_prev = beta, alpha, objective
    ratios = np.array(changes[1:]) / np.array(changes[:-1])
    assert changes[4] > 1e-3 * 10  # after 6 alternations the change is far above SKPCA's tol (1e-3)
    assert changes[-1] < changes[4] / 3  # ... and it keeps falling: converging, not stalled
    assert 0.85 < np.median(ratios) < 1.0  # by a steady factor a little below 1: slowly, linearly
