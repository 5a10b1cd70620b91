"""A suite's wall time from nothing, through joblib or a Dask LocalCluster, with the machine's load beside it.

Runs ``kpca-bench run CONFIG --jobs N --out SCRATCH [--scheduler local]`` into a fresh scratch folder
(never into ``results/``), samples the one-minute load average every 10 s while it runs, and appends a row
to ``results/benchmarks/suite_wall.tsv``: the config and profile, the path (``joblib`` or ``dask``: a
``LocalCluster`` of N worker processes, the path of a user with a cluster), workers, cores, wall seconds,
cells stored, the load before, the mean and the largest load during the run, and the commit.

    python benchmarks/bench_suite_wall.py configs/adbench_classical_capped.yaml --path joblib dask
    python benchmarks/bench_suite_wall.py configs/adbench_classical.yaml --profile quick --path dask
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

COLUMNS = ("date", "config", "profile", "path", "workers", "cores", "wall_s", "cells", "exit_code", "load_before",
           "load_mean", "load_max", "commit")


def commit() -> str:
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    return result.stdout.strip() or "unknown"


def stored_cells(folder: Path) -> int:
    return sum(1 for path in folder.rglob("records.jsonl") for line in path.read_text().splitlines()
               if json.loads(line).get("status") == "ok")


class LoadSampler(threading.Thread):
    """The one-minute load average every ``every`` seconds until stopped."""

    def __init__(self, every: float = 10.0):
        super().__init__(daemon=True)
        self.every, self.samples, self.done = every, [], threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.every):
            self.samples.append(os.getloadavg()[0])


def timed_run(config: Path, profile: str | None, path: str, workers: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="suite-wall-") as scratch:
        command = [sys.executable, "-m", "kpca_bench", "run", str(config), "--jobs", str(workers), "--quiet",
                   "--out", scratch, *(["--profile", profile] if profile else []),
                   *(["--scheduler", "local"] if path == "dask" else [])]
        before, sampler = os.getloadavg()[0], LoadSampler()
        sampler.start()
        start = time.perf_counter()
        exit_code = subprocess.run(command, check=False).returncode
        wall = time.perf_counter() - start
        sampler.done.set()
        samples = sampler.samples or [os.getloadavg()[0]]
        return {"date": time.strftime("%Y-%m-%d"), "config": config.as_posix(), "profile": profile or "full",
                "path": path, "workers": workers, "cores": os.cpu_count(), "wall_s": round(wall, 1),
                "cells": stored_cells(Path(scratch)), "exit_code": exit_code, "load_before": round(before, 2),
                "load_mean": round(sum(samples) / len(samples), 2), "load_max": round(max(samples), 2),
                "commit": commit()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--path", nargs="+", choices=("joblib", "dask"), default=["joblib", "dask"])
    parser.add_argument("--workers", type=int, default=2, help="joblib workers, or the LocalCluster's processes")
    parser.add_argument("--profile", default=None, help="the config's profile (e.g. quick for a smoke test)")
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks/suite_wall.tsv"))
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    new = not args.out.exists()
    for path in args.path:
        row = timed_run(args.config, args.profile, path, args.workers)
        with args.out.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS, delimiter="\t")
            if new:
                writer.writeheader()
                new = False
            writer.writerow(row)
        print("\t".join(str(row[c]) for c in COLUMNS), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
