"""Fit time of Nystrom KPCA at the SAS paper's letter-recognition size (16,000 x 16, 200 centroids).

Run: ``python benchmarks/bench_nystrom.py [--repeats 5]``. Prints the median
fit time per landmark method, with BLAS/OpenMP left at their defaults and
capped to one thread (on a busy 2-core machine, two OpenMP threads in k-means
can be several times slower than one).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from kpca_bench.methods.nystrom import NystromKernelPCA


def median_fit_time(X: np.ndarray, landmarks: str, repeats: int) -> float:
    times = []
    for seed in range(repeats):
        model = NystromKernelPCA(n_components=200, n_landmarks=200, landmarks=landmarks, random_state=seed)
        start = time.perf_counter()
        model.fit(X)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    X = np.random.default_rng(0).normal(size=(16_000, 16))
    for threads in (None, 1):
        with threadpool_limits(threads):
            for landmarks in ("kmeans", "random"):
                seconds = median_fit_time(X, landmarks, args.repeats)
                print(f"threads={threads or 'default'} landmarks={landmarks}: median fit {seconds:.2f} s")


if __name__ == "__main__":
    main()
