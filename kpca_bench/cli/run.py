"""``kpca-bench run`` and ``plan``: run an experiment through :func:`kpca_bench.run`, or show what it would do."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from kpca_bench.cli.options import (
    FAIL_FAST,
    JOBS,
    MAX_MEMORY,
    NO_WAIT,
    OFFLINE,
    OUT,
    QUIET,
    RETRY,
    SCHEDULER,
    profile_option,
    worker_count,
)
from kpca_bench.cli.render import fail, print_plan, print_run_summary
from kpca_bench.errors import KpcaBenchError
from kpca_bench.validation import as_flag, check_run_arguments


def check_before_loading(config: Path, profile: str, **options) -> None:
    """The checks that need no numeric library, so that their problems are reported before numpy, scikit-learn or
    pandas are imported (docs/failures.md): the options, named as flags (:func:`kpca_bench.validation.as_flag`),
    and the config file's reading and YAML."""
    from kpca_bench.experiment.config_file import read_config

    check_run_arguments({"profile": profile, **options}, as_flag)
    read_config(config)


def load_with_options(
    config: Path,
    profile: str,
    *,
    trials: int | None = None,
    seed: int | None = None,
    scheduler: str | None = None,
    max_memory: float | None = None,
):
    """The config at ``config`` (a file, or a packaged config by name) with the options that override it; a bad
    option is named as a flag (``--trials``)."""
    from kpca_bench.experiment.config_parser import load_config

    return load_config(config, profile).with_overrides(
        trials=trials, seed=seed, scheduler=scheduler, max_memory_mb=max_memory, spell=as_flag
    )


def run_config(
    path: Path,
    *,
    profile: str,
    out: Path,
    n_jobs: int,
    offline: bool,
    quiet: bool,
    trials=None,
    seed=None,
    scheduler=None,
    max_memory=None,
    **run_options,
):
    """:func:`kpca_bench.run` of the config at ``path`` with its options (:func:`load_with_options`) and ``n_jobs``
    workers (:func:`worker_count`); Ctrl-C, SIGTERM or SIGHUP say how to resume, in one line."""
    from kpca_bench.api import run as run_experiment
    from kpca_bench.experiment.interrupts import Stopped, stop_signals_interrupt

    try:
        with stop_signals_interrupt():
            loaded = load_with_options(
                path, profile, trials=trials, seed=seed, scheduler=scheduler, max_memory=max_memory
            )
            return run_experiment(loaded, out=out, jobs=n_jobs, offline=offline, quiet=quiet, **run_options)
    except KeyboardInterrupt as interrupt:
        cause = f"stopped by {interrupt.signal_name}" if isinstance(interrupt, Stopped) else "interrupted"
        typer.echo(
            f"{cause}: finished cells are saved under {out} and the tables show what finished; "
            "run the same command again to resume",
            err=True,
        )
        raise typer.Exit(getattr(interrupt, "exit_code", 130)) from None


def print_html_path(folder: Path) -> None:
    """The line a run ends with: where its HTML report is (none when its tables could not be written)."""
    from kpca_bench.report.html import REPORT_FILE

    if (folder / REPORT_FILE).is_file():
        typer.echo(f"HTML report (opens offline): {folder / REPORT_FILE}")


def require_no_failures(outcome) -> None:
    """Raise :class:`CellsFailed` (exit code 1) if any cell of the run failed; its tables are written by then."""
    from kpca_bench.experiment.runner import CellsFailed

    if outcome.failures:
        raise CellsFailed.of(outcome)


def run(
    config: Path = typer.Argument(
        ..., help="Experiment config (YAML), e.g. configs/quickstart.yaml, or a packaged one by name, e.g. quickstart."
    ),
    out: Path = OUT,
    jobs: int = JOBS,
    trials: int = typer.Option(None, "--trials", min=1, help="Override the config's number of random splits."),
    seed: int = typer.Option(None, "--seed", min=0, help="Override the config's seed."),
    profile: str = profile_option("full"),
    offline: bool = OFFLINE,
    quiet: bool = QUIET,
    scheduler: str = SCHEDULER,
    max_memory: float = MAX_MEMORY,
    retry_failed: bool = RETRY,
    fail_fast: bool = FAIL_FAST,
    no_wait: bool = NO_WAIT,
    reuse_from: Path = typer.Option(
        None,
        "--reuse-from",
        metavar="RESULTS_DIR",
        help="First copy in the finished records of another run's folder whose cells "
        "this config plans (same data only), e.g. a variant that changes only "
        "the report; only the cells it lacks run.",
    ),
    html: bool = typer.Option(
        True,
        "--html/--no-html",
        help="Also write the tables and figures as one HTML page that opens offline, OUT/<name>/report.html.",
    ),
):
    """Run an experiment: every trial x method x setting, resuming what is already done.

    Writes trials.csv (one row per trial and setting), summary.csv / summary.md
    (mean ± std per method, trials done / planned, failures), PNG figures and
    report.html (all of them in one page; --no-html: not) to OUT/<name>/.
    Interrupt at any time: finished cells are kept and the same command resumes. A failed cell is recorded with its error and run again next
    time; exit code 1 if any cell failed, 2 on bad input or a disk problem.
    """
    start = time.perf_counter()
    try:
        check_before_loading(config, profile, trials=trials, seed=seed, scheduler=scheduler, max_memory=max_memory)
        results = run_config(
            config,
            profile=profile,
            out=out,
            n_jobs=worker_count(jobs),
            offline=offline,
            quiet=quiet,
            trials=trials,
            seed=seed,
            scheduler=scheduler,
            max_memory=max_memory,
            retry_failed=retry_failed,
            fail_fast=fail_fast,
            wait=not no_wait,
            reuse_from=reuse_from,
            html=html,
        )
        if not quiet:
            print_run_summary(results, time.perf_counter() - start)
            if html:
                print_html_path(results.folder)
        require_no_failures(results.outcome)
    except KpcaBenchError as error:
        fail(error)


def plan(
    config: Path = typer.Argument(..., help="Experiment config (YAML), or a packaged one by name (quickstart)."),
    out: Path = OUT,
    jobs: int = JOBS,
    trials: int = typer.Option(None, "--trials", min=1, help="Override the config's number of random splits."),
    profile: str = profile_option("full"),
):
    """Show what 'run' would do, without loading data or running anything.

    Dataset, protocol, and per method entry: settings, cells, cells already
    stored in OUT, and the time left estimated from the stored cells' wall times.
    """
    try:
        check_before_loading(config, profile, trials=trials)
        from kpca_bench.experiment.plan import plan_run

        n_jobs = worker_count(jobs)
        loaded = load_with_options(config, profile, trials=trials)
        result = plan_run(loaded, out)
    except KpcaBenchError as error:
        fail(error)
    print_plan(config, result, n_jobs)
