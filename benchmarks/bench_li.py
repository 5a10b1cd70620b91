"""CPU time of Li et al.'s sweep, per cell and extrapolated to a whole config (10 splits).

Run: ``KPCA_BENCH_DATA=... python benchmarks/bench_li.py [configs/li_thyroid.yaml ...] [--repeats 3]``.
For each config, times one cell of every method entry (split 0, the middle
kernel parameter of its grid) with one BLAS thread, as the runner runs it, and
prints the median, and the CPU time of the whole sweep (cells x median), which
on 2 free cores is about twice its wall time. The whole run's wall time is in
the records (``wall_time``) and in results/li_summary.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from kpca_bench.protocols import PROTOCOLS
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.runner import load_checked_dataset
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.experiment.cell import build_method

DEFAULT_CONFIGS = [
    f"configs/li_{name}.yaml" for name in ("spectf", "thyroid", "wine", "yeast", "balance", "chess", "ttt", "spect")
]


def cell_seconds(config, method, split, repeats: int) -> float:
    settings = method.settings()
    setting = settings[len(settings) // 2]
    times = []
    for _ in range(repeats):
        built = build_method(method, setting, random_state=0)
        start = time.perf_counter()
        PROTOCOLS[config.protocol].evaluate(built, split, config.options)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=DEFAULT_CONFIGS)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for path in args.configs:
        config = load_config(path)
        dataset = load_checked_dataset(config, offline=True)
        split = PROTOCOLS[config.protocol].split(
            dataset, config.dataset, config.options, plan_cells(config)[0].split_seed
        )
        total = 0.0
        parts = []
        with threadpool_limits(1):
            for method in config.methods:
                seconds = cell_seconds(config, method, split, args.repeats)
                total += seconds * len(method.settings()) * config.trials
                parts.append(f"{method.label} {seconds * 1000:.0f} ms")
        print(f"{config.name}: per cell {', '.join(parts)}; whole sweep {total:.0f} s CPU")


if __name__ == "__main__":
    main()
