"""SKPCA's elastic-net step solved two ways: our LARS on the Gram against scikit-learn's coordinate descent.

The first alternation's subproblems (eq. 11) of a suite dataset's uncapped training rows, as
``benchmarks/diag_skpca_convergence.py`` prepares them (ADBench split, min-max scaling, mean-pairwise
RBF, 10 components from exact KPCA, ``alpha = 1``, ``l1_ratio = 0.5``), for the first ``--components``
columns, at one BLAS thread:

- ours: :func:`kpca_bench.methods.sparse_enet.elastic_net_columns` (LARS-EN on ``K^2 + lam I``, exact);
- scikit-learn: ``ElasticNet(alpha=1 / (2 n), l1_ratio=0.5, fit_intercept=False, precompute=K^2)`` on
  ``(K, K alpha_j)``, the identical problem (module docstring of ``sparse_enet``), coordinate descent
  to each ``--tol`` with ``--max-iter`` sweeps.

Prints, per solver, the seconds, eq. (11) summed over the columns (the exact solution has the
lowest), the largest coefficient difference relative to the largest coefficient, whether the
supports agree, the mean non-zeros and whether coordinate descent met its duality-gap tolerance.
Not a test: machines differ.

    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/diag_skpca_enet_solvers.py \\
        --dataset adbench_magic_gamma --components 3
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from diag_skpca_convergence import centered_kernel, training_rows
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import ElasticNet
from threadpoolctl import threadpool_limits

from kpca_bench.eigensolvers import top_eigenpairs
from kpca_bench.methods.kpca import dual_coefficients
from kpca_bench.methods.sparse_enet import elastic_net_columns, enet_penalties


def coordinate_descent(
    K: np.ndarray, gram: np.ndarray, Y: np.ndarray, tol: float, max_iter: int
) -> tuple[np.ndarray, bool]:
    """scikit-learn's solution of every column's eq. (11), and whether every fit met its tolerance."""
    model = ElasticNet(
        alpha=1.0 / (2 * K.shape[0]), l1_ratio=0.5, fit_intercept=False, precompute=gram, tol=tol, max_iter=max_iter
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        coef = np.column_stack([model.fit(K, Y[:, j], check_input=False).coef_.copy() for j in range(Y.shape[1])])
    return coef, not any(issubclass(w.category, ConvergenceWarning) for w in caught)


def objective(K: np.ndarray, Y: np.ndarray, coef: np.ndarray, lam: float, lam_j: float) -> float:
    """Eq. (11) summed over the columns: ``||y_j - K b_j||^2 + lam ||b_j||^2 + lam_j |b_j|_1``."""
    return float(np.sum((Y - K @ coef) ** 2) + lam * np.sum(coef**2) + lam_j * np.abs(coef).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="adbench_magic_gamma")
    parser.add_argument("--components", type=int, default=3)
    parser.add_argument("--tol", type=float, nargs="+", default=[1e-4, 1e-8])
    parser.add_argument("--max-iter", type=int, default=100_000)
    args = parser.parse_args()
    with threadpool_limits(1):
        X = training_rows(args.dataset, 0, None)
        K = centered_kernel(X, 10)
        eig = top_eigenpairs(K, 10, "arpack", 0)
        Y = (K @ dual_coefficients(eig.values, eig.vectors))[:, : args.components]
        lam, lam_j = enet_penalties(1.0, 0.5)
        gram = K @ K.T
        ridge_gram = gram + lam * np.eye(len(K))
        start = time.perf_counter()
        lars = elastic_net_columns(ridge_gram, K @ Y, lam_j)
        print(
            f"{args.dataset}, n = {len(K)}, {args.components} components; LARS: {time.perf_counter() - start:.1f} s, "
            f"objective {objective(K, Y, lars, lam, lam_j):.6e}, "
            f"{np.count_nonzero(lars) / args.components:.0f} non-zeros per component",
            flush=True,
        )
        for tol in args.tol:
            start = time.perf_counter()
            cd, converged = coordinate_descent(K, gram, Y, tol, args.max_iter)
            seconds = time.perf_counter() - start
            diff = np.abs(cd - lars).max() / np.abs(lars).max()
            same = sum(np.array_equal(np.flatnonzero(cd[:, j]), np.flatnonzero(lars[:, j])) for j in range(cd.shape[1]))
            print(
                f"  coordinate descent, tol {tol:g}: {seconds:.1f} s, met its tolerance: {converged}, "
                f"objective {objective(K, Y, cd, lam, lam_j):.6e}, "
                f"max coefficient difference {diff:.1e} of the largest, {same} of {cd.shape[1]} supports equal, "
                f"{np.count_nonzero(cd) / cd.shape[1]:.0f} non-zeros per component",
                flush=True,
            )


if __name__ == "__main__":
    main()
