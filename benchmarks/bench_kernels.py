"""Build time and peak memory of the 16,000 x 16,000 RBF kernel: ours against scikit-learn's ``pairwise_kernels``.

Run: ``python benchmarks/bench_kernels.py [--n 16000] [--repeats 3]``. The data
are random 16-feature rows (the SAS paper's letters have 16,000 x 16), the
width is the ``mean_pairwise`` heuristic. For 2 BLAS threads and 1, the two
builds alternate ``--repeats`` times in this process; each prints its median
time, the ratio ours / theirs, the process's memory peak above the data while
building (``/proc/self/status``; one build at a time) and the largest
difference between the two matrices. Then the same for centering the training
kernel in place, ours against the three whole-matrix numpy steps it replaced.
The machine's load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import numpy as np
from sklearn.metrics.pairwise import pairwise_kernels
from threadpoolctl import threadpool_limits

from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.experiment.memory import peak_memory

GIB = 2**30


def timed(build, argument) -> tuple[float, float, np.ndarray]:
    """Seconds, GiB of memory peak above what the process held before, and ``build(argument)``."""
    before = _resident_gib()
    with peak_memory() as peak:
        start = time.perf_counter()
        result = build(argument)
        seconds = time.perf_counter() - start
    return seconds, peak.mib / 1024 - before, result


def _resident_gib() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 2**20
    raise RuntimeError("no VmRSS in /proc/self/status")


def numpy_centering(centering: KernelCentering, K: np.ndarray) -> np.ndarray:
    """The previous ``center_train``: three in-place steps over the whole matrix."""
    K -= centering.column_means[np.newaxis, :]
    K -= centering.column_means[:, np.newaxis]
    K += centering.grand_mean
    return K


def compare(name: str, ours, theirs, setup, repeats: int) -> None:
    """Alternate ``ours(setup())`` and ``theirs(setup())``, print medians, ratio, memory peaks, largest difference.

    ``setup`` runs outside the timing.
    """
    runs = {"ours": [], "theirs": []}
    difference = 0.0
    for _ in range(repeats):
        t_theirs, m_theirs, reference = timed(theirs, setup())
        runs["theirs"].append((t_theirs, m_theirs))
        t_ours, m_ours, result = timed(ours, setup())  # its peak counts from the memory held before it
        runs["ours"].append((t_ours, m_ours))
        difference = max(difference, float(np.max(np.abs(result - reference))))
        del result, reference
    (ours_s, ours_gib), (theirs_s, theirs_gib) = (np.median(np.array(runs[key]), axis=0) for key in ("ours", "theirs"))
    print(
        f"{name}: ours {ours_s:.2f} s (peak +{ours_gib:.2f} GiB), theirs {theirs_s:.2f} s "
        f"(peak +{theirs_gib:.2f} GiB), ratio {ours_s / theirs_s:.2f}, max |difference| {difference:.1e}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=16_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X = np.random.default_rng(0).normal(size=(args.n, 16))
    kernel = make_kernel(X, "rbf")
    print(f"n={args.n}, gamma={kernel.gamma:.4g}, load average {os.getloadavg()}", flush=True)
    for threads in (2, 1):
        with threadpool_limits(threads):
            compare(
                f"{threads} BLAS thread(s), RBF kernel",
                kernel,
                partial(pairwise_kernels, metric="rbf", gamma=kernel.gamma),
                lambda: X,
                args.repeats,
            )
            K = kernel(X)
            centering = KernelCentering.fit(K)
            compare(
                f"{threads} BLAS thread(s), centering",
                centering.center_train,
                partial(numpy_centering, centering),
                K.copy,
                args.repeats,
            )
            del K
    print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
