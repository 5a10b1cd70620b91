"""``kpca-bench report``, ``compare`` and ``export``: what is made from runs already on disk."""

from __future__ import annotations

from pathlib import Path

import typer

from kpca_bench.cli.options import CONFIGS, EXPORT_FORMATS
from kpca_bench.cli.render import fail, print_run_comparison, print_suite_comparison
from kpca_bench.cli.run import require_no_failures
from kpca_bench.errors import KpcaBenchError


def report(
    results_dir: Path = typer.Argument(
        ...,
        metavar="RESULTS_DIR",
        help="A run's results folder: rebuild its tables and figures from its "
        "records (a suite: also its ranks and tests across datasets).",
    ),
    configs: list[Path] = CONFIGS,
    html: bool = typer.Option(
        False, "--html", help="Also write the run's tables and figures as one HTML page, RESULTS_DIR/report.html."
    ),
):
    """Rebuild a run's tables and figures from its records (a suite: also its statistics across datasets, and its
    rank table printed).

    Reads only what the run left on disk; nothing is run. The config is the one the folder's run.json holds, else
    the config of the records' name and hash in the --configs folders.
    """
    from kpca_bench.report.html import write_run_html
    from kpca_bench.report.rebuild import rebuild

    try:
        rebuilt = rebuild(results_dir, configs)
        typer.echo(rebuilt.text)
        typer.echo(f"wrote the tables and figures of {rebuilt.config.name} in {results_dir}")
        if html:
            typer.echo(f"wrote {write_run_html(results_dir, rebuilt.config)}")
        require_no_failures(rebuilt)
    except KpcaBenchError as error:
        fail(error)


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
