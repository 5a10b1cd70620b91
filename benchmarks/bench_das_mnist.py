"""Time one trial of Das et al.'s MNIST experiment at the paper's sizes (configs/mnist.yaml).

One split of trial 0 (3000 training zeros; 3000 zeros + 3000 other digits to
score), then each of the four methods of the config as the runner builds them
(SKPCA, KPCA, naive thresholding with its own SKPCA fit, Wang & Tanaka):
fit time, score time (training and test points, as the protocol scores both),
and the peak resident memory of the process (``resource`` maxrss, which
includes the 70,000 loaded images). Medians of ``--repeat`` runs, since a shared
machine varies 2-5x between runs. Not a test: machines differ.

    KPCA_BENCH_DATA=../shared/datasets .venv/bin/python benchmarks/bench_das_mnist.py [--repeat 1] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from kpca_bench.protocols import PROTOCOLS
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.runner import load_checked_dataset
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.experiment.cell import build_method

MAIN = ("SKPCA", "KPCA", "Naive thresholding", "Wang-Tanaka")


def peak_memory_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/mnist.yaml")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args(argv)

    start = time.perf_counter()
    config = load_config(args.config)
    dataset = load_checked_dataset(config, offline=True)
    cells = [c for c in plan_cells(config.with_overrides(trials=1)) if config.methods[c.method_index].label in MAIN]
    split = PROTOCOLS[config.protocol].split(dataset, config.dataset, config.options, cells[0].split_seed)
    print(
        f"{config.name}: load + split {time.perf_counter() - start:.1f} s; train {split.X_train.shape}, "
        f"test {split.X_test.shape}; {args.threads} BLAS threads; load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} cores"
    )
    total = 0.0
    print("| method | fit (s) | score (s) | total (s) | runs | peak RSS so far (MB) |")
    print("|---|---|---|---|---|---|")
    for cell in cells:
        method = config.methods[cell.method_index]
        fits, scores = [], []
        for _ in range(args.repeat):
            detector = build_method(method, cell.setting, cell.random_state).detector()
            with threadpool_limits(limits=args.threads), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SKPCA's max_iter=6 cap is the authors'; the run records it
                t0 = time.perf_counter()
                detector.fit(split.X_train)
                t1 = time.perf_counter()
                detector.score_samples(split.X_train)
                detector.score_samples(split.X_test)
                t2 = time.perf_counter()
            fits.append(t1 - t0)
            scores.append(t2 - t1)
        fit, score = float(np.median(fits)), float(np.median(scores))
        total += fit + score
        print(
            f"| {method.label} | {fit:.1f} | {score:.1f} | {fit + score:.1f} | {args.repeat} | "
            f"{peak_memory_mb():.0f} |",
            flush=True,
        )
    print(f"one trial, four methods: {total:.1f} s (medians); peak RSS {peak_memory_mb():.0f} MB")


if __name__ == "__main__":
    main()
