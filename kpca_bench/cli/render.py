"""How the commands show things on the terminal: error lines, tables, a run's summary.

Each function takes plain data the library returned and prints it; none computes a result.
rich and pandas are imported when a function runs, so that importing the CLI stays light.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from kpca_bench.errors import KpcaBenchError


def fail(error: KpcaBenchError) -> None:
    """Report a user-fixable problem as one line per problem; exit code 2 (1 for failed cells)."""
    for line in str(error).splitlines():
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(error.exit_code)


# Wide enough that no table of ours is cut: off a terminal, rich would otherwise assume 80 columns.
LOG_WIDTH = 10_000


def console(stderr: bool = False):
    """A rich console: a terminal's width on a terminal, :data:`LOG_WIDTH` in pipes, logs and CI."""
    from rich.console import Console

    out = Console(stderr=stderr, soft_wrap=True)
    if not out.is_terminal:
        out.width = LOG_WIDTH
    return out


def new_table(*headers: str, **options):
    """A rich table whose cells wrap, long words and numbers folded onto the next line, never cut with "…"."""
    from rich.table import Table

    shown = Table(*headers, **options)
    for column in shown.columns:
        column.overflow = "fold"
    return shown


def print_run_summary(results, seconds: float) -> None:
    """After a run: its summary as a table, its headline and the paths of the files written."""
    import pandas as pd

    outcome, summary = results.outcome, results.summary
    out = console()
    if results.verdict:
        # A suite's table runs to hundreds of rows: what the tests support comes before it, and again after it.
        out.print(results.verdict, highlight=False, markup=False)
    out.print(f"{outcome.n_run} cells run, {outcome.n_reused} reused in {seconds:.1f} s", highlight=False)
    if not summary.empty:
        table = new_table(title=f"{results.folder.name}: mean ± std over the finished trials", title_justify="left")
        named = [c for c in ("dataset", "method") if c in summary.columns]  # a suite's rows: dataset, method
        for column in named:
            table.add_column(column, no_wrap=True)
        shown = [c for c in summary.columns if c.endswith("_mean")]
        extra = [c for c in ("trials", "planned", "failed") if c in summary.columns]
        for column in extra:
            table.add_column(column, justify="right", overflow="fold")
        for column in shown:
            table.add_column(column.removesuffix("_mean"), justify="right", overflow="fold")
        for _, row in summary.iterrows():
            cells = [str(row[c]) for c in named] + [str(row[c]) if pd.notna(row[c]) else "–" for c in extra]
            for column in shown:
                std = row.get(column.removesuffix("_mean") + "_std")
                value = row[column]
                cells.append("–" if pd.isna(value) else f"{value:.3f}" + (f" ± {std:.3f}" if pd.notna(std) else ""))
            table.add_row(*cells)
        out.print(table)
    for line in headline_lines(results):
        out.print(line, highlight=False, markup=False)
    written = sorted(p for p in results.folder.iterdir() if p.is_file() and not p.name.startswith("."))
    out.print("written:", highlight=False)
    for path in written:
        out.print(f"  {path}", highlight=False, markup=False)


def headline_lines(results) -> list[str]:
    """The run's headline: a suite's verdict (``Results.verdict``: INCOMPLETE where trials are missing, what the
    tests support, the methods whose fits stopped on their iteration limit), or a single run's best methods
    (:mod:`kpca_bench.report.run_headline`) after INCOMPLETE and followed by its unconverged fits."""
    from kpca_bench.report.run_headline import run_headline
    from kpca_bench.report.suite import method_order
    from kpca_bench.report.tables import incomplete_note, not_converged_lines

    if results.ranks is not None:
        return [results.verdict] if results.verdict else []
    lines = [incomplete_note(results.summary), run_headline(results.summary)]
    return [text for text in lines if text] + not_converged_lines(results.records, method_order(results.config))


