"""Wang & Tanaka's SKPCA-l1 on one trial of Das et al.'s MNIST run: the solver before its speed-up and now.

Fits the Wang-Tanaka method of configs/mnist.yaml (its params, trial 0's 3000
training zeros) with the solver as it was at commit ``BEFORE`` (its
``sparse_admm.py`` loaded from git as a module) and with today's, alternately,
``--repeat`` times each, and prints the median fit times, their ratio and the
largest difference between the fitted attributes. ``--lam1`` overrides the
config's ``lam1`` (e.g. ``1e-6``, whose components are not empty). Run from the
repository (it needs git). Target: at most 0.35x, same result to 1e-10.

    KPCA_BENCH_DATA=../shared/datasets .venv/bin/python benchmarks/bench_admm.py [--repeat 1] [--lam1 X]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from kpca_bench.methods.sparse_admm import L1SparseKernelPCA
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.runner import load_checked_dataset
from kpca_bench.experiment.planning import plan_cells

BEFORE = "5996d8d"  # main before the ADMM speed-up
ROOT = Path(__file__).parents[1]
FITTED = ("dual_coef_", "raw_coef_", "eigenvalues_", "components_gram_", "projection_variances_")


def solver_before():
    """``L1SparseKernelPCA`` from ``sparse_admm.py`` at commit BEFORE."""
    source = subprocess.run(
        ["git", "show", f"{BEFORE}:kpca_bench/methods/sparse_admm.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    spec = importlib.util.spec_from_loader("sparse_admm_before", loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(source, f"{BEFORE}:sparse_admm.py", "exec"), module.__dict__)
    return module.L1SparseKernelPCA


def training_set(config_path: str) -> tuple[np.ndarray, dict]:
    config = load_config(config_path)
    dataset = load_checked_dataset(config, offline=True)
    cell = next(
        c for c in plan_cells(config.with_overrides(trials=1)) if config.methods[c.method_index].label == "Wang-Tanaka"
    )
    split = PROTOCOLS[config.protocol].split(dataset, config.dataset, config.options, cell.split_seed)
    return split.X_train, dict(config.methods[cell.method_index].params)


def timed_fit(cls, params: dict, X: np.ndarray) -> tuple[float, float, object]:
    """Wall and CPU seconds of one fit (CPU time is the steadier figure on a busy machine), and the model."""
    model = cls(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # empty components at the config's lam1: the run records it
        start, cpu = time.perf_counter(), time.process_time()
        model.fit(X)
    return time.perf_counter() - start, time.process_time() - cpu, model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "mnist.yaml"))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--lam1", type=float, default=None)
    args = parser.parse_args(argv)

    X, params = training_set(args.config)
    if args.lam1 is not None:
        params["lam1"] = args.lam1
    print(f"train {X.shape}, params {params}; load average {os.getloadavg()} on {os.cpu_count()} cores")
    solvers = {"before": solver_before(), "now": L1SparseKernelPCA}
    times = {name: [] for name in solvers}
    cpus = {name: [] for name in solvers}
    models = {}
    for _ in range(args.repeat):
        for name, cls in solvers.items():
            elapsed, cpu, models[name] = timed_fit(cls, params, X)
            times[name].append(elapsed)
            cpus[name].append(cpu)
            print(f"  {name}: fit {elapsed:.2f} s, CPU {cpu:.2f} s (load {os.getloadavg()[0]:.1f})", flush=True)
    before, now = (float(np.median(times[name])) for name in solvers)
    cpu_before, cpu_now = (float(np.median(cpus[name])) for name in solvers)
    diff = max(float(np.max(np.abs(getattr(models["now"], a) - getattr(models["before"], a)))) for a in FITTED)
    print(
        f"median fit: before {before:.2f} s, now {now:.2f} s, ratio {now / before:.3f}; "
        f"CPU before {cpu_before:.2f} s, now {cpu_now:.2f} s, ratio {cpu_now / cpu_before:.3f}; "
        f"largest difference of {', '.join(FITTED)}: {diff:.2e}; "
        f"non-zeros {100 * np.mean(models['now'].dual_coef_ != 0):.2f}%; "
        f"load average {os.getloadavg()}"
    )


if __name__ == "__main__":
    main()
