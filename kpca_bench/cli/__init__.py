"""The ``kpca-bench`` command line: the typer app and its commands, one module per group.

Commands (:mod:`.run`, :mod:`.check`, :mod:`.report`, :mod:`.describe`, :mod:`.schema`,
:mod:`.datasets`) are thin typed wrappers over the library's functions; :mod:`.render` shows what
they return. Importing this package imports typer and rich only: every command imports what it
needs (scikit-learn, pandas, matplotlib, the registries) when it runs, so that
``kpca-bench --help`` answers at once (tests/test_cli.py checks it).
"""

from __future__ import annotations

import typer

from kpca_bench import __version__
from kpca_bench.cli import check, datasets, describe, init, report, run, schema

app = typer.Typer(
    help="Reproduce kernel-PCA outlier-detection benchmarks from YAML configs.\n\n"
         "Start with: kpca-bench run quickstart",
    rich_markup_mode="rich",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def show_version(value: bool) -> None:
    if value:
        typer.echo(f"kpca-bench {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: bool = typer.Option(False, "--version", callback=show_version, is_eager=True,
                                      help="Print the version and exit.")) -> None:
    """Reproduce kernel-PCA outlier-detection benchmarks from YAML configs."""


app.add_typer(datasets.app, name="datasets", help="List, describe, verify and fetch the datasets configs can name.")
for command in (init.init, run.run, check.bless, check.check, report.report, report.analyse, run.plan,
                report.compare, report.export, describe.methods, describe.protocols, schema.schema):
    app.command()(command)
