"""Wall time, summed cell time and peak memory of whole config runs from scratch, as a user runs them.

Each config runs as ``kpca-bench run CONFIG --out OUT --jobs N --quiet`` in a
fresh results folder (a temporary one unless ``--out`` is given), so nothing is
reused. Besides the wall time a user waits, the table gives the sum of the
cells' own times (what one core would need, without start-up and reports) and
the largest peak memory any cell recorded (``peak_memory_mb`` of the records:
the peak resident memory of the worker process that ran it). Issue targets this measures: ``configs/mnist.yaml`` < 15 min (Das
et al.), the three ``configs/wang_*`` classification configs < 20 min together
(Wang & Tanaka), every paper config < 60 min (``make all-figures``).

    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/bench_runs.py configs/mnist.yaml --jobs 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cell_figures(config: Path, out: Path) -> tuple[float, float]:
    """Sum of the run's cell times (s) and the largest cell peak memory (GB), from its stored records."""
    from kpca_bench.experiment.config_parser import load_config
    from kpca_bench.experiment.planning import experiment_directory

    from kpca_bench.experiment.store import ResultStore

    records = list(ResultStore(experiment_directory(load_config(config), out)).load().values())
    peaks = [r["peak_memory_mb"] for r in records if r.get("peak_memory_mb")]
    return sum(r.get("wall_time", 0.0) for r in records), max(peaks, default=0.0) / 1024


def run_once(config: Path, out: Path, jobs: int) -> dict:
    """Run one config in a child process; its wall time, cell time and peak cell memory."""
    command = [
        str(Path(sys.executable).with_name("kpca-bench")),
        "run",
        str(config),
        "--out",
        str(out),
        "--jobs",
        str(jobs),
        "--quiet",
    ]
    start = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    cells, peak_gb = cell_figures(config, out)
    return {
        "config": config.name,
        "ok": completed.returncode == 0,
        "wall": wall,
        "cells": cells,
        "peak_gb": peak_gb,
        "error": completed.stderr.strip().splitlines()[-1:],
    }


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--out", type=Path, help="results root (default: a fresh temporary folder)")
    args = parser.parse_args()
    print(
        f"{len(args.configs)} configs, --jobs {args.jobs}, {os.cpu_count()} cores; "
        f"load average at start {os.getloadavg()}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        rows = []
        for config in args.configs:
            rows.append(run_once(config, out, args.jobs))
            r = rows[-1]
            status = "" if r["ok"] else f" FAILED: {' '.join(r['error'])}"
            print(f"  {r['config']}: {minutes(r['wall'])} wall, {minutes(r['cells'])} in cells{status}", flush=True)
    print(f"\nload average at end {os.getloadavg()}\n")
    print("| config | wall | sum of cell times | largest cell peak memory (GB) | finished |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['config']} | {minutes(r['wall'])} | {minutes(r['cells'])} | {r['peak_gb']:.2f} | "
            f"{'yes' if r['ok'] else 'no'} |"
        )
    print(
        f"| total | {minutes(sum(r['wall'] for r in rows))} | {minutes(sum(r['cells'] for r in rows))} | "
        f"{max(r['peak_gb'] for r in rows):.2f} | |"
    )


if __name__ == "__main__":
    main()