def print_plan(config: Path, result, n_jobs: int) -> None:
    """What ``run`` would do (a :func:`kpca_bench.experiment.plan.plan_run` result): per method entry its cells,
    those stored, and the time left with ``n_jobs`` workers."""

    out_console = console()
    out_console.print(
        f"{config}: {result.datasets}, protocol {result.protocol}, {result.trials} trials; "
        f"results in {result.directory}",
        highlight=False,
        markup=False,
    )
    if result.skipped:
        out_console.print(
            f"skipped (files not here, as run skips them): {', '.join(result.skipped)}", highlight=False, markup=False
        )
    table = new_table("method", "name", "settings", "cells", "stored", "left", "mean cell time (s)")
    for entry in result.entries:
        table.add_row(
            entry.label,
            entry.method,
            str(entry.settings),
            f"{entry.cells:,}",
            f"{entry.stored:,}",
            f"{entry.left:,}",
            "–" if entry.mean_wall_time is None else f"{entry.mean_wall_time:.2f}",
        )
    table.add_row("total", "", "", f"{result.cells:,}", f"{result.stored:,}", f"{result.cells - result.stored:,}", "")
    out_console.print(table)
    seconds = result.seconds_left(n_jobs)
    left = (
        "unknown (no stored cell to time)"
        if seconds is None
        else f"{seconds / 60:.1f} min with {n_jobs} worker{'s' if n_jobs > 1 else ''} (from stored cell times)"
    )
    out_console.print(f"{result.cells:,} cells, {result.stored:,} stored; estimated time left: {left}", highlight=False)


def print_run_comparison(run_a: Path, run_b: Path, rows: list[dict], note: str) -> None:
    """Two runs side by side (:func:`kpca_bench.report.compare_runs.compare_runs` rows), then ``note``."""

    table = new_table(
        "method", "metric", f"A ({run_a.name})", f"B ({run_b.name})", "B - A", "paired trials", "p (Wilcoxon)"
    )
    for row in rows:
        table.add_row(
            row["method"],
            row["metric"],
            f"{row['mean_a']:.4f}",
            f"{row['mean_b']:.4f}",
            f"{row['difference']:+.4f}",
            str(row["n_paired"]),
            "–" if row["p_value"] is None else f"{row['p_value']:.3g}",
        )
    out = console()
    out.print(table)
    out.print(note, highlight=False)


def print_suite_comparison(
    suite_a: Path, suite_b: Path, rows: list[dict], tests: list[dict], verdict: str, mismatches, standing
) -> None:
    """Two suites paired by dataset: ``verdict`` first (:func:`kpca_bench.report.compare_runs.suite_verdict`),
    then what the suites do not share (a :class:`~kpca_bench.report.compare_runs.Mismatches`), then the
    :func:`~kpca_bench.report.compare_runs.compare_suites` rows and tests, then each method's ``standing``
    (:func:`~kpca_bench.report.compare_runs.method_standing`)."""
    out = console()
    if rows:
        out.print(verdict, highlight=False, markup=False)
    for lines in mismatch_lines(suite_a, suite_b, mismatches):
        out.print(lines, highlight=False, markup=False)
    if not rows:
        out.print(
            f"no method has a finished AUROC on a dataset of both {suite_a} and {suite_b}",
            highlight=False,
            markup=False,
        )
        return
    table = new_table(
        "method",
        "dataset",
        f"A ({suite_a.name})",
        f"B ({suite_b.name})",
        "B - A",
        title="mean AUROC per dataset",
        title_justify="left",
    )
    for row in rows:
        table.add_row(
            row["method"], row["dataset"], f"{row['mean_a']:.4f}", f"{row['mean_b']:.4f}", f"{row['difference']:+.4f}"
        )
    out.print(table)
    tests_table = new_table(
        "method",
        "datasets",
        "mean B - A",
        "p (Wilcoxon)",
        "p (Holm)",
        title="per method, over the datasets",
        title_justify="left",
    )
    for test in tests:
        tests_table.add_row(
            test["method"],
            str(test["n_datasets"]),
            f"{test['mean_difference']:+.4f}",
            *("–" if test[key] is None else f"{test[key]:.3g}" for key in ("p_value", "p_holm")),
        )
    out.print(tests_table)
    out.print(
        "p from a two-sided Wilcoxon signed-rank test of the per-dataset mean AUROCs, paired by dataset; "
        "p (Holm) corrects it for testing every method (read that one)",
        highlight=False,
    )
    out.print(standing_table(standing))
    out.print(
        "rank: mean rank among the methods compared, over the datasets where all have AUROC in both suites "
        "(1 = highest); gap: mean AUROC minus ADBench's published AUROC, over the datasets of each suite's "
        "adbench_comparison.csv",
        highlight=False,
    )


