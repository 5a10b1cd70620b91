"""Every paper config rerun from scratch at the full profile with today's defaults, its summary compared with the committed one.

Every full-profile paper table is to be reproduced after the
default eigensolver became ``"auto"``: cell keys do not name the solver, so
``results/<name>/`` still hold records computed with ``eigh``. Each config that
``python -m reproductions report --list-configs`` names (or only those ``--only`` names) runs
as ``kpca-bench run CONFIG --out OUT --jobs JOBS --quiet`` into a fresh folder
(``OUT/<name>/``, never ``results/<name>/``), cheapest first (by the summed cell
times of the committed records), and every numeric cell of its ``summary.csv``
is compared with the committed ``results/<name>/summary.csv``: largest absolute
and relative difference per config, and which metrics differ beyond ``--tol``.
Timing and memory columns (``*time*``, ``*memory*``) measure the machine, not
the method, and are left out. ``--jobs`` defaults to 2, as ``make all-figures``
made the committed results: on 2 cores each cell then has 1 BLAS thread, and a
BLAS sum split across threads can change a result's last bits. A config that
would not finish before ``--stop-at`` (its committed cell time from now) is not
started, and a run still going at ``--stop-at`` is stopped with its workers;
both are listed as not rerun. Finished cells in OUT are reused, so a second call
resumes. Writes ``REPORT.md`` (table) and ``REPORT.csv`` (one row per config)
and ``REPORT_cells.csv`` (one row per summary cell beyond ``--tol``), with the
machine's load.

    KPCA_BENCH_DATA=/work/shared/datasets nice -n 19 .venv/bin/python benchmarks/rerun_full_profiles.py \\
        --out /work/fullrerun --stop-at 19:30 --report results/benchmarks/full_profile_rerun \\
        --only li_chess mnist
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

KPCA_BENCH = str(Path(sys.executable).with_name("kpca-bench"))
ROOT = Path(__file__).resolve().parents[1]
MACHINE_COLUMNS = ("time", "memory")


def paper_configs() -> list[Path]:
    """The configs ``make all-figures`` runs (those whose data are here)."""
    listed = subprocess.run(
        [sys.executable, "-m", "reproductions", "report", "--list-configs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [Path(line) for line in listed.stdout.split()]


def records(folder: Path) -> list[dict]:
    from kpca_bench.experiment.store import ResultStore

    return list(ResultStore(folder).load().values())


def committed_cost(config: Path, committed: Path) -> float:
    """Summed cell time (s) of the committed records: the order and the time budget."""
    return sum(r.get("wall_time", 0.0) for r in records(committed / config.stem))


def run_config(config: Path, out: Path, jobs: int, timeout: float) -> tuple[bool, float, str]:
    """Run one config into ``out``; whether it finished, its wall time and the last line of its errors."""
    command = [KPCA_BENCH, "run", str(config), "--out", str(out), "--jobs", str(jobs), "--quiet"]
    start = time.perf_counter()
    # Its own process group, so that a stop reaches the cell workers too.
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_group(process)
        return False, time.perf_counter() - start, f"stopped after {timeout:.0f} s"
    error = (stderr.strip().splitlines() or [""])[-1]
    return process.returncode == 0, time.perf_counter() - start, error


def stop_group(process: subprocess.Popen, grace: float = 60.0) -> None:
    """SIGTERM (kpca-bench keeps the finished cells), then SIGKILL what is left of the group after ``grace`` s."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.communicate(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


def summary_rows(path: Path) -> dict[tuple[str, ...], dict[str, str]]:
    """Rows of a summary.csv keyed by their non-numeric cells (method, dataset, ...)."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {tuple(v for v in row.values() if not is_number(v)): row for row in rows}


def is_number(text: str) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def compare_summaries(old: Path, new: Path, tol: float) -> tuple[list[dict], list[str]]:
    """Every numeric result cell of ``old`` against ``new``; the cells' differences and the problems found."""
    before, after = summary_rows(old), summary_rows(new)
    problems = [
        f"row {' / '.join(key)} only in the {side}"
        for key, side in [(k, "committed summary") for k in before.keys() - after.keys()]
        + [(k, "rerun") for k in after.keys() - before.keys()]
    ]
    cells = []
    for key in before.keys() & after.keys():
        for column, value in before[key].items():
            if any(word in column for word in MACHINE_COLUMNS) or not is_number(value):
                continue
            a, b = float(value), float(after[key].get(column) or "nan")
            absolute = 0.0 if math.isnan(a) and math.isnan(b) else abs(b - a)
            relative = absolute / max(abs(a), abs(b)) if absolute else 0.0
            cells.append(
                {
                    "row": " / ".join(key),
                    "metric": column,
                    "committed": a,
                    "rerun": b,
                    "abs_diff": absolute,
                    "rel_diff": relative,
                    "beyond_tol": not absolute <= tol,
                }
            )
    return cells, problems


