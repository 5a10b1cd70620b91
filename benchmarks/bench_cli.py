"""Start-up time of the command line: ``kpca-bench --help`` and every subcommand's ``--help``.

Each command runs ``--repeats`` times in a fresh process (as a user's shell does);
the table gives the median wall time and the load average before the runs.
Target: every line under 0.5 s on an idle machine.

    .venv/bin/python benchmarks/bench_cli.py            # the commands this kpca-bench has
    .venv/bin/python benchmarks/bench_cli.py --repeats 5 --commands run datasets
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

EXECUTABLE = Path(sys.executable).with_name("kpca-bench")
COMMANDS = [
    "run",
    "plan",
    "report",
    "compare",
    "export",
    "methods",
    "protocols",
    "datasets",
]


def timed(args: list[str]) -> float | None:
    start = time.perf_counter()
    done = subprocess.run([str(EXECUTABLE), *args], capture_output=True)
    elapsed = time.perf_counter() - start
    return elapsed if done.returncode == 0 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--commands", nargs="*", default=COMMANDS)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    print("| command | median (s) | min (s) | max (s) |")
    print("|---|---|---|---|")
    for command in [None, "--version", *args.commands]:
        argv = ["--help"] if command is None else (["--version"] if command == "--version" else [command, "--help"])
        times = [timed(argv) for _ in range(args.repeats)]
        if None in times:
            print(f"| `kpca-bench {' '.join(argv)}` | (not available) | | |")
            continue
        print(
            f"| `kpca-bench {' '.join(argv)}` | {statistics.median(times):.2f} | {min(times):.2f} | {max(times):.2f} |"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
