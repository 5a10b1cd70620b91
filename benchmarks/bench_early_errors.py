"""CPU time of the command line's answer to bad input, per case: the process's own user + system CPU.

Each case runs ``--repeats`` times in a fresh process (``resource.getrusage(RUSAGE_CHILDREN)`` around it);
the table gives the median and the range, with the load average before the runs. Target: a YAML
syntax error costs at most 0.3 s of CPU (it is answered before numpy, scikit-learn and pandas are imported).
A config that parses but is not valid still pays for them (its checks need the registries): shown for contrast.

    .venv/bin/python benchmarks/bench_early_errors.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

EXECUTABLE = Path(sys.executable).with_name("kpca-bench")
# (case, config text or None for no file, options)
CASES = [
    ("--version", None, ["--version"]),
    ("YAML syntax error", "name: x\ndataset: {name: [\n", []),
    ("no such config file", None, []),
    ("unknown --profile", "name: x\n", ["--profile", "huge"]),
    ("unknown key (checked with the registries)", "name: x\ncolour: blue\n", []),
]


def cpu_seconds(args: list[str]) -> float:
    """User + system CPU of one fresh ``kpca-bench ARGS`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([str(EXECUTABLE), *args], capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def case_args(folder: Path, text: str | None, options: list[str]) -> list[str]:
    if options == ["--version"]:
        return options
    config = folder / "config.yaml"
    if text is None:
        return ["run", str(folder / "missing.yaml"), *options]
    config.write_text(text)
    return ["run", str(config), "--out", str(folder / "out"), *options]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    print("| case | median CPU (s) | min (s) | max (s) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, options in CASES:
            times = [cpu_seconds(case_args(Path(tmp), text, options)) for _ in range(args.repeats)]
            print(f"| {name} | {statistics.median(times):.2f} | {min(times):.2f} | {max(times):.2f} |")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
