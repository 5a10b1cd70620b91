"""Run each benchmark case in a fresh Python process, so its peak memory is its own.

``getrusage(RUSAGE_SELF).ru_maxrss`` sees everything a process ever held,
BLAS/LAPACK workspace included (which ``tracemalloc`` misses), but only ever
grows: measuring two cases in one process would charge the first's peak to the
second. A benchmark script calls :func:`run_cases` from its ``main``; each
child re-runs the same script with ``--case ID`` and prints one JSON line.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
from pathlib import Path


def peak_gb() -> float:
    """Peak resident memory of this process in GiB (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def resident_gb() -> float:
    """Resident memory of this process now, in GiB (``VmRSS`` of ``/proc/self/status``; Linux only)."""
    kib = re.search(r"^VmRSS:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.MULTILINE).group(1)
    return int(kib) / 2**20


def run_cases(script: str, cases: dict[str, str], extra_args: list[str], skip=()) -> dict[str, dict]:
    """``{label: result}`` for every case not skipped, each from its own ``script --case ID`` process.

    A case that fails prints its error output and stops the benchmark.
    """
    results = {}
    for label, case in cases.items():
        if case in skip:
            continue
        out = subprocess.run([sys.executable, script, "--case", case, *extra_args], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"case {case} failed:\n{out.stderr}")
        results[label] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"  {label}: {results[label]['seconds']:.1f} s, peak {results[label]['peak_gb']:.2f} GB", flush=True)
    return results
