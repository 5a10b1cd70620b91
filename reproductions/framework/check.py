"""``python -m reproductions bless`` and ``check``: record a run's quick-profile numbers, and hold later runs to the reference."""

from __future__ import annotations

from pathlib import Path

import typer

from kpca_bench.cli.options import (
    DEFAULT_CONFIG_DIR,
    JOBS,
    MAX_MEMORY,
    OFFLINE,
    OUT,
    QUIET,
    SCHEDULER,
    profile_option,
    worker_count,
)
from kpca_bench.cli.render import fail
from kpca_bench.cli.run import require_no_failures, run_config
from kpca_bench.errors import KpcaBenchError


def bless(
    configs: list[Path] = typer.Argument(..., help="Configs whose quick-profile numbers become the reference."),
    out: Path = OUT,
    jobs: int = JOBS,
    offline: bool = OFFLINE,
    quiet: bool = QUIET,
    scheduler: str = SCHEDULER,
    max_memory: float = MAX_MEMORY,
):
    """Run configs at the quick profile and record their numbers in OUT/reference/quick.csv.

    Review the diff of quick.csv like code: it is what 'python -m reproductions check' holds later runs to.
    """
    try:
        n_jobs = worker_count(jobs)
        for path in configs:
            outcome = run_config(
                path,
                profile="quick",
                out=out,
                n_jobs=n_jobs,
                offline=offline,
                quiet=quiet,
                scheduler=scheduler,
                max_memory=max_memory,
            ).outcome
            require_no_failures(outcome)
            from reproductions.framework.compare import blessed_rows, write_blessed

            written = write_blessed(out, blessed_rows(path.as_posix(), outcome.directory))
            typer.echo(f"blessed {path} in {written}")
    except KpcaBenchError as error:
        fail(error)


def check(
    configs: list[Path] = typer.Argument(
        None,
        help="Configs to check (default: every blessed config, or every config with a reference for --profile full).",
    ),
    profile: str = profile_option("quick"),
    out: Path = OUT,
    jobs: int = JOBS,
    offline: bool = OFFLINE,
    quiet: bool = QUIET,
    scheduler: str = SCHEDULER,
    max_memory: float = MAX_MEMORY,
):
    """Run configs (reusing finished cells) and compare with the reference numbers.

    quick: against the blessed numbers (OUT/reference/quick.csv); full: against
    the papers' numbers (reproductions/<paper>/reference/numbers.yaml). Prints config, method,
    metric, reference, ours, delta, tolerance, ok; exit code 1 on any miss. A full check never rewrites
    OUT/<name>/ (committed runs): it runs in a copy of each run's records under OUT/scratch/check/.
    """
    import pandas as pd

    from reproductions.framework.compare import compare_run, format_comparison

    try:
        n_jobs = worker_count(jobs)
        paths = configs or default_check_configs(profile, out)
        tables = []
        for path in paths:
            root = out if profile == "quick" else scratch_copy(path, out)
            results = run_config(
                path,
                profile=profile,
                out=root,
                n_jobs=n_jobs,
                offline=offline,
                quiet=quiet,
                scheduler=scheduler,
                max_memory=max_memory,
            )
            require_no_failures(results.outcome)
            tables.append(compare_run(out, path.as_posix(), results.config, results.folder))
    except KpcaBenchError as error:
        fail(error)
    table = pd.concat(tables, ignore_index=True)
    typer.echo(format_comparison(table))
    failed = int((~table["ok"]).sum())
    typer.echo(f"{len(table) - failed} of {len(table)} numbers within tolerance")
    if failed:
        raise typer.Exit(1)


SCRATCH = Path("scratch") / "check"


def scratch_copy(config_path: Path, out: Path) -> Path:
    """The results root a full check of ``config_path`` runs in: ``OUT/scratch/check/``, holding a copy of the
    records of ``OUT/<name>/`` (copied again when those are newer), so finished cells are reused and the tables
    are rebuilt there, never over the committed run's files."""
    import shutil

    from kpca_bench.experiment.config_parser import load_config
    from kpca_bench.experiment.planning import experiment_directory
    from kpca_bench.experiment.store import RECORDS_FILE, TABLE_FILE

    root = Path(out) / SCRATCH
    config = load_config(config_path)
    for name in (TABLE_FILE, RECORDS_FILE):
        source = experiment_directory(config, out) / name
        target = experiment_directory(config, root) / name
        if source.is_file() and (not target.is_file() or source.stat().st_mtime > target.stat().st_mtime):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return root


def default_check_configs(profile: str, out: Path) -> list[Path]:
    from reproductions.framework.compare import load_blessed
    from kpca_bench.experiment.config_parser import load_config

    if profile == "quick":
        paths = sorted(set(load_blessed(out)["config"]))
    else:
        from reproductions.framework.loader import load_reproductions

        shipped = [
            *sorted(DEFAULT_CONFIG_DIR.glob("*.yaml")),
            *(p for reproduction in load_reproductions().values() for p in reproduction.config_paths()),
        ]
        paths = [p.as_posix() for p in shipped if load_config(p).reference]
    if not paths:
        raise KpcaBenchError(f"no configs to check at the {profile} profile; name them, or bless some first")
    return [Path(p) for p in paths]
