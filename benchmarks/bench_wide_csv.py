"""A wide CSV from the command line to its first cell: ``kpca-bench run`` on a 40 x 100,000 table.

The table (40 rows of normal noise, 100,000 feature columns ``f0..``, a 0 / 1 label, one row in five
an outlier) is written to a temporary folder with a config that runs kernel PCA on it (novelty
protocol, one trial). The run starts in a fresh process; the time to the first cell is when its
first record reaches the run's journal (``records.jsonl``). Target: at most 60 s on 2 cores. The table gives
the load average before and after, beside the times.

    .venv/bin/python benchmarks/bench_wide_csv.py
    .venv/bin/python benchmarks/bench_wide_csv.py --rows 20 --columns 20000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

EXECUTABLE = Path(sys.executable).with_name("kpca-bench")
CONFIG = """\
name: wide
dataset:
  name: file
  options: {{path: wide.csv}}
  train_inliers: {train}
  test_inliers: {test_inliers}
  test_outliers: {test_outliers}
protocol: novelty
trials: 1
methods:
  - {{name: kpca, params: {{n_components: 3}}}}
"""


def write_table(folder: Path, rows: int, columns: int) -> Path:
    """The wide CSV and its config in ``folder``; returns the config's path."""
    X = np.random.default_rng(0).normal(size=(rows, columns))
    labels = (np.arange(rows) % 5 == 0).astype(int)
    with (folder / "wide.csv").open("w") as stream:
        stream.write(",".join(f"f{i}" for i in range(columns)) + ",label\n")
        for row, label in zip(X, labels):
            stream.write(",".join(f"{value:.4f}" for value in row) + f",{label}\n")
    outliers, inliers = int(labels.sum()), int(rows - labels.sum())
    config = folder / "wide.yaml"
    config.write_text(CONFIG.format(train=inliers // 2, test_inliers=inliers - inliers // 2, test_outliers=outliers))
    return config


def time_to_first_cell(config: Path, out: Path, timeout_s: float) -> tuple[float | None, float, str]:
    """Seconds from the start of ``kpca-bench run`` to its first stored record (None if none came within
    ``timeout_s``), seconds to its end, and its stderr."""
    from kpca_bench.experiment.store import ResultStore

    store = ResultStore(out / "wide")  # its journal appears with the first record, its table at the end
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(EXECUTABLE), "run", str(config), "--out", str(out), "--jobs", "1", "--quiet", "--no-html"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = None
    while process.poll() is None and time.perf_counter() - start < timeout_s:
        if first is None and store.exists():
            first = time.perf_counter() - start
        time.sleep(0.1)
    if process.poll() is None:
        process.kill()
    stderr = process.communicate()[1]
    if first is None and store.exists():
        first = time.perf_counter() - start
    return first, time.perf_counter() - start, stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--columns", type=int, default=100_000)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = write_table(Path(folder), args.rows, args.columns)
        size = (Path(folder) / "wide.csv").stat().st_size / 2**20
        before = os.getloadavg()
        first, total, stderr = time_to_first_cell(config, Path(folder) / "out", args.timeout)
        after = os.getloadavg()
    print("| table | size | first cell (s) | whole run (s) | load average before / after | cores |")
    print("|---|---|---|---|---|---|")
    print(
        f"| {args.rows} x {args.columns:,} CSV | {size:.0f} MiB | {'-' if first is None else f'{first:.1f}'} "
        f"| {total:.1f} | {before[0]:.2f} / {after[0]:.2f} | {os.cpu_count()} |"
    )
    for line in stderr.splitlines():
        print(f"stderr: {line}")


if __name__ == "__main__":
    main()
