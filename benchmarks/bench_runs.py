"""Wall time, CPU time and peak memory of whole config runs from scratch, as a user runs them.

Each config runs as ``kpca-bench run CONFIG --out OUT --jobs N --quiet`` in a
fresh results folder (a temporary one unless ``--out`` is given), so nothing is
reused. CPU time is the user + system time of the run and its worker
processes; on a shared machine it is the steadier figure, wall time the one a
user waits. Peak memory is the largest resident set of any one of those
processes. Issue targets this measures: ``configs/mnist.yaml`` < 15 min (Das
et al.), the three ``configs/wang_*`` classification configs < 20 min together
(Wang & Tanaka), every paper config < 60 min (``make all-figures``).

    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/bench_runs.py configs/mnist.yaml --jobs 2
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_once(config: Path, out: Path, jobs: int) -> dict:
    """Run one config in a child process; its wall and CPU seconds and peak memory (GB)."""
    command = [str(Path(sys.executable).with_name("kpca-bench")), "run", str(config), "--out", str(out),
               "--jobs", str(jobs), "--quiet"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"config": config.name, "ok": completed.returncode == 0, "wall": wall, "cpu": cpu,
            "peak_gb": after.ru_maxrss / 2**20, "error": completed.stderr.strip().splitlines()[-1:]}


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--out", type=Path, help="results root (default: a fresh temporary folder)")
    args = parser.parse_args()
    print(f"{len(args.configs)} configs, --jobs {args.jobs}, {os.cpu_count()} cores; "
          f"load average at start {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        rows = []
        for config in args.configs:
            rows.append(run_once(config, out, args.jobs))
            r = rows[-1]
            status = "" if r["ok"] else f" FAILED: {' '.join(r['error'])}"
            print(f"  {r['config']}: {minutes(r['wall'])} wall, {minutes(r['cpu'])} CPU{status}", flush=True)
    print(f"\nload average at end {os.getloadavg()}\n")
    print("| config | wall | CPU | peak memory so far (GB) | finished |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['config']} | {minutes(r['wall'])} | {minutes(r['cpu'])} | {r['peak_gb']:.2f} | "
              f"{'yes' if r['ok'] else 'no'} |")
    print(f"| total | {minutes(sum(r['wall'] for r in rows))} | {minutes(sum(r['cpu'] for r in rows))} | | |")


if __name__ == "__main__":
    main()
