"""``kpca-bench datasets``: list, verify and fetch the registered datasets."""

from __future__ import annotations

from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from kpca_bench.datasets import files
from kpca_bench.datasets.registry import DATASETS, get_spec
from kpca_bench.errors import DataError, KpcaBenchError

app = typer.Typer(help="List, verify and fetch the benchmark datasets.", no_args_is_help=True)


def _fail(err: KpcaBenchError) -> typer.Exit:
    Console(stderr=True, soft_wrap=True).print(f"error: {err}", markup=False, highlight=False)
    return typer.Exit(2)


def _location(spec) -> str:
    if not spec.files:
        return "built-in"
    return "present" if files.present(spec.name, spec.files) else "missing"


@app.command("list")
def list_datasets() -> None:
    """Every registered dataset: shape, classes, the papers using it, and whether its files are here."""
    table = Table("name", "shape", "classes", "papers", "local")
    for spec in DATASETS.values():
        shape = "x".join(map(str, spec.shape)) if spec.shape else "?"
        table.add_row(spec.name, shape, str(spec.n_classes or "?"), ", ".join(spec.papers), _location(spec))
    Console(soft_wrap=True).print(table)


@app.command("verify")
def verify(names: Optional[List[str]] = typer.Argument(None, help="Datasets to check (default: all with files).")) -> None:
    """Check the checksums of the files present (every listed image for ETH-80).

    Exit code 2 if a file is corrupted, or if a dataset named on the command line is missing.
    """
    try:
        specs = [get_spec(name) for name in names] if names else [s for s in DATASETS.values() if s.files]
    except KpcaBenchError as err:
        raise _fail(err) from err
    statuses = [status for spec in specs for status in files.verify(spec.name, spec.files)]
    table = Table("dataset", "file", "status", "path or problem")
    for status in statuses:
        table.add_row(status.dataset, status.file, status.status, status.detail or str(status.path))
    Console(soft_wrap=True).print(table)
    bad = [s for s in statuses if s.status == "corrupt" or (names and s.status == "missing")]
    if bad:
        listed = ", ".join(f"{s.dataset}/{s.file} ({s.status})" for s in bad)
        raise _fail(DataError(f"{len(bad)} file(s) failed verification: {listed}"))


@app.command("fetch")
def fetch(names: List[str] = typer.Argument(..., help="Datasets to download into the cache.")) -> None:
    """Download the named datasets' missing files into the per-user cache, verifying their checksums."""
    try:
        for spec in map(get_spec, names):
            if not spec.files:
                typer.echo(f"{spec.name}: built in, nothing to fetch")
                continue
            paths = files.ensure(spec.name, spec.files, spec.homepage, offline=False)
            files.checked_records(spec.name, spec.files, paths)
            typer.echo(f"{spec.name}: ok ({', '.join(str(path) for path in paths.values())})")
    except KpcaBenchError as err:
        raise _fail(err) from err