def solvers_used(folder: Path) -> tuple[str, float | None]:
    """The eigensolvers the rerun's records name (with counts) and their largest relative residual."""
    rerun = records(folder)
    counts = Counter(r["eigen_solver"] for r in rerun if r.get("eigen_solver"))
    residuals = [r["eigen_residual"] for r in rerun if r.get("eigen_residual") is not None]
    return " ".join(f"{name}:{n}" for name, n in sorted(counts.items())) or "-", max(residuals, default=None)


def config_row(config: Path, cost: float, args: argparse.Namespace, deadline: float) -> tuple[dict, list[dict]]:
    """Run (unless out of time) and compare one config."""
    row = {
        "config": config.stem,
        "committed_cell_s": round(cost, 1),
        "status": "not rerun",
        "wall_s": "",
        "solvers": "",
        "max_eigen_residual": "",
        "max_abs_diff": "",
        "max_rel_diff": "",
        "beyond_tol": "",
        "note": "",
    }
    left = deadline - time.time()
    if cost > left:
        row["note"] = f"committed cell time {cost:.0f} s > {max(left, 0):.0f} s left before --stop-at"
        return row, []
    finished, wall, error = run_config(config, args.out, args.jobs, left)
    row["wall_s"] = round(wall, 1)
    if not finished:
        row["note"] = error
        return row, []
    cells, problems = compare_summaries(
        args.committed / config.stem / "summary.csv", args.out / config.stem / "summary.csv", args.tol
    )
    differing = [c for c in cells if c["beyond_tol"]]
    solvers, residual = solvers_used(args.out / config.stem)
    row.update(
        status="compared",
        solvers=solvers,
        max_eigen_residual="-" if residual is None else f"{residual:.1e}",
        max_abs_diff=f"{max((c['abs_diff'] for c in cells), default=0.0):.2e}",
        max_rel_diff=f"{max((c['rel_diff'] for c in cells), default=0.0):.2e}",
        beyond_tol=" ".join(sorted({c["metric"] for c in differing})),
        note="; ".join(problems),
    )
    return row, [{"config": config.stem, **c} for c in differing]


def write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        path.write_text("")
        return
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_report(report: Path, rows: list[dict], cells: list[dict], context: dict) -> None:
    """REPORT.md (the table) and REPORT.csv, REPORT_cells.csv."""
    write_csv(report.with_suffix(".csv"), rows)
    write_csv(report.with_name(report.name + "_cells.csv"), cells)
    lines = [
        f"# Full-profile paper configs rerun from scratch ({context['started']} to {context['now']})",
        "",
        f"`benchmarks/rerun_full_profiles.py {context['arguments']}`, each config with "
        f"`--jobs {context['jobs']}` under `nice -n {context['nice']}`, cheapest first; "
        f"{os.cpu_count()} cores shared with other work, load average at start {context['load_start']}, "
        f"now {os.getloadavg()}. Differences are those of every numeric cell of `summary.csv` except "
        "timing and memory columns; relative = |new - old| / max(|new|, |old|). "
        f"`{report.name}_cells.csv` lists every cell beyond {context['tol']:g}.",
        "",
        "| config | committed cell time (s) | status | rerun wall (s) | eigensolvers (records) | "
        "largest eigen residual / lambda_1 | max abs diff | max rel diff | metrics beyond tol | note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(str(row[k]) for k in row) + " |" for row in rows]
    report.with_suffix(".md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="fresh results root for the reruns")
    parser.add_argument("--committed", type=Path, default=Path("results"), help="root of the committed results")
    parser.add_argument("--stop-at", default="23:59", help="HH:MM UTC: start no config that would end later")
    parser.add_argument("--tol", type=float, default=1e-6, help="absolute difference reported as a change")
    parser.add_argument("--jobs", type=int, default=2, help="kpca-bench run --jobs (2 made the committed results)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these configs (by name)")
    parser.add_argument(
        "--report",
        type=Path,
        default=Path("results/benchmarks/full_profile_rerun"),
        help="writes REPORT.md, REPORT.csv and REPORT_cells.csv",
    )
    args = parser.parse_args()
    now = datetime.now(timezone.utc)
    hour, minute = map(int, args.stop_at.split(":"))
    deadline = now.replace(hour=hour, minute=minute, second=0).timestamp()
    context = {
        "started": now.strftime("%Y-%m-%d %H:%M UTC"),
        "arguments": " ".join(sys.argv[1:]),
        "jobs": args.jobs,
        "nice": os.nice(0),
        "tol": args.tol,
        "load_start": os.getloadavg(),
    }
    configs = [c for c in paper_configs() if args.only is None or c.stem in args.only]
    unknown = set(args.only or ()) - {c.stem for c in configs}
    if unknown:
        parser.error(f"--only: no paper config named {' '.join(sorted(unknown))}")
    costed = sorted((committed_cost(c, args.committed), c) for c in configs)
    rows, cells = [], []
    for cost, config in costed:
        row, differing = config_row(config, cost, args, deadline)
        rows.append(row)
        cells += differing
        print(f"{row['config']}: {row['status']} {row['wall_s']} s {row['beyond_tol']} {row['note']}", flush=True)
        context["now"] = datetime.now(timezone.utc).strftime("%H:%M UTC")
        write_report(args.report, rows, cells, context)


if __name__ == "__main__":
    main()
