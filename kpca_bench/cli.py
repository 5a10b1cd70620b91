"""The ``kpca-bench`` command line: thin typed wrappers over the library's functions."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd
import typer

from kpca_bench.datasets.cli import app as datasets_app
from kpca_bench.errors import KpcaBenchError
from kpca_bench.papers import PAPERS
from kpca_bench.report import run_and_report
from kpca_bench.report.compare import blessed_rows, compare_run, format_comparison, load_blessed, write_blessed
from kpca_bench.report.overview import runnable_paper_configs, write_overview
from kpca_bench.run.config import DEFAULT_CONFIG_DIR, PROFILES, load_config
from kpca_bench.run.interrupts import Stopped, stop_signals_interrupt
from kpca_bench.run.progress import make_progress
from kpca_bench.run.runner import CellsFailed, RunOutcome

app = typer.Typer(
    help="Reproduce kernel-PCA outlier-detection benchmarks from YAML configs.\n\n"
         "Start with: kpca-bench run configs/quickstart.yaml",
    rich_markup_mode="rich",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


app.add_typer(datasets_app, name="datasets", help="List, verify and fetch the datasets configs can name.")


@app.callback()
def main() -> None:
    """Reproduce kernel-PCA outlier-detection benchmarks from YAML configs."""


def fail(error: KpcaBenchError) -> None:
    """Report a user-fixable problem as one line per problem; exit code 2 (1 for failed cells)."""
    for line in str(error).splitlines():
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(error.exit_code)


OUT = typer.Option(Path("results"), "--out", help="Results root: OUT/<name>/ (full profile) or OUT/<profile>/<name>/.")
JOBS = typer.Option(1, "--jobs", "-j", help="Cells run in parallel (-1: one per CPU core); with --scheduler local, "
                                             "the LocalCluster's workers.")
# "\[" keeps rich from reading [dask] as markup.
SCHEDULER = typer.Option(None, "--scheduler", metavar="ADDRESS",
                         help="Run the cells on a Dask cluster: its scheduler's address (tcp://HOST:8786), or "
                              "'local' to start a LocalCluster. Needs pip install \"kpca-bench\\[dask]\".")
MAX_MEMORY = typer.Option(None, "--max-memory", metavar="MB",
                          help="Working-memory budget of each cell in MiB: test-vs-train kernels are built and "
                               "scored in row blocks within it (default 1024, scikit-learn's).")
OFFLINE = typer.Option(False, "--offline", help="Never download: use only the local data directories.")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress output.")
RETRY = typer.Option(True, "--retry-failed/--no-retry",
                     help="Run the cells that failed last time again (default), or keep their failed records.")
FAIL_FAST = typer.Option(False, "--fail-fast", help="Stop at the first failed cell (tables are still written).")
NO_WAIT = typer.Option(False, "--no-wait", help="If another run is writing the results folder, exit at once (code 2) "
                                                "instead of waiting for it.")
CONFIGS = typer.Option(DEFAULT_CONFIG_DIR, "--configs", help="Folder of the experiment configs.")


def profile_option(default: str):
    return typer.Option(default, "--profile", help=f"Config profile: {' | '.join(PROFILES)} (quick: small sizes for CI).")


def run_config(path: Path, *, profile: str, out: Path, jobs: int, offline: bool, quiet: bool, trials=None, seed=None,
               scheduler=None, max_memory=None, **run_options):
    """Load, run and return (config, outcome); Ctrl-C, SIGTERM or SIGHUP say how to resume, in one line."""
    config = load_config(path, profile).with_overrides(trials=trials, seed=seed, scheduler=scheduler,
                                                       max_memory_mb=max_memory)
    n_jobs = os.cpu_count() if jobs == -1 else max(jobs, 1)
    try:
        with stop_signals_interrupt():
            return config, run_and_report(config, out, jobs=n_jobs, offline=offline, progress=make_progress(quiet),
                                          **run_options)
    except KeyboardInterrupt as interrupt:
        cause = f"stopped by {interrupt.signal_name}" if isinstance(interrupt, Stopped) else "interrupted"
        typer.echo(f"{cause}: finished cells are saved under {out} and the tables show what finished; "
                   "run the same command again to resume", err=True)
        raise typer.Exit(getattr(interrupt, "exit_code", 130)) from None


def require_no_failures(outcome: RunOutcome) -> None:
    """Raise :class:`CellsFailed` (exit code 1) if any cell of the run failed; its tables are written by then."""
    if outcome.failures:
        raise CellsFailed.of(outcome)


@app.command()
def run(
    config: Path = typer.Argument(..., help="Experiment config (YAML), e.g. configs/quickstart.yaml."),
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
):
    """Run an experiment: every trial x method x setting, resuming what is already done.

    Writes trials.csv (one row per trial and setting), summary.csv / summary.md
    (mean ± std per method, trials done / planned, failures) and PNG figures to
    OUT/<name>/. Interrupt at any time: finished cells are kept and the same
    command resumes. A failed cell is recorded with its error and run again next
    time; exit code 1 if any cell failed, 2 on bad input or a disk problem.
    """
    start = time.perf_counter()
    try:
        _, outcome = run_config(config, profile=profile, out=out, jobs=jobs, offline=offline, quiet=quiet,
                                trials=trials, seed=seed, scheduler=scheduler, max_memory=max_memory,
                                retry_failed=retry_failed, fail_fast=fail_fast, wait=not no_wait)
        if not quiet:
            typer.echo(f"{outcome.n_run} cells run, {outcome.n_reused} reused in {time.perf_counter() - start:.1f} s; "
                       f"results in {outcome.directory}")
            summary = outcome.directory / "summary.md"
            if summary.exists():
                typer.echo(summary.read_text())
        require_no_failures(outcome)
    except KpcaBenchError as error:
        fail(error)


@app.command()
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

    Review the diff of quick.csv like code: it is what 'kpca-bench check' holds later runs to.
    """
    try:
        for path in configs:
            _, outcome = run_config(path, profile="quick", out=out, jobs=jobs, offline=offline, quiet=quiet,
                                    scheduler=scheduler, max_memory=max_memory)
            require_no_failures(outcome)
            written = write_blessed(out, blessed_rows(path.as_posix(), outcome.directory))
            typer.echo(f"blessed {path} in {written}")
    except KpcaBenchError as error:
        fail(error)


