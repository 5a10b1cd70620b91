"""``kpca-bench schema``: the config file's JSON Schema."""

from __future__ import annotations

from pathlib import Path

import typer

from kpca_bench.cli.render import fail
from kpca_bench.errors import KpcaBenchError


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
