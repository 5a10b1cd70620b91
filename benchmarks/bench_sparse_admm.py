"""Time SKPCA-l1 / SKPCA-l2,1 (Wang & Tanaka) at the size of Das et al.'s MNIST run.

n = 3000 training points, 15 components, RBF kernel with the mean-pairwise width
(Das et al.), on random Gaussian data unless ``--data FILE.npy`` is given (the
cost depends on n, on the kernel's spectrum and on the iteration counts). Prints
the one-off eigendecomposition time, then for each setting the fit time, the
ADMM iteration count, the time per iteration and the sparsity. Not a test:
machines differ, and a shared machine varies 2-5x between runs. CPU time
(``--threads 1``) is the steadier figure on a busy machine.

    .venv/bin/python benchmarks/bench_sparse_admm.py [--n 3000] [--components 15] [--only NAME]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.methods.sparse_admm import L1SparseKernelPCA, Spectrum
from kpca_bench.methods.sparse_admm_l21 import L21SparseKernelPCA

SETTINGS = {
    "l1-das-mnist": (L1SparseKernelPCA, dict(rho=0.02, lam=0.001, lam1=0.01, eps_abs=0.01, eps_rel=1e-4)),
    "l1-das-mnist-eps_abs=1e-4": (L1SparseKernelPCA, dict(rho=0.02, lam=0.001, lam1=0.01, eps_abs=1e-4, eps_rel=1e-4)),
    "l1-defaults": (L1SparseKernelPCA, {}),
    "l21-defaults": (L21SparseKernelPCA, {}),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--components", type=int, default=15)
    parser.add_argument("--data", help="a .npy array of training rows to use instead of random data")
    parser.add_argument("--only", choices=sorted(SETTINGS), action="append")
    parser.add_argument("--threads", type=int, help="cap BLAS threads (threadpoolctl)")
    args = parser.parse_args(argv)
    with threadpool_limits(args.threads):
        run(args)


def run(args):

    if args.data:
        X = np.load(args.data)[: args.n].astype(float)
    else:
        X = np.random.default_rng(0).normal(size=(args.n, args.features))
    print(f"X {X.shape}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    K = make_kernel(X)(X)
    K = KernelCentering.fit(K).center_train(K)
    start, cpu = time.perf_counter(), time.process_time()
    Spectrum.of(K)
    print(
        f"eigendecomposition of the centered kernel: {time.perf_counter() - start:.1f} s "
        f"(CPU {time.process_time() - cpu:.1f} s)"
    )
    for name in args.only or SETTINGS:
        cls, params = SETTINGS[name]
        model = cls(args.components, **params)
        start, cpu = time.perf_counter(), time.process_time()
        model.fit(X)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        inner = model.n_inner_iter_
        iterations = sum(int(np.sum(i)) for i in inner) if isinstance(inner, list) else int(np.sum(inner))
        print(
            f"{name}: fit {elapsed:.1f} s (CPU {cpu:.1f} s), {iterations} ADMM iterations in {np.sum(getattr(model, 'n_outer_iter_', model.n_iter_))} outer, "
            f"non-zeros {100 * np.mean(model.dual_coef_ != 0):.1f}%, "
            f"selected samples {len(model.selected_samples_)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
