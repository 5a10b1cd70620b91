"""The ADBench suite (configs/adbench_classical.yaml) from scratch: wall time, cell time and peak memory per cell.

Runs ``kpca-bench run configs/adbench_classical.yaml --jobs N`` into a fresh folder (a temporary one
unless ``--out`` is given) and prints, from the stored records, the total and per-dataset figures:
wall time, summed cell time (one core's work), the largest and median ``peak_memory_mb`` of the
cells (the peak resident memory of the worker that ran each cell), and the slowest method.
``--summarize FOLDER`` prints the table of a finished run without running anything (the wall time
is then the span of its records' write times, which the records do not hold: give ``--wall``).
Issue 16's targets: <= 30 min wall from scratch with --jobs 2, <= 2 GB peak per cell.

    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/bench_adbench.py --jobs 2
    .venv/bin/python benchmarks/bench_adbench.py --summarize results/adbench_classical --wall 2580
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

CONFIG = Path(__file__).parents[1] / "configs" / "adbench_classical.yaml"


def records_of(folder: Path) -> pd.DataFrame:
    rows = []
    for store in sorted(folder.glob("*/records.jsonl")):
        for line in store.read_text().splitlines():
            record = json.loads(line)
            rows.append({"dataset": store.parent.name, "method": record["method"], "status": record["status"],
                         "wall_time": record.get("wall_time", 0.0), "peak_memory_mb": record.get("peak_memory_mb"),
                         "n_train": record.get("n_train"), "n_rows": record.get("n_rows")})
    return pd.DataFrame(rows)


def summarize(folder: Path, wall: float | None) -> str:
    records = records_of(folder)
    per_dataset = records.groupby("dataset").agg(rows=("n_rows", "first"), cells=("method", "size"),
                                                 cell_time_s=("wall_time", "sum"),
                                                 peak_cell_gb=("peak_memory_mb", lambda m: m.max() / 1024))
    per_method = records.groupby("method")["wall_time"].sum().sort_values(ascending=False)
    lines = [f"{len(records)} cells on {len(per_dataset)} datasets, {int((records['status'] != 'ok').sum())} failed",
             f"wall time: {wall / 60:.1f} min" if wall else "wall time: not measured here",
             f"summed cell time: {records['wall_time'].sum() / 60:.1f} min",
             f"peak memory per cell: max {records['peak_memory_mb'].max() / 1024:.2f} GB, "
             f"median {records['peak_memory_mb'].median() / 1024:.2f} GB",
             "cell time per method (min): " + ", ".join(f"{m} {t / 60:.1f}" for m, t in per_method.items()),
             "", per_dataset.sort_values("cell_time_s", ascending=False).to_string(float_format=lambda v: f"{v:.2f}")]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--summarize", type=Path, default=None, help="a finished run's folder: only print its table")
    parser.add_argument("--wall", type=float, default=None, help="with --summarize: the measured wall time (s)")
    args = parser.parse_args()
    if args.summarize is not None:
        print(summarize(args.summarize, args.wall))
        return
    out = args.out or Path(tempfile.mkdtemp(prefix="bench_adbench_"))
    start = time.perf_counter()
    command = [str(Path(sys.executable).with_name("kpca-bench")), "run", str(CONFIG), "--out", str(out),
               "--jobs", str(args.jobs), "--quiet"]
    subprocess.run(command, check=True)
    print(summarize(out / "adbench_classical", time.perf_counter() - start))


if __name__ == "__main__":
    main()
