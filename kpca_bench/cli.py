"""The ``kpca-bench`` command line: thin typed wrappers over the library's functions.

Importing this module imports typer and rich only: every command imports what it
needs (scikit-learn, pandas, matplotlib, the registries) when it runs, so that
``kpca-bench --help`` answers at once (tests/test_cli.py checks it).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer

from kpca_bench import __version__
from kpca_bench.errors import KpcaBenchError

# Mirrors of names defined in heavier modules (tests/test_cli.py checks that they agree).
PROFILE_NAMES = ("full", "quick")  # kpca_bench.experiment.config.PROFILES
DEFAULT_CONFIG_DIR = Path("configs")  # kpca_bench.experiment.config.DEFAULT_CONFIG_DIR
DEFAULT_REPRODUCTIONS_DIR = Path("reproductions")  # kpca_bench.report.reproductions.DEFAULT_REPRODUCTIONS_DIR
EXPORT_FORMATS = ("parquet", "json", "csv")  # kpca_bench.experiment.export.FORMATS

app = typer.Typer(
    help="Reproduce kernel-PCA outlier-detection benchmarks from YAML configs.\n\n"
         "Start with: kpca-bench run configs/quickstart.yaml",
    rich_markup_mode="rich",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


datasets_app = typer.Typer(help="List, verify and fetch the benchmark datasets.", no_args_is_help=True)
app.add_typer(datasets_app, name="datasets", help="List, verify and fetch the datasets configs can name.")


def show_version(value: bool) -> None:
    if value:
        typer.echo(f"kpca-bench {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: bool = typer.Option(False, "--version", callback=show_version, is_eager=True,
                                      help="Print the version and exit.")) -> None:
    """Reproduce kernel-PCA outlier-detection benchmarks from YAML configs."""


def fail(error: KpcaBenchError) -> None:
    """Report a user-fixable problem as one line per problem; exit code 2 (1 for failed cells)."""
    for line in str(error).splitlines():
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(error.exit_code)


OUT = typer.Option(Path("results"), "--out", help="Results root: OUT/<name>/ (full profile) or OUT/<profile>/<name>/.")
JOBS = typer.Option(1, "--jobs", "-j", help="Cells run in parallel; negative as in joblib: -1 one per CPU core, "
                                             "-2 all cores but one, ...; 0 or a negative value that leaves no "
                                             "core is an error, more workers than cores a note. With --scheduler "
                                             "local, the LocalCluster's workers.")
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
REPRODUCTIONS = typer.Option(DEFAULT_REPRODUCTIONS_DIR, "--reproductions",
                             help="Folder of the reproductions: one folder per paper.")


def profile_option(default: str):
    return typer.Option(default, "--profile", help=f"Config profile: {' | '.join(PROFILE_NAMES)} (quick: small sizes "
                                                   "for CI).")


def worker_count(jobs: int) -> int:
    """``--jobs`` as a number of workers, with joblib's meaning for negative values (-1: one per core, -2: all
    but one, ...). 0, or a negative value that leaves no core, is an error; more workers than cores is allowed and
    said once on stderr (they share the cores: slower, the same numbers)."""
    from joblib import cpu_count

    cores = cpu_count()
    if jobs == 0:
        raise KpcaBenchError("--jobs: 0 runs nothing; give a number of workers (1, 2, ...) or a negative value "
                             "as in joblib (-1: one per CPU core, -2: all but one)")
    if jobs < 0 and cores + 1 + jobs < 1:
        raise KpcaBenchError(f"--jobs {jobs}: means all CPU cores but {-jobs - 1}, and this machine has {cores}, "
                             f"so no worker is left; give -1 to -{cores} or a number of workers (1, 2, ...)")
    workers = jobs if jobs > 0 else cores + 1 + jobs
    if workers > cores:
        typer.echo(f"note: --jobs {jobs} starts more workers than this machine's {cores} CPU cores; they share "
                   "the cores (slower, the same numbers)", err=True)
    return workers


def run_config(path: Path, *, profile: str, out: Path, n_jobs: int, offline: bool, quiet: bool, **run_options):
    """:func:`kpca_bench.run` of the config at ``path`` with ``n_jobs`` workers (:func:`worker_count`); Ctrl-C,
    SIGTERM or SIGHUP say how to resume, in one line."""
    from kpca_bench.api import run as run_experiment
    from kpca_bench.experiment.interrupts import Stopped, stop_signals_interrupt

    try:
        with stop_signals_interrupt():
            return run_experiment(path, profile=profile, out=out, jobs=n_jobs, offline=offline, quiet=quiet,
                                  **run_options)
    except KeyboardInterrupt as interrupt:
        cause = f"stopped by {interrupt.signal_name}" if isinstance(interrupt, Stopped) else "interrupted"
        typer.echo(f"{cause}: finished cells are saved under {out} and the tables show what finished; "
                   "run the same command again to resume", err=True)
        raise typer.Exit(getattr(interrupt, "exit_code", 130)) from None


def require_no_failures(outcome) -> None:
    """Raise :class:`CellsFailed` (exit code 1) if any cell of the run failed; its tables are written by then."""
    from kpca_bench.experiment.runner import CellsFailed

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
    reuse_from: Path = typer.Option(None, "--reuse-from", metavar="RESULTS_DIR",
                                    help="First copy in the finished records of another run's folder whose cells "
                                         "this config plans (same data only), e.g. a variant that changes only "
                                         "the report; only the cells it lacks run."),
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
        results = run_config(config, profile=profile, out=out, n_jobs=worker_count(jobs), offline=offline,
                             quiet=quiet, trials=trials, seed=seed, scheduler=scheduler, max_memory=max_memory,
                             retry_failed=retry_failed, fail_fast=fail_fast, wait=not no_wait, reuse_from=reuse_from)
        if not quiet:
            print_run_summary(results, time.perf_counter() - start)
        require_no_failures(results.outcome)
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
        n_jobs = worker_count(jobs)
        for path in configs:
            outcome = run_config(path, profile="quick", out=out, n_jobs=n_jobs, offline=offline, quiet=quiet,
                                 scheduler=scheduler, max_memory=max_memory).outcome
            require_no_failures(outcome)
            from kpca_bench.report.compare import blessed_rows, write_blessed

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
    import pandas as pd

    from kpca_bench.report.compare import compare_run, format_comparison

    try:
        n_jobs = worker_count(jobs)
        paths = configs or default_check_configs(profile, out)
        tables = []
        for path in paths:
            results = run_config(path, profile=profile, out=out, n_jobs=n_jobs, offline=offline, quiet=quiet,
                                 scheduler=scheduler, max_memory=max_memory)
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


@app.command()
def report(
    results_dir: Path = typer.Argument(None, metavar="[RESULTS_DIR]",
                                       help="A run's results folder: rebuild its tables and figures from its "
                                            "records (a suite: also its ranks and tests across datasets)."),
    out: Path = OUT,
    configs: Path = CONFIGS,
    reproductions: Path = REPRODUCTIONS,
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

            rebuilt = rebuild(results_dir, configs, reproductions_dir=reproductions)
            typer.echo(rebuilt.text)
            typer.echo(f"wrote the tables and figures of {rebuilt.config.name} in {results_dir}")
            require_no_failures(rebuilt)
            return
        if list_configs:
            print_paper_configs(reproductions, out)
            return
        from kpca_bench.report.overview import write_overview

        typer.echo(f"wrote {write_overview(out, configs, reproductions)}")
    except KpcaBenchError as error:
        fail(error)


@app.command()
def analyse(
    papers: list[str] = typer.Argument(None, metavar="[PAPER]...",
                                       help="Papers to analyse: folder names in the reproductions folder."),
    all_papers: bool = typer.Option(False, "--all", help="Every paper."),
    out: Path = OUT,
    reproductions: Path = REPRODUCTIONS,
):
    """Write the papers' own tables, figures and write-ups from their finished full runs.

    Reads only what runs left on disk (run 'make all-figures' or the papers' configs first).
    """
    from kpca_bench.report.reproductions import load_reproductions

    try:
        found = load_reproductions(reproductions)
        keys = list(found) if all_papers else papers or []
        unknown = [key for key in keys if key not in found]
        if not keys or unknown:
            raise KpcaBenchError(f"name papers to analyse ({', '.join(found)}) or give --all"
                                 + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
        for key in keys:
            reproduction = found[key]
            for analysis in reproduction.analyses:
                for path in analysis(out, reproduction.config_paths()):
                    typer.echo(f"{key}: wrote {path}")
    except KpcaBenchError as error:
        fail(error)


def print_paper_configs(reproductions_dir: Path, out: Path) -> None:
    from kpca_bench.report.overview import runnable_paper_configs

    runnable, skipped = runnable_paper_configs(reproductions_dir, out)
    for path, reason in skipped:
        typer.echo(f"skipped {path}: {reason}", err=True)
    for path in runnable:
        typer.echo(path.as_posix())


def default_check_configs(profile: str, out: Path) -> list[Path]:
    from kpca_bench.report.compare import load_blessed
    from kpca_bench.experiment.config import load_config

    if profile == "quick":
        paths = sorted(set(load_blessed(out)["config"]))
    else:
        from kpca_bench.report.reproductions import load_reproductions

        shipped = [*sorted(DEFAULT_CONFIG_DIR.glob("*.yaml")),
                   *(p for reproduction in load_reproductions().values() for p in reproduction.config_paths())]
        paths = [p.as_posix() for p in shipped if load_config(p).reference]
    if not paths:
        raise KpcaBenchError(f"no configs to check at the {profile} profile; name them, or bless some first")
    return [Path(p) for p in paths]


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, soft_wrap=True)


def print_run_summary(results, seconds: float) -> None:
    """After a run: its summary as a table and the paths of the files written."""
    import pandas as pd
    from rich.table import Table

    outcome, summary = results.outcome, results.summary
    out = console()
    out.print(f"{outcome.n_run} cells run, {outcome.n_reused} reused in {seconds:.1f} s", highlight=False)
    if not summary.empty:
        table = Table(title=f"{results.folder.name}: mean ± std over the finished trials", title_justify="left")
        table.add_column("method", no_wrap=True)
        shown = [c for c in summary.columns if c.endswith("_mean")]
        extra = [c for c in ("done", "planned", "failed") if c in summary.columns]
        for column in extra:
            table.add_column(column, justify="right")
        for column in shown:
            table.add_column(column.removesuffix("_mean"), justify="right")
        for _, row in summary.iterrows():
            cells = [str(row["method"])] + [str(row[c]) if pd.notna(row[c]) else "–" for c in extra]
            for column in shown:
                std = row.get(column.removesuffix("_mean") + "_std")
                value = row[column]
                cells.append("–" if pd.isna(value) else f"{value:.3f}" + (f" ± {std:.3f}" if pd.notna(std) else ""))
            table.add_row(*cells)
        out.print(table)
    written = sorted(p for p in results.folder.iterdir() if p.is_file() and not p.name.startswith("."))
    out.print("written:", highlight=False)
    for path in written:
        out.print(f"  {path}", highlight=False, markup=False)


@app.command()
def plan(
    config: Path = typer.Argument(..., help="Experiment config (YAML)."),
    out: Path = OUT,
    jobs: int = JOBS,
    trials: int = typer.Option(None, "--trials", min=1, help="Override the config's number of random splits."),
    profile: str = profile_option("full"),
):
    """Show what 'run' would do, without loading data or running anything.

    Dataset, protocol, and per method entry: settings, cells, cells already
    stored in OUT, and the time left estimated from the stored cells' wall times.
    """
    from rich.table import Table

    from kpca_bench.experiment.config import load_config
    from kpca_bench.experiment.plan import plan_run

    try:
        n_jobs = worker_count(jobs)
        loaded = load_config(config, profile).with_overrides(trials=trials)
        result = plan_run(loaded, out)
    except KpcaBenchError as error:
        fail(error)
    out_console = console()
    out_console.print(f"{config}: {result.datasets}, protocol {result.protocol}, {result.trials} trials; "
                      f"results in {result.directory}", highlight=False, markup=False)
    if result.skipped:
        out_console.print(f"skipped (files not here, as run skips them): {', '.join(result.skipped)}",
                          highlight=False, markup=False)
    table = Table("method", "name", "settings", "cells", "stored", "left", "mean cell time (s)")
    for entry in result.entries:
        table.add_row(entry.label, entry.method, str(entry.settings), f"{entry.cells:,}", f"{entry.stored:,}",
                      f"{entry.left:,}", "–" if entry.mean_wall_time is None else f"{entry.mean_wall_time:.2f}")
    table.add_row("total", "", "", f"{result.cells:,}", f"{result.stored:,}", f"{result.cells - result.stored:,}", "")
    out_console.print(table)
    seconds = result.seconds_left(n_jobs)
    left = ("unknown (no stored cell to time)" if seconds is None
            else f"{seconds / 60:.1f} min with {n_jobs} worker{'s' if n_jobs > 1 else ''} (from stored cell times)")
    out_console.print(f"{result.cells:,} cells, {result.stored:,} stored; estimated time left: {left}",
                      highlight=False)


@app.command()
def compare(
    run_a: Path = typer.Argument(..., help="Results folder of the first run (with records.jsonl)."),
    run_b: Path = typer.Argument(..., help="Results folder of the second run."),
):
    """Compare two runs: per method and metric, both means, the difference B - A, and a paired test.

    The Wilcoxon signed-rank test pairs the trials of the two runs when they
    drew the same splits (same trials, same split seeds).
    """
    from rich.table import Table

    from kpca_bench.report.compare_runs import compare_runs, same_run_note

    try:
        rows = compare_runs(run_a, run_b)
    except KpcaBenchError as error:
        fail(error)
    table = Table("method", "metric", f"A ({run_a.name})", f"B ({run_b.name})", "B - A", "paired trials", "p (Wilcoxon)")
    for row in rows:
        table.add_row(row["method"], row["metric"], f"{row['mean_a']:.4f}", f"{row['mean_b']:.4f}",
                      f"{row['difference']:+.4f}", str(row["n_paired"]),
                      "–" if row["p_value"] is None else f"{row['p_value']:.3g}")
    out = console()
    out.print(table)
    out.print(same_run_note(run_a, run_b, rows), highlight=False)


@app.command()
def export(
    run_dir: Path = typer.Argument(..., metavar="RUN", help="Results folder of a run (with records.jsonl)."),
    fmt: str = typer.Option("parquet", "--format", "-f", help=f"{' | '.join(EXPORT_FORMATS)}."),
    output: Path = typer.Option(None, "--output", "-o", help="File to write (default RUN/records.FORMAT)."),
):
    """Write a run's records as one Parquet, JSON or CSV file: one row per cell, every field.

    Mappings and lists (parameters, versions, ROC points) are JSON text in CSV and Parquet.
    """
    from kpca_bench.experiment.export import export_run

    try:
        typer.echo(f"wrote {export_run(run_dir, fmt, output)}")
    except KpcaBenchError as error:
        fail(error)


@app.command()
def methods(
    name: str = typer.Argument(None, help="One method: every parameter with its default and meaning."),
):
    """List the registered methods: name, what, paper, parameters with their defaults.

    A config may also name any detector class as "package.module:Class"
    (e.g. sklearn.ensemble:IsolationForest, pyod.models.ecod:ECOD).
    """
    from rich.table import Table

    from kpca_bench.methods.describe import describe_parameters, parameter_defaults
    from kpca_bench.methods.registry import METHODS

    out = console()
    if name is None:
        table = Table("name", "what", "paper", "parameters (default)")
        for spec in METHODS.values():
            shown = ", ".join(f"{p}={value!r}" for p, value in parameter_defaults(spec).items() if p != "random_state")
            table.add_row(spec.name, spec.summary, spec.reference, shown)
        out.print(table)
        out.print("details: kpca-bench methods NAME; any detector class: name: \"package.module:Class\"",
                  highlight=False, markup=False)
        return
    if name not in METHODS:
        fail(KpcaBenchError(f"unknown method {name!r}; accepted: {', '.join(METHODS)}"))
    spec = METHODS[name]
    out.print(f"{spec.name}: {spec.summary}\n{spec.reference}", highlight=False, markup=False)
    table = Table("parameter", "default", "meaning")
    for parameter in describe_parameters(spec):
        table.add_row(parameter.name, repr(parameter.default), parameter.meaning)
    out.print(table)


def short_repr(value, limit: int = 40) -> str:
    """``repr(value)``, a long sequence shortened to its ends and length."""
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, (list, tuple)) and len(value) > 2:
        return f"[{value[0]!r}, ..., {value[-1]!r}] ({len(value)} values)"
    return text[: limit - 3] + "..."


@app.command()
def protocols():
    """List the protocols: name, what a trial does, and their options with defaults; "(report only)" marks an
    option that changes the tables only, not the cells (a config differing in it reuses their records)."""
    import dataclasses

    from rich.table import Table

    from kpca_bench.protocols import PROTOCOLS

    table = Table("protocol", "a trial", "options (default)")
    for protocol in PROTOCOLS.values():
        fields = {f.name: f for f in dataclasses.fields(protocol.options)}
        options = []
        for option in protocol.option_names():
            field = fields[option]
            default = (field.default if field.default is not dataclasses.MISSING
                       else field.default_factory() if field.default_factory is not dataclasses.MISSING else "required")
            report_only = " (report only)" if option in protocol.report_only_options else ""
            options.append(f"{option}={short_repr(default)}{report_only}")
        table.add_row(protocol.name, protocol.description, ", ".join(options) or "none")
    console().print(table)


@app.command()
def schema(out: Path = typer.Option(None, "--out", "-o", help="File to write (default: print it).")):
    """The config file's JSON Schema (draft 2020-12), for an editor to complete and check configs: write it
    to a file and name it on a config's first line, '# yaml-language-server: $schema=FILE' (docs/schema.md)."""
    from kpca_bench.experiment.config_schema import schema_text, write_schema

    if out is None:
        typer.echo(schema_text(), nl=False)
        return
    try:
        typer.echo(f"wrote {write_schema(out)}")
    except KpcaBenchError as error:
        fail(error)


@datasets_app.command("list")
def datasets_list(
    collection: Optional[str] = typer.Option(None, "--collection", help="Only this collection: papers, adbench or "
                                                                         "user."),
) -> None:
    """Every registered dataset: shape, classes, collection, the papers using it (those of the reproductions folder),
    whether its files are here and their size."""
    from kpca_bench.datasets import cli as datasets_cli
    from kpca_bench.report.reproductions import papers_by_dataset

    try:
        datasets_cli.print_datasets(collection, papers_by_dataset(DEFAULT_REPRODUCTIONS_DIR))
    except KpcaBenchError as error:
        fail(error)


@datasets_app.command("verify")
def datasets_verify(names: Optional[List[str]] = typer.Argument(None, help="Datasets to check (default: all with "
                                                                            "files).")) -> None:
    """Check the checksums of the files present (every listed image for ETH-80).

    Exit code 2 if a file is corrupted, or if a dataset named on the command line is missing.
    """
    from kpca_bench.datasets import cli as datasets_cli

    datasets_cli.verify(names)


@datasets_app.command("fetch")
def datasets_fetch(names: List[str] = typer.Argument(..., help="Datasets to download into the cache; "
                                                               "openml:<data id> for an OpenML dataset.")) -> None:
    """Download the named datasets' missing files into the per-user cache, verifying their checksums."""
    from kpca_bench.datasets import cli as datasets_cli

    datasets_cli.fetch(names)
