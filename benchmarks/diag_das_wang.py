"""Why Wang & Tanaka's SKPCA-l1 leaves every component empty at Das et al.'s MNIST setting (n = 3000).

Fits the Wang-Tanaka method of a Das config (its params, trial 0's training set, or
its first ``n`` images) and prints, per training size:

* per component k: the centered kernel's eigenvalue ``s_k``, the first ADMM
  iterate's primal residual ``||K^{-1/2} q_k||`` (``a_k`` starts at 0, so it is all of
  ``K^{-1/2} q_k``) against the stopping tolerance ``sqrt(N) eps_abs + ...`` (the dual
  residual of that iterate is 0 when ``a_k`` stays 0), the largest entry of
  ``K^{-1/2} q_k`` against the two readings of the soft threshold
  (``lambda_1k / rho`` and the printed ``lambda / rho``);
* the share of non-zero coefficients with the config's params and with each reading of
  Algorithm 1 the paper leaves open (threshold, admm_init, projection) and, with ``--eps-abs``, another eps_abs.

    KPCA_BENCH_DATA=../shared/datasets nice -n 15 .venv/bin/python benchmarks/diag_das_wang.py \
        [--config configs/mnist.yaml] [--n 400 3000] [--eps-abs 1e-4]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

from bench_admm import training_set
from kpca_bench.methods.sparse_admm import L1SparseKernelPCA

ROOT = Path(__file__).parents[1]
READINGS = {
    "config": {},
    "threshold=lam": {"threshold": "lam"},
    "admm_init=zeros": {"admm_init": "zeros"},
    "projection=raw": {"projection": "raw"},
}


def first_iterate(X: np.ndarray, params: dict) -> None:
    """Per component: s_k, ||K^{-1/2} q_k|| and its largest entry after ADMM iteration 1, the tolerance."""
    model = L1SparseKernelPCA(**{**params, "max_iter": 1, "max_outer_iter": 1}).fit(X)
    K = model.centering_.center_train(model.kernel_(model.X_fit_))
    s, U = np.linalg.eigh(K)
    s, U = s[::-1], U[:, ::-1]
    rho, lam = params["rho"], params["lam"]
    print(f"  thresholds: lambda_1k/rho = {params['lam1'] / rho:.3g}, lambda/rho = {lam / rho:.3g}")
    print("  | k | s_k | primal residual ||K^-1/2 q_k|| | tolerance | max entry of K^-1/2 q_k |")
    for k, trace in enumerate(model.residuals_):
        b = U[:, k] * s[k] ** 1.5 / (s[k] ** 2 + lam * s[k] + rho)  # step 6 from a = t = 0, p_k = u_k
        print(f"  | {k + 1} | {s[k]:.3f} | {trace.primal[0]:.4f} | {trace.eps_primal[0]:.4f} | {np.abs(b).max():.4f} |")


def nonzero_share(X: np.ndarray, params: dict) -> str:
    model = L1SparseKernelPCA(**params)
    start = time.perf_counter()
    model.fit(X)
    share = (model.dual_coef_ != 0).mean(axis=0) * 100
    empty = np.flatnonzero(share == 0) + 1
    return (
        f"{share.mean():.2f} % non-zero (per component {share.min():.2f}-{share.max():.2f}), "
        f"empty components {empty.tolist()}, {time.perf_counter() - start:.1f} s"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "mnist.yaml"))
    parser.add_argument("--n", type=int, nargs="+", default=[400, 3000])
    parser.add_argument("--eps-abs", type=float, default=None)
    args = parser.parse_args(argv)
    X, params = training_set(args.config)
    readings = dict(READINGS)
    if args.eps_abs is not None:
        readings[f"eps_abs={args.eps_abs:g}"] = {"eps_abs": args.eps_abs}
    print(f"{args.config}: trial 0, params {params}; load average {os.getloadavg()}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # empty components: the point of the diagnostic
        for n in args.n:
            print(f"n = {n}")
            first_iterate(X[:n], params)
            for name, change in readings.items():
                print(f"  {name}: {nonzero_share(X[:n], {**params, **change})}", flush=True)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