@app.command()
def check(
    configs: list[Path] = typer.Argument(None, help="Configs to check (default: every blessed config, or every "
                                                    "config with a reference for --profile full)."),
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
    the papers' numbers (OUT/reference/papers.yaml). Prints config, method,
    metric, reference, ours, delta, tolerance, ok; exit code 1 on any miss.
    """
    try:
        paths = configs or default_check_configs(profile, out)
        tables = []
        for path in paths:
            config, outcome = run_config(path, profile=profile, out=out, jobs=jobs, offline=offline, quiet=quiet,
                                         scheduler=scheduler, max_memory=max_memory)
            require_no_failures(outcome)
            tables.append(compare_run(out, path.as_posix(), config, outcome.directory))
    except KpcaBenchError as error:
        fail(error)
    table = pd.concat(tables, ignore_index=True)
    typer.echo(format_comparison(table))
    failed = int((~table["ok"]).sum())
    typer.echo(f"{len(table) - failed} of {len(table)} numbers within tolerance")
    if failed:
        raise typer.Exit(1)


@app.command()
def report(
    results_dir: Path = typer.Argument(None, metavar="[RESULTS_DIR]",
                                       help="A run's results folder: rebuild its tables and figures from its "
                                            "records (a suite: also its ranks and tests across datasets)."),
    out: Path = OUT,
    configs: Path = CONFIGS,
    list_configs: bool = typer.Option(False, "--list-configs",
                                      help="Only print the paper configs whose data are here, one per line (what "
                                           "make all-figures runs); skipped ones go to stderr with the reason."),
):
    """Write OUT/REPORT.md: per paper, its numbers beside ours, the figures, the analyses.

    With RESULTS_DIR: rebuild that run's tables and figures from its records instead (any run; a
    suite's statistics across datasets, and its rank table printed). Reads only what runs left on
    disk; run 'make all-figures' to rebuild the runs first.
    """
    try:
        if results_dir is not None:
            from kpca_bench.report.rebuild import rebuild

            rebuilt = rebuild(results_dir, configs)
            typer.echo(rebuilt.text)
            typer.echo(f"wrote the tables and figures of {rebuilt.config.name} in {results_dir}")
            return
        if list_configs:
            print_paper_configs(configs, out)
            return
        typer.echo(f"wrote {write_overview(out, configs)}")
    except KpcaBenchError as error:
        fail(error)


@app.command()
def analyse(
    papers: list[str] = typer.Argument(None, metavar="[PAPER]...", help=f"Papers to analyse: {', '.join(PAPERS)}."),
    all_papers: bool = typer.Option(False, "--all", help="Every paper."),
    out: Path = OUT,
    configs: Path = CONFIGS,
):
    """Write the papers' own tables, figures and write-ups from their finished full runs.

    Reads only what runs left on disk (run 'make all-figures' or the papers' configs first).
    """
    keys = list(PAPERS) if all_papers else papers or []
    unknown = [key for key in keys if key not in PAPERS]
    if not keys or unknown:
        fail(KpcaBenchError(f"name papers to analyse ({', '.join(PAPERS)}) or give --all"
                            + (f"; unknown: {', '.join(unknown)}" if unknown else "")))
    try:
        for key in keys:
            paper = PAPERS[key]
            for analysis in paper.analyses:
                for path in analysis(out, paper.config_paths(configs)):
                    typer.echo(f"{key}: wrote {path}")
    except KpcaBenchError as error:
        fail(error)


def print_paper_configs(config_dir: Path, out: Path) -> None:
    runnable, skipped = runnable_paper_configs(config_dir, out)
    for path, reason in skipped:
        typer.echo(f"skipped {path}: {reason}", err=True)
    for path in runnable:
        typer.echo(path.as_posix())


def default_check_configs(profile: str, out: Path) -> list[Path]:
    if profile == "quick":
        paths = sorted(set(load_blessed(out)["config"]))
    else:
        paths = [p.as_posix() for p in sorted(DEFAULT_CONFIG_DIR.glob("*.yaml")) if load_config(p).reference]
    if not paths:
        raise KpcaBenchError(f"no configs to check at the {profile} profile; name them, or bless some first")
    return [Path(p) for p in paths]
