"""Which eigensolver is fastest for the top k of n eigenpairs of a centered RBF kernel (issue 19).

The thresholds of ``eigen_solver="auto"`` (:func:`kpca_bench.eigensolvers.choose_solver`)
come from this table. For every (n, k) of the grid it times LAPACK's subset
``eigh``, ARPACK and the block Krylov solver on the same centered kernel of
the first n rows of a seeded permutation of the letter data (the SAS paper's
width, gamma = 0.01; random letters-like integers without data), median of
``--repeat`` runs, and checks each against ``eigh``: the largest relative
eigenvalue difference, which the contract wants at most 1e-8. Above
``EIGH_MAX_N`` the dense solve (minutes) is left out, the largest k too (ARPACK
alone would take minutes), and the reference is ARPACK run to machine precision.

    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/bench_eigensolvers.py \\
        --out results/benchmarks/eigensolvers.md
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from kpca_bench.eigensolvers import top_eigenpairs
from kpca_bench.kernels import KernelCentering, make_kernel

SIZES = (500, 1000, 2000, 4000, 6000, 8000, 12000)
COMPONENTS = (5, 15, 50, 200)
SOLVERS = ("eigh", "arpack", "block")
EIGH_MAX_N = 4000


def letters(n: int) -> np.ndarray:
    if os.environ.get("KPCA_BENCH_DATA"):
        from kpca_bench.datasets import load_dataset

        X = load_dataset("letter_recognition", offline=True).X
        return X[np.random.default_rng(0).permutation(len(X))[:n]]
    return np.random.default_rng(0).integers(0, 16, size=(n, 16)).astype(float)


def centered_kernel(n: int) -> np.ndarray:
    X = letters(n)
    K = make_kernel(X, "rbf", gamma=0.01)(X)
    return KernelCentering.fit(K).center_train(K)


def timed(K: np.ndarray, k: int, solver: str, repeat: int) -> tuple[float, np.ndarray]:
    """Median seconds of ``repeat`` solves (each on its own copy of K, as a fit has) and the eigenvalues."""
    times = []
    for _ in range(repeat):
        A = K.copy()
        start = time.perf_counter()
        values = top_eigenpairs(A, k, solver, random_state=0, overwrite=True).values
        times.append(time.perf_counter() - start)
    return float(np.median(times)), values


def cases(n: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The component counts and solvers timed at size n."""
    if n <= EIGH_MAX_N:
        return tuple(k for k in COMPONENTS if k < n // 4), SOLVERS
    return COMPONENTS[:-1], SOLVERS[1:]


def rows(repeat: int):
    for n in SIZES:
        K = centered_kernel(n)
        components, solvers = cases(n)
        for k in components:
            results = {solver: timed(K, k, solver, repeat) for solver in solvers}
            reference = results[solvers[0]][1]
            fastest = min(results, key=lambda s: results[s][0])
            errors = {s: float(np.max(np.abs(v - reference) / reference)) for s, (_, v) in results.items()}
            yield n, k, {s: t for s, (t, _) in results.items()}, errors, fastest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="BLAS threads")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) here")
    args = parser.parse_args()
    lines = [f"{args.threads} BLAS threads, median of {args.repeat}; load average at start {os.getloadavg()}", "",
             "| n | k | eigh (s) | arpack (s) | block (s) | fastest | max rel. eigenvalue diff vs the reference "
             f"(eigh; arpack above n = {EIGH_MAX_N}): arpack, block |",
             "|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    with threadpool_limits(limits=args.threads):
        for n, k, times, errors, fastest in rows(args.repeat):
            eigh = f"{times['eigh']:.3f}" if "eigh" in times else "–"
            line = (f"| {n} | {k} | {eigh} | {times['arpack']:.3f} | {times['block']:.3f} | {fastest} | "
                    f"{errors['arpack']:.1e}, {errors['block']:.1e} |")
            lines.append(line)
            print(line, flush=True)
    lines += ["", f"load average at end {os.getloadavg()}"]
    print(lines[-1])
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
