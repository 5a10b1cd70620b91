"""Where a run ran: the environment stored once per results folder, in ``environment.json``.

Python, platform, host, CPU model and count, the BLAS libraries with their thread
counts (threadpoolctl), the GPU model, CUDA driver and GPU libraries' versions when
a run used a GPU, the versions of the packages that compute the numbers,
and kpca-bench's own version and git commit when it runs from a checkout. A
record carries its package versions; this file says the rest once. A folder
resumed on another machine (or after an upgrade) lists each distinct environment
with the time it was first seen.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from kpca_bench.devices import gpu_environment
from kpca_bench.experiment.progress import print_notice
from kpca_bench.experiment.store import read_state, write_atomic

ENVIRONMENT_FILE = "environment.json"
PACKAGES = (
    "numpy",
    "scipy",
    "scikit-learn",
    "pandas",
    "joblib",
    "threadpoolctl",
    "matplotlib",
    "pyod",
    "dask",
    "distributed",
    "pyarrow",
)


def cpu_model() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo), or what the platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def blas_libraries() -> list[dict]:
    """threadpoolctl's view of the BLAS / OpenMP libraries loaded: vendor, version, threads."""
    from threadpoolctl import threadpool_info

    return [
        {key: info.get(key) for key in ("user_api", "internal_api", "version", "num_threads", "architecture")}
        for info in threadpool_info()
    ]


def git_commit(package_dir: Path | None = None) -> str | None:
    """kpca-bench's git commit when it runs from a checkout (``+dirty`` with uncommitted changes), else None."""
    folder = package_dir or Path(__file__).resolve().parents[2]
    if not (folder / ".git").exists():
        return None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "")


def installed_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def environment(gpu_used: bool = False) -> dict:
    """This process's environment as plain JSON data; ``gpu_used``: the run asked for a CUDA device."""
    import kpca_bench

    gpu = gpu_environment(gpu_used)
    return {
        "kpca_bench": {"version": kpca_bench.__version__, "git_commit": git_commit()},
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "platform": platform.platform(),
        "host": platform.node(),
        "cpu": {
            "model": cpu_model(),
            "count": os.cpu_count(),
            "available": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        },
        "blas": blas_libraries(),
        "packages": installed_versions(),
        **({"gpu": gpu} if gpu is not None else {}),
    }


def write_environment(directory: Path, notify: Callable[[str], None] = print_notice, gpu_used: bool = False) -> Path:
    """Add this environment to ``directory/environment.json`` unless it is already the last one listed
    (``gpu_used``: the run asked for a CUDA device, so the environment names the GPU).

    A damaged file is moved aside whole (:func:`~kpca_bench.experiment.store.read_state`), keeping the
    history it holds, a new one is started, and ``notify`` says so.
    """
    path = Path(directory) / ENVIRONMENT_FILE
    current = environment(gpu_used)
    stored, damage = read_state(path, lambda data: isinstance(data.get("environments"), list))
    if damage:
        notify(f"{damage}; the environments it lists stay there, a new list starts in {path.name}")
    environments = stored["environments"] if stored else []
    if not environments or {k: v for k, v in environments[-1].items() if k != "first_seen"} != current:
        first_seen = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        environments.append({"first_seen": first_seen, **current})
        write_atomic(path, json.dumps({"environments": environments}, indent=2) + "\n")
    return path
