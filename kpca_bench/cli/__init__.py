"""The ``kpca-bench`` command line: the typer app and its commands, one module per group.

Commands (:mod:`.run`, :mod:`.report`, :mod:`.describe`, :mod:`.schema`, :mod:`.datasets`) are thin typed wrappers over the library's functions; :mod:`.render` shows what
they return. Importing this package imports typer and rich only: every command imports what it
needs (scikit-learn, pandas, matplotlib, the registries) when it runs, so that
``kpca-bench --help`` answers at once (tests/test_cli.py checks it).
"""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

from kpca_bench import __version__
from kpca_bench.cli import datasets, describe, init, report, run, schema

UsageProblem: type[Exception]  # one of two classes, by typer's version
try:  # typer vendors click from 0.20 on; the vendored exceptions derive from TyperException
    from typer import TyperException as UsageProblem
except ImportError:  # pragma: no cover - an older typer, on click itself
    from click import ClickException as UsageProblem


class OneLineErrors(TyperGroup):
    """The command group, with a usage error (an unknown option, a value of the wrong type, a missing argument)
    reported as the library's problems are: one line, ``error: <problem>; see '<command> --help'``, exit code 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        except UsageProblem as error:
            if type(error).__name__ != "NoArgsIsHelpError":  # the help is shown already
                typer.echo(f"error: {usage_line(error)}", err=True)
            sys.exit(getattr(error, "exit_code", 2))
        sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else 0)


def usage_line(error) -> str:
    """A usage error as one line: its message, and where the command's options are listed."""
    message = " ".join(error.format_message().split()).rstrip(".")
    context = getattr(error, "ctx", None)
    command = context.command_path if context is not None else "kpca-bench COMMAND"
    return f"{message}; see '{command} --help'"


app = typer.Typer(
    cls=OneLineErrors,
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
def main(
    version: bool = typer.Option(
        False, "--version", callback=show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Reproduce kernel-PCA outlier-detection benchmarks from YAML configs."""


app.add_typer(datasets.app, name="datasets", help="List, describe, verify and fetch the datasets configs can name.")
for command in (
    init.init,
    run.run,
    report.report,
    run.plan,
    report.compare,
    report.export,
    describe.methods,
    describe.protocols,
    schema.schema,
):
    app.command()(command)
