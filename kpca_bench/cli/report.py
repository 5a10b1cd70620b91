"""``kpca-bench report``, ``analyse``, ``compare`` and ``export``: what is made from runs already on disk."""

from __future__ import annotations

from pathlib import Path

import typer

from kpca_bench.cli.options import CONFIGS, EXPORT_FORMATS, OUT, REPRODUCTIONS
from kpca_bench.cli.render import fail, print_run_comparison, print_suite_comparison
from kpca_bench.cli.run import require_no_failures
from kpca_bench.errors import KpcaBenchError


def report(
    results_dir: Path = typer.Argument(
        None,
        metavar="[RESULTS_DIR]",
        help="A run's results folder: rebuild its tables and figures from its "
        "records (a suite: also its ranks and tests across datasets).",
    ),
    out: Path = OUT,
    configs: Path = CONFIGS,
    reproductions: Path = REPRODUCTIONS,
    list_configs: bool = typer.Option(
        False,
        "--list-configs",
        help="Only print the paper configs whose data are here, one per line (what "
        "make all-figures runs); skipped ones go to stderr with the reason.",
    ),
    html: bool = typer.Option(
        False,
        "--html",
        help="Also write the report as one HTML page that opens offline: RESULTS_DIR/"
        "report.html, or OUT/REPORT.html (a results root as RESULTS_DIR: only that, "
        "from its REPORT.md).",
    ),
):
    """Write OUT/REPORT.md: per paper, its numbers beside ours, the figures, the analyses.

    With RESULTS_DIR: rebuild that run's tables and figures from its records instead (any run; a
    suite's statistics across datasets, and its rank table printed). Reads only what runs left on
    disk; run 'make all-figures' to rebuild the runs first.
    """
    from kpca_bench.report.html import write_markdown_html, write_run_html

    try:
        if results_dir is not None and html and is_results_root(results_dir):
            typer.echo(f"wrote {write_markdown_html(results_dir / OVERVIEW_FILE)}")
            return
        if results_dir is not None:
            from kpca_bench.report.rebuild import rebuild

            rebuilt = rebuild(results_dir, configs, reproductions_dir=reproductions)
            typer.echo(rebuilt.text)
            typer.echo(f"wrote the tables and figures of {rebuilt.config.name} in {results_dir}")
            if html:
                typer.echo(f"wrote {write_run_html(results_dir, rebuilt.config)}")
            require_no_failures(rebuilt)
            return
        if list_configs:
            print_paper_configs(reproductions)
            return
        from kpca_bench.report.overview import write_overview

        overview = write_overview(out, configs, reproductions)
        typer.echo(f"wrote {overview.path}")
        if html:
            typer.echo(f"wrote {write_markdown_html(overview.path)}")
        if overview.missing:
            raise KpcaBenchError("\n".join(f"{overview.path} lacks a section: {line}" for line in overview.missing))
    except KpcaBenchError as error:
        fail(error)


OVERVIEW_FILE = "REPORT.md"


def is_results_root(folder: Path) -> bool:
    """Whether ``folder`` is a results root (it holds REPORT.md) rather than a run's folder (records or run.json)."""
    from kpca_bench.experiment.runner import RUN_FILE
    from kpca_bench.experiment.store import ResultStore

    return (folder / OVERVIEW_FILE).is_file() and not (folder / RUN_FILE).exists() and not ResultStore(folder).exists()


def analyse(
    papers: list[str] = typer.Argument(
        None, metavar="[PAPER]...", help="Papers to analyse: folder names in the reproductions folder."
    ),
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
            raise KpcaBenchError(
                f"name papers to analyse ({', '.join(found)}) or give --all"
                + (f"; unknown: {', '.join(unknown)}" if unknown else "")
            )
        if not out.is_dir():
            raise KpcaBenchError(
                f"{out}: no results folder; run the papers' configs first (make all-figures) "
                "or name the folder that holds their runs with --out"
            )
        for key in keys:
            reproduction = found[key]
            for analysis in reproduction.analyses:
                for path in analysis(out, reproduction.config_paths()):
                    typer.echo(f"{key}: wrote {path}")
    except KpcaBenchError as error:
        fail(error)


def print_paper_configs(reproductions_dir: Path) -> None:
    from kpca_bench.report.paper_findings import runnable_paper_configs

    runnable, skipped = runnable_paper_configs(reproductions_dir)
    for path, reason in skipped:
        typer.echo(f"skipped {path}: {reason}", err=True)
    for path in runnable:
        typer.echo(path.as_posix())


def compare(
    run_a: Path = typer.Argument(..., help="Results folder of the first run (with records.parquet) or suite."),
    run_b: Path = typer.Argument(..., help="Results folder of the second run, or suite."),
    table: Path = typer.Option(
        None,
        "--table",
        help="Two suites: also write where each method stands (mean rank, "
        "mean AUROC, ADBench gap in each) to this file, CSV, or "
        "Markdown if it ends in .md.",
    ),
):
    """Compare two runs: per method and metric, both means, the difference B - A, and a paired test.

    The Wilcoxon signed-rank test pairs the trials of the two runs when they
    drew the same splits (same trials, same split seeds). Two suites: per method
    and dataset in both, the mean AUROC of each and B - A, and per method a
    Wilcoxon signed-rank test over the datasets, Holm-corrected; first what the tests
    support and their floor at this size, then the methods of one suite only and the
    labels whose parameters differ, and where each method stands in each: its mean rank, mean AUROC and
    mean gap to ADBench's published AUROC.
    """
    from kpca_bench.report.compare_runs import (
        both_suites,
        compare_runs,
        compare_suites,
        method_standing,
        same_run_note,
        suite_mismatches,
        suite_verdict,
        write_standing,
    )

    try:
        if both_suites(run_a, run_b):
            rows, tests = compare_suites(run_a, run_b)
            standing = method_standing(run_a, run_b, rows)
            print_suite_comparison(
                run_a, run_b, rows, tests, suite_verdict(tests), suite_mismatches(run_a, run_b), standing
            )
            if table is not None:
                typer.echo(f"wrote {write_standing(standing, table, run_a, run_b)}")
            return
        if table is not None:
            raise KpcaBenchError("--table is for two suites; two runs' comparison is printed only")
        rows = compare_runs(run_a, run_b)
    except KpcaBenchError as error:
        fail(error)
    print_run_comparison(run_a, run_b, rows, same_run_note(run_a, run_b, rows))


def export(
    run_dir: Path = typer.Argument(
        ...,
        metavar="RUN",
        help="Results folder of a run (with records.parquet) or of a suite (a sub-folder per dataset).",
    ),
    fmt: str = typer.Option("parquet", "--format", "-f", help=f"{' | '.join(EXPORT_FORMATS)}."),
    output: Path = typer.Option(None, "--output", "-o", help="File to write (default RUN/export.FORMAT)."),
    tables: bool = typer.Option(
        True,
        "--tables/--no-tables",
        help="A suite: also write its tables across datasets (ranks, tests, per dataset), "
        "each beside the records as OUTPUT-STEM_TABLE.FORMAT.",
    ),
):
    """Write a run's records as one Parquet, JSON or CSV file: one row per cell, every field.

    A suite's folder: every dataset's cells in one file with a dataset column, and its tables across
    datasets beside it. Mappings and lists (parameters, versions, ROC points) are JSON text in CSV and
    Parquet.
    """
    from kpca_bench.experiment.export import export_run

    try:
        for path in export_run(run_dir, fmt, output, tables):
            typer.echo(f"wrote {path}")
    except KpcaBenchError as error:
        fail(error)
