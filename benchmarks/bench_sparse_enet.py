"""Time SKPCA by elastic net (Das et al.) and naive thresholding at the paper's MNIST size.

n = 3000 training zeros, 15 components, RBF kernel with the mean-pairwise width.
Uses MNIST from the data directories (``KPCA_BENCH_DATA``, offline) and falls
back to random data when it is not there (the LARS cost depends on how many
coefficients are active, so real data is the honest case). Prints the time of
each stage, the alternations and the sparsity. Not a test: machines differ.

    KPCA_BENCH_DATA=../shared/datasets .venv/bin/python benchmarks/bench_sparse_enet.py \
        [--n 3000] [--components 15] [--l1-ratio 0.7] [--max-iter 6] [--eigen-solver arpack] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from kpca_bench.errors import DataError
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.methods.sparse_enet import NaiveThresholdKPCA, SparseKernelPCA, average_nonzero


def training_zeros(n: int):
    try:
        from kpca_bench.datasets.registry import load_dataset

        dataset = load_dataset("mnist", offline=True)
    except DataError as error:
        print(f"MNIST not found ({error}); using random data")
        return np.random.default_rng(0).normal(size=(n, 784)), "random"
    rows = np.random.default_rng(0).permutation(np.flatnonzero(dataset.y == 0))[:n]
    return dataset.X[rows], "MNIST zeros"


def timed(label, function, repeat):
    """Median wall time of ``repeat`` runs (shared machines vary 2-5x between runs)."""
    times = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        for _ in range(repeat):
            start = time.perf_counter()
            result = function()
            times.append(time.perf_counter() - start)
    notes = "; ".join(sorted({type(w.message).__name__ for w in caught}))
    print(
        f"{label}: median {np.median(times):.1f} s of {', '.join(f'{t:.1f}' for t in times)}"
        + (f" ({notes})" if notes else "")
    )
    return result, float(np.median(times))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--components", type=int, default=15)
    parser.add_argument("--l1-ratio", type=float, default=0.7)
    parser.add_argument("--max-iter", type=int, default=6)
    parser.add_argument("--eigen-solver", choices=("eigh", "arpack"), default="arpack")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    X, source = training_zeros(args.n)
    print(
        f"{source}: n={len(X)}, d={X.shape[1]}, {args.components} components, "
        f"l1_ratio={args.l1_ratio}, max_iter={args.max_iter}, eigen_solver={args.eigen_solver}"
    )
    common = dict(eigen_solver=args.eigen_solver, random_state=0)
    _, t_kpca = timed("KPCA (kernel + eigenpairs)", lambda: KernelPCA(args.components, **common).fit(X), args.repeat)
    skpca, t_skpca = timed(
        "SKPCA (kernel + eigenpairs + alternations)",
        lambda: SparseKernelPCA(args.components, l1_ratio=args.l1_ratio, max_iter=args.max_iter, **common).fit(X),
        args.repeat,
    )
    m = average_nonzero(skpca.dual_coef_)
    _, t_naive = timed(
        f"naive thresholding, n_nonzero={m}",
        lambda: NaiveThresholdKPCA(args.components, n_nonzero=m, **common).fit(X),
        args.repeat,
    )
    print(
        f"SKPCA: {skpca.n_iter_} alternations (converged: {skpca.converged_}), "
        f"~{max(t_skpca - t_kpca, 0.0) / skpca.n_iter_:.2f} s per alternation (medians); non-zeros per "
        f"component {100 * skpca.n_nonzero_.mean() / len(X):.2f}% (min {skpca.n_nonzero_.min()}, "
        f"max {skpca.n_nonzero_.max()}); objective {skpca.objective_[0]:.4f} -> {skpca.objective_[-1]:.4f}"
    )
    print(f"total KPCA + SKPCA + naive: {t_kpca + t_skpca + t_naive:.1f} s")


if __name__ == "__main__":
    main()