def standing_table(standing):
    """Each method's mean rank, mean AUROC and ADBench gap in suites A and B (``method_standing``'s frame)."""
    datasets = int(standing["datasets"].iloc[0]) if len(standing) else 0
    table = new_table(
        "method",
        "rank A",
        "rank B",
        "mean AUROC A",
        "mean AUROC B",
        "B - A",
        "gap A",
        "gap B",
        "gap datasets",
        title=f"where each method stands, over {datasets} datasets",
        title_justify="left",
    )
    shown = lambda value, spec: "–" if value != value else format(value, spec)  # noqa: E731 (NaN: no value)
    for row in standing.itertuples():
        table.add_row(
            row.method,
            shown(row.rank_a, ".2f"),
            shown(row.rank_b, ".2f"),
            shown(row.mean_a, ".4f"),
            shown(row.mean_b, ".4f"),
            shown(row.difference, "+.4f"),
            shown(row.gap_a, "+.4f"),
            shown(row.gap_b, "+.4f"),
            str(int(row.gap_datasets)),
        )
    return table


def mismatch_lines(suite_a: Path, suite_b: Path, mismatches) -> list[str]:
    """One line per method of one suite only (not compared) and per label whose parameters differ."""
    lines = [
        f"only in {folder} (not compared): {', '.join(methods)}"
        for folder, methods in ((suite_a, mismatches.only_a), (suite_b, mismatches.only_b))
        if methods
    ]
    lines += [
        f"{label} has other parameters in the two suites (compared by label all the same): "
        f"A {' or '.join(a)}; B {' or '.join(b)}"
        for label, a, b in mismatches.collisions
    ]
    return lines


def print_methods(specs, defaults: dict[str, dict[str, object]]) -> None:
    """The registered methods (``specs``), each with its parameters' ``defaults`` but the random state."""

    out = console()
    table = new_table("name", "what", "paper", "parameters (default)")
    for spec in specs:
        shown = ", ".join(f"{name}={value!r}" for name, value in defaults[spec.name].items() if name != "random_state")
        table.add_row(spec.name, spec.summary, spec.reference, shown)
    out.print(table)
    out.print(
        'details: kpca-bench methods NAME; any detector class: name: "package.module:Class"',
        highlight=False,
        markup=False,
    )


def print_method(spec, parameters) -> None:
    """One method: what it is, its paper, and every parameter (:class:`kpca_bench.methods.describe.Parameter`)."""

    out = console()
    out.print(f"{spec.name}: {spec.summary}\n{spec.reference}", highlight=False, markup=False)
    table = new_table("parameter", "default", "meaning")
    for parameter in parameters:
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


def print_protocols(protocols: list[tuple[str, str, list[tuple[str, object, bool]]]]) -> None:
    """The protocols: name, what a trial does, and each option as (name, default, report only)."""

    table = new_table("protocol", "a trial", "options (default)")
    for name, description, options in protocols:
        shown = [
            f"{option}={short_repr(default)}{' (report only)' if report_only else ''}"
            for option, default, report_only in options
        ]
        table.add_row(name, description, ", ".join(shown) or "none")
    console().print(table)


def print_datasets(rows: Sequence[tuple[str, ...]], name_width: int) -> None:
    """The table of ``datasets list``: one row per dataset, its name whole in ``name_width`` characters."""

    table = new_table("name", "shape", "classes", "collection", "local", "size")
    # Names whole on any terminal width: they are what a config names.
    table.columns[0].no_wrap = True
    table.columns[0].min_width = name_width
    for row in rows:
        table.add_row(*row)
    console().print(table)


def print_verification(statuses) -> None:
    """The table of ``datasets verify``: one row per file checked."""

    table = new_table("dataset", "file", "status", "path or problem")
    for status in statuses:
        table.add_row(status.dataset, status.file, status.status, status.detail or str(status.path))
    console().print(table)
