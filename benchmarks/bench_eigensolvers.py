"""Which eigensolver is fastest for the top k of n eigenpairs of a centered RBF kernel, at 1 and 2 BLAS threads.

The thresholds of ``eigen_solver="auto"`` (:func:`kpca_bench.eigensolvers.choose_solver`)
come from this grid. For every thread count, n and k it times LAPACK's subset
``eigh`` (up to ``EIGH_MAX_N``), ARPACK and the block Krylov solver on the same
centered kernel of the first n rows of a seeded permutation of the letter data
(the SAS paper's width, gamma = 0.01; random letters-like integers without
data), median of ``--repeat`` solves (one when a solve takes longer than
``LONG_SECONDS``: the choice there is never close), each on its own copy of K
as a fit has. Each is checked against a reference: ``eigh`` up to
``EIGH_MAX_N``, ARPACK (to machine precision) above; the contract wants the
largest relative eigenvalue difference at most 1e-8. ``--dataset magic_gamma``
measures another spectrum: ADBench's magic_gamma as the suite prepares it.

The measurements go to a tab-separated file (``--out``), one row per solve
setting; ``--table`` then renders them with the rule's choice in force and its
time over the better of ARPACK and block, the ratio the rule is held to
(``tests/test_eigensolvers.py`` reads the committed file)::

    export KPCA_BENCH_DATA=/work/shared/datasets OUT=results/benchmarks/eigensolvers.tsv
    .venv/bin/python benchmarks/bench_eigensolvers.py --sizes 1000 2000 3000 4000 --repeat 15 --out $OUT
    .venv/bin/python benchmarks/bench_eigensolvers.py --sizes 6000 8000 12000 16000 --out $OUT
    .venv/bin/python benchmarks/bench_eigensolvers.py --dataset magic_gamma --components 10 25 50 \\
        --sizes 1000 2000 3000 4000 --repeat 15 --out $OUT
    .venv/bin/python benchmarks/bench_eigensolvers.py --dataset magic_gamma --components 10 25 50 \\
        --sizes 6000 8000 --out $OUT
    .venv/bin/python benchmarks/bench_eigensolvers.py --table results/benchmarks/eigensolvers.tsv \\
        > results/benchmarks/eigensolvers.md
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.preprocessing import MinMaxScaler
from threadpoolctl import threadpool_limits
from tsv_rows import append_row

from kpca_bench.eigensolvers import choose_solver, top_eigenpairs
from kpca_bench.kernels import KernelCentering, make_kernel

SIZES = (1000, 2000, 3000, 4000, 6000, 8000, 12000, 16000)
COMPONENTS = (10, 25, 50, 100, 200)
EIGH_MAX_N = 4000
LONG_SECONDS = 5.0
DATASETS = {"letter": "letter_recognition", "magic_gamma": "adbench_magic_gamma"}
COLUMNS = (
    "dataset",
    "threads",
    "n",
    "k",
    "repeat",
    "eigh_s",
    "arpack_s",
    "block_s",
    "arpack_diff",
    "block_diff",
    "load_1min",
)


def rows_of(dataset: str, n: int) -> np.ndarray:
    """The first n rows of a seeded permutation of the dataset (letters-like integers without data)."""
    if os.environ.get("KPCA_BENCH_DATA"):
        from kpca_bench.datasets import load_dataset

        X = np.asarray(load_dataset(DATASETS[dataset], offline=True).X, dtype=float)
        return X[np.random.default_rng(0).permutation(len(X))[:n]]
    return np.random.default_rng(0).integers(0, 16, size=(n, 16)).astype(float)


def centered_kernel(dataset: str, n: int) -> np.ndarray:
    """The SAS paper's letter kernel (gamma = 0.01), or magic_gamma as the ADBench suite prepares it
    (min-max scaled, gamma from the mean squared pairwise distance)."""
    X = rows_of(dataset, n)
    if dataset == "letter":
        K = make_kernel(X, "rbf", gamma=0.01)(X)
    else:
        X = MinMaxScaler().fit_transform(X)
        K = make_kernel(X, "rbf", gamma="mean_pairwise")(X)
    return KernelCentering.fit(K).center_train(K)


def timed(K: np.ndarray, k: int, solver: str, repeat: int) -> tuple[float, np.ndarray]:
    """Median seconds of up to ``repeat`` solves (each on its own copy of K) and the eigenvalues."""
    times = []
    for _ in range(repeat):
        A = K.copy()
        start = time.perf_counter()
        values = top_eigenpairs(A, k, solver, random_state=0, overwrite=True).values
        times.append(time.perf_counter() - start)
        if times[0] > LONG_SECONDS:
            break
    return float(np.median(times)), values


def relative_difference(values: np.ndarray, reference: np.ndarray) -> float:
    return float(np.max(np.abs(values - reference) / reference))


def measure(dataset: str, n: int, K: np.ndarray, k: int, threads: int, repeat: int) -> dict:
    """One row of the grid: every solver's time at this thread count and its distance from the reference."""
    solvers = ("eigh", "arpack", "block") if n <= EIGH_MAX_N else ("arpack", "block")
    with threadpool_limits(limits=threads):
        results = {solver: timed(K, k, solver, repeat) for solver in solvers}
    reference = results[solvers[0]][1]
    return {
        "dataset": dataset,
        "threads": threads,
        "n": n,
        "k": k,
        "repeat": repeat,
        "eigh_s": results["eigh"][0] if "eigh" in results else float("nan"),
        "arpack_s": results["arpack"][0],
        "block_s": results["block"][0],
        "arpack_diff": relative_difference(results["arpack"][1], reference),
        "block_diff": relative_difference(results["block"][1], reference),
        "load_1min": os.getloadavg()[0],
    }


