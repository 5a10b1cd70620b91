"""An ADBench suite from scratch: wall time with the machine's load beside it, cell time and peak memory per cell.

Runs ``kpca-bench run CONFIG --jobs N`` (``configs/adbench_classical.yaml`` unless ``--config``; with
``--scheduler local`` on a Dask ``LocalCluster`` of N worker processes, the path of a user with a
cluster) into a fresh folder (a temporary one unless ``--out`` is given), samples the one-minute load
average every 10 s while it runs, appends a row to ``results/benchmarks/suite_wall.tsv`` (config,
profile, path, workers, cores, wall seconds, cells, the load before, its mean and largest during the
run, the commit) and prints, from the stored records, the total and per-dataset figures: wall time,
summed cell time (one core's work), the largest and median ``peak_memory_mb`` of the cells (the peak
resident memory of the worker that ran each cell), and the slowest method. ``--summarize FOLDER``
prints the table of a finished run without running anything (the wall time is then the span of its
records' write times, which the records do not hold: give ``--wall``). Targets: <= 30 min wall from
scratch with --jobs 2 on 2 idle cores, <= 2 GB peak per cell.

    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/bench_adbench.py --jobs 2
    .venv/bin/python benchmarks/bench_adbench.py --config configs/adbench_classical_capped.yaml --scheduler local
    .venv/bin/python benchmarks/bench_adbench.py --summarize results/adbench_classical --wall 2580
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pandas as pd
from tsv_rows import append_row

CONFIG = Path(__file__).parents[1] / "configs" / "adbench_classical.yaml"
WALL_COLUMNS = (
    "date",
    "config",
    "profile",
    "path",
    "workers",
    "cores",
    "wall_s",
    "cells",
    "exit_code",
    "load_before",
    "load_mean",
    "load_max",
    "commit",
)


class LoadSampler(threading.Thread):
    """The one-minute load average every ``every`` seconds until ``done`` is set."""

    def __init__(self, every: float = 10.0):
        super().__init__(daemon=True)
        self.every, self.samples, self.done = every, [], threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.every):
            self.samples.append(os.getloadavg()[0])


def commit() -> str:
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    return result.stdout.strip() or "unknown"


def timed_run(config: Path, out: Path, jobs: int, scheduler: str | None, profile: str | None) -> dict:
    """Run ``config`` into ``out`` and return the row of ``suite_wall.tsv`` that says how long it took."""
    command = [
        str(Path(sys.executable).with_name("kpca-bench")),
        "run",
        str(config),
        "--out",
        str(out),
        "--jobs",
        str(jobs),
        "--quiet",
        *(["--scheduler", scheduler] if scheduler else []),
        *(["--profile", profile] if profile else []),
    ]
    before, sampler = os.getloadavg()[0], LoadSampler()
    sampler.start()
    start = time.perf_counter()
    exit_code = subprocess.run(command, check=False).returncode
    wall = time.perf_counter() - start
    sampler.done.set()
    samples = sampler.samples or [os.getloadavg()[0]]
    records = records_of_any(out)
    return {
        "date": time.strftime("%Y-%m-%d"),
        "config": shown_path(config),
        "profile": profile or "full",
        "path": "dask" if scheduler else "joblib",
        "workers": jobs,
        "cores": os.cpu_count(),
        "wall_s": round(wall, 1),
        "cells": int((records["status"] == "ok").sum()) if len(records) else 0,
        "exit_code": exit_code,
        "load_before": round(before, 2),
        "load_mean": round(sum(samples) / len(samples), 2),
        "load_max": round(max(samples), 2),
        "commit": commit(),
    }


def shown_path(config: Path) -> str:
    """``config`` relative to the repository when inside it, so that rows from different clones compare."""
    root = Path(__file__).resolve().parents[1]
    resolved = config.resolve()
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else config.as_posix()


def run_folders(out: Path) -> list[Path]:
    """The folders :func:`summarize` reads under ``out``: a suite's (``out/<name>/<dataset>/records.parquet``),
    else ``out`` itself for a single run (``out/<name>/records.parquet``)."""
    return sorted({store.parents[1] for store in out.glob("*/*/records.parquet")}) or [out]


def records_of_any(out: Path) -> pd.DataFrame:
    frames = [records_of(folder) for folder in run_folders(out)]
    return pd.concat(frames) if frames else pd.DataFrame()


def records_of(folder: Path) -> pd.DataFrame:
    rows = []
    from kpca_bench.experiment.store import ResultStore

    for member in sorted(path.parent for path in folder.glob("*/records.parquet")):
        for record in ResultStore(member).load().values():
            rows.append(
                {
                    "dataset": member.name,
                    "method": record["method"],
                    "status": record["status"],
                    "wall_time": record.get("wall_time", 0.0),
                    "peak_memory_mb": record.get("peak_memory_mb"),
                    "n_train": record.get("n_train"),
                    "n_rows": record.get("n_rows"),
                }
            )
    return pd.DataFrame(rows)


def summarize(folder: Path, wall: float | None) -> str:
    records = records_of(folder)
    per_dataset = records.groupby("dataset").agg(
        rows=("n_rows", "first"),
        cells=("method", "size"),
        cell_time_s=("wall_time", "sum"),
        peak_cell_gb=("peak_memory_mb", lambda m: m.max() / 1024),
    )
    per_method = records.groupby("method")["wall_time"].sum().sort_values(ascending=False)
    lines = [
        f"{len(records)} cells on {len(per_dataset)} datasets, {int((records['status'] != 'ok').sum())} failed",
        f"wall time: {wall / 60:.1f} min" if wall else "wall time: not measured here",
        f"summed cell time: {records['wall_time'].sum() / 60:.1f} min",
        f"peak memory per cell: max {records['peak_memory_mb'].max() / 1024:.2f} GB, "
        f"median {records['peak_memory_mb'].median() / 1024:.2f} GB",
        "cell time per method (min): " + ", ".join(f"{m} {t / 60:.1f}" for m, t in per_method.items()),
        "",
        per_dataset.sort_values("cell_time_s", ascending=False).to_string(float_format=lambda v: f"{v:.2f}"),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--jobs", type=int, default=2, help="joblib workers, or the LocalCluster's processes")
    parser.add_argument("--scheduler", default=None, help="'local' for a Dask LocalCluster (or a scheduler address)")
    parser.add_argument("--profile", default=None, help="the config's profile (quick: a smoke test)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--table",
        type=Path,
        default=Path("results/benchmarks/suite_wall.tsv"),
        help="the TSV the timing row is appended to",
    )
    parser.add_argument("--summarize", type=Path, default=None, help="a finished run's folder: only print its table")
    parser.add_argument("--wall", type=float, default=None, help="with --summarize: the measured wall time (s)")
    args = parser.parse_args(argv)
    if args.summarize is not None:
        print(summarize(args.summarize, args.wall))
        return
    out = args.out or Path(tempfile.mkdtemp(prefix="bench_adbench_"))
    row = timed_run(args.config, out, args.jobs, args.scheduler, args.profile)
    append_row(args.table, WALL_COLUMNS, row)
    print("\t".join(f"{key}={row[key]}" for key in WALL_COLUMNS))
    for folder in run_folders(out):
        print(summarize(folder, row["wall_s"]))


if __name__ == "__main__":
    main()
