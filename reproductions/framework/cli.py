"""``python -m reproductions``: REPORT.md, the papers' analyses, and the check of our numbers against the references.

The commands take the library's options and report problems as ``kpca-bench`` does: one line, exit code 2.
"""

from __future__ import annotations

from pathlib import Path

import typer

from kpca_bench.cli import OneLineErrors
from kpca_bench.cli.options import DEFAULT_CONFIG_DIR, OUT
from kpca_bench.cli.render import fail
from kpca_bench.errors import KpcaBenchError
from reproductions.framework import check
from reproductions.framework.loader import DEFAULT_REPRODUCTIONS_DIR

OVERVIEW_FILE = "REPORT.md"

CONFIGS = typer.Option(DEFAULT_CONFIG_DIR, "--configs", help="Folder of the suites' configs.")
REPRODUCTIONS = typer.Option(
    DEFAULT_REPRODUCTIONS_DIR, "--reproductions", help="Folder of the reproductions: one folder per paper."
)


def report(
    out: Path = OUT,
    configs: Path = CONFIGS,
    reproductions: Path = REPRODUCTIONS,
    list_configs: bool = typer.Option(
        False,
        "--list-configs",
        help="Only print the paper configs whose data are here, one per line (what "
        "make all-figures runs); skipped ones go to stderr with the reason.",
    ),
    html: bool = typer.Option(False, "--html", help="Also write OUT/REPORT.html, one page that opens offline."),
):
    """Write OUT/REPORT.md: per paper, its numbers beside ours, the figures, the analyses.

    Reads only what runs left on disk; run 'make all-figures' to rebuild the runs first.
    """
    try:
        if list_configs:
            print_paper_configs(reproductions)
            return
        from kpca_bench.report.html import write_markdown_html
        from reproductions.framework.overview import write_overview

        overview = write_overview(out, configs, reproductions)
        typer.echo(f"wrote {overview.path}")
        if html:
            typer.echo(f"wrote {write_markdown_html(overview.path)}")
        if overview.missing:
            raise KpcaBenchError("\n".join(f"{overview.path} lacks a section: {line}" for line in overview.missing))
    except KpcaBenchError as error:
        fail(error)


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
    from reproductions.framework.loader import load_reproductions

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


def datasets(reproductions: Path = REPRODUCTIONS):
    """Each dataset the papers' configs name, and the papers that use it (kpca-bench datasets list shows them all)."""
    from reproductions.framework.loader import papers_by_dataset

    try:
        for dataset, papers in sorted(papers_by_dataset(reproductions).items()):
            typer.echo(f"{dataset}: {', '.join(papers)}")
    except KpcaBenchError as error:
        fail(error)


def print_paper_configs(reproductions_dir: Path) -> None:
    from reproductions.framework.paper_findings import runnable_paper_configs

    runnable, skipped = runnable_paper_configs(reproductions_dir)
    for path, reason in skipped:
        typer.echo(f"skipped {path}: {reason}", err=True)
    for path in runnable:
        typer.echo(path.as_posix())


app = typer.Typer(
    cls=OneLineErrors,
    help="The papers reproduced with kpca-bench: REPORT.md, their analyses, and the check of our numbers.",
    rich_markup_mode="rich",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
for command in (report, analyse, check.check, check.bless, datasets):
    app.command()(command)