def run_grid(dataset: str, threads: list[int], sizes: list[int], components: list[int], repeat: int, out: Path) -> None:
    """Measure the grid, appending a row to ``out`` as each point is done."""
    for n in sizes:
        K = centered_kernel(dataset, n)
        for t in threads:
            for k in components:
                row = measure(dataset, n, K, k, t, repeat)
                append_row(out, COLUMNS, row)
                print(
                    "\t".join(f"{row[c]:.4g}" if isinstance(row[c], float) else str(row[c]) for c in COLUMNS),
                    flush=True,
                )


def with_rule(grid: pd.DataFrame) -> pd.DataFrame:
    """The grid with the ``auto`` rule's choice in force and its time over the better of ARPACK and block."""
    grid = grid.copy()
    grid["auto"] = [choose_solver(int(n), int(k), int(t)) for t, n, k in zip(grid.threads, grid.n, grid.k)]
    grid["auto_s"] = [getattr(row, f"{row.auto}_s") for row in grid.itertuples()]
    grid["auto_over_best"] = grid.auto_s / grid[["arpack_s", "block_s"]].min(axis=1)
    return grid


def table(grid: pd.DataFrame) -> str:
    grid = with_rule(grid)
    repeats = " or ".join(str(r) for r in sorted(grid.repeat.unique(), reverse=True))
    lines = [
        f"Median of up to {repeats} solves (the `repeat` column of the measurements; one when a solve took over "
        f"{LONG_SECONDS:.0f} s); load average (1 min) during the runs {grid.load_1min.min():.2f}-"
        f"{grid.load_1min.max():.2f}. `auto / best`: the rule's solver over the better of ARPACK and block "
        "(the rule is held to at most 1.10). Eigenvalue differences are relative, against `eigh` up to "
        f"n = {EIGH_MAX_N} and ARPACK above.",
        "",
        "| kernel | BLAS threads | n | k | eigh (s) | arpack (s) | block (s) | auto | auto / best | diff arpack, block |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in grid.itertuples():
        eigh = "–" if np.isnan(row.eigh_s) else f"{row.eigh_s:.3f}"
        lines.append(
            f"| {row.dataset} | {row.threads} | {row.n} | {row.k} | {eigh} | {row.arpack_s:.3f} | {row.block_s:.3f} | "
            f"{row.auto} | {row.auto_over_best:.2f} | {row.arpack_diff:.0e}, {row.block_diff:.0e} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=tuple(DATASETS), default="letter")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="BLAS thread counts")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--components", type=int, nargs="+", default=list(COMPONENTS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, help="append the measurements here (tab-separated)")
    parser.add_argument("--table", type=Path, help="render a measurements file with the rule in force, and stop")
    args = parser.parse_args()
    if args.table:
        sys.stdout.write(table(pd.read_csv(args.table, sep="\t")))
        return
    if not args.out:
        parser.error("--out FILE is needed to keep the measurements (or --table FILE to render them)")
    print(f"load average at start {os.getloadavg()}", flush=True)
    run_grid(args.dataset, args.threads, args.sizes, args.components, args.repeat, args.out)
    print(f"load average at end {os.getloadavg()}")


if __name__ == "__main__":
    main()
