"""The options several commands share, and ``--jobs`` read as a number of workers."""

from __future__ import annotations

from pathlib import Path

import typer

from kpca_bench.cli.render import fail
from kpca_bench.errors import KpcaBenchError

# Mirrors of names defined in heavier modules (tests/test_cli.py checks that they agree).
PROFILE_NAMES = ("full", "quick")  # kpca_bench.experiment.config.PROFILES
DEFAULT_CONFIG_DIR = Path("configs")  # kpca_bench.experiment.config.DEFAULT_CONFIG_DIR
EXPORT_FORMATS = ("parquet", "json", "csv")  # kpca_bench.experiment.export.FORMATS


def results_root(value) -> Path:
    """``--out`` as a folder; an empty one (``--out ''``, which pathlib reads as the current folder) is an error."""
    if not str(value).strip():
        fail(
            KpcaBenchError(
                "--out: an empty path names no folder (the run would write into the current one); "
                "give a folder, e.g. --out results"
            )
        )
    return Path(value)


OUT = typer.Option(
    Path("results"),
    "--out",
    parser=results_root,
    help="Results root: OUT/<name>/ (full profile) or OUT/<profile>/<name>/.",
)
JOBS = typer.Option(
    1,
    "--jobs",
    "-j",
    help="Cells run in parallel; negative as in joblib: -1 one per CPU core, "
    "-2 all cores but one, ...; 0 or a negative value that leaves no "
    "core is an error; more than the usable cores start one per core "
    "(said once). With --scheduler local, the LocalCluster's workers.",
)
# "\[" keeps rich from reading [dask] as markup.
SCHEDULER = typer.Option(
    None,
    "--scheduler",
    metavar="ADDRESS",
    help="Run the cells on a Dask cluster: its scheduler's address (tcp://HOST:8786), or "
    "'local' to start a LocalCluster. Needs pip install \"kpca-bench\\[dask]\".",
)
MAX_MEMORY = typer.Option(
    None,
    "--max-memory",
    metavar="MB",
    help="Working-memory budget of each cell in MiB: test-vs-train kernels are built and "
    "scored in row blocks within it (default 1024, scikit-learn's).",
)
OFFLINE = typer.Option(False, "--offline", help="Never download: use only the local data directories.")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress output.")
RETRY = typer.Option(
    True,
    "--retry-failed/--no-retry",
    help="Run the cells that failed last time again (default), or keep their failed records.",
)
FAIL_FAST = typer.Option(False, "--fail-fast", help="Stop at the first failed cell (tables are still written).")
NO_WAIT = typer.Option(
    False,
    "--no-wait",
    help="If another run is writing the results folder, exit at once (code 2) instead of waiting for it.",
)
CONFIGS = typer.Option(
    [DEFAULT_CONFIG_DIR],
    "--configs",
    help="Folder of experiment configs, searched with its sub-folders for a run without run.json; repeat it for "
    "more folders.",
)


def profile_option(default: str):
    return typer.Option(
        default, "--profile", help=f"Config profile: {' | '.join(PROFILE_NAMES)} (quick: small sizes for CI)."
    )


def worker_count(jobs: int) -> int:
    """``--jobs`` as a number of workers, with joblib's meaning for negative values (-1: one per core, -2: all
    but one, ...). 0, or a negative value that leaves no core, is an error; more workers than usable cores are
    as many workers as cores, said once on stderr (the library bounds them the same way,
    :func:`kpca_bench.experiment.execution.bounded_workers`, in its caller's words)."""
    from joblib import cpu_count

    cores = cpu_count()
    if jobs == 0:
        raise KpcaBenchError(
            "--jobs: 0 runs nothing; give a number of workers (1, 2, ...) or a negative value "
            "as in joblib (-1: one per CPU core, -2: all but one)"
        )
    if jobs < 0 and cores + 1 + jobs < 1:
        raise KpcaBenchError(
            f"--jobs {jobs}: means all CPU cores but {-jobs - 1}, and this machine has {cores}, "
            f"so no worker is left; give -1 to -{cores} or a number of workers (1, 2, ...)"
        )
    workers = jobs if jobs > 0 else cores + 1 + jobs
    if workers > cores:
        typer.echo(
            f"note: --jobs {jobs} asks for more workers than this machine's {cores} usable CPU cores; starting {cores}",
            err=True,
        )
    return min(workers, cores)
