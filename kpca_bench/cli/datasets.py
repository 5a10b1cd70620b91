"""``kpca-bench datasets``: list, describe, verify and fetch the registered datasets."""

from __future__ import annotations

from typing import List, Optional

import typer

from kpca_bench.cli.render import fail, print_datasets, print_verification
from kpca_bench.errors import DataError, KpcaBenchError

app = typer.Typer(help="List, describe, verify and fetch the benchmark datasets.", no_args_is_help=True)


def _location(spec) -> str:
    from kpca_bench.datasets import files

    if not spec.files:
        return "built-in" if spec.collection != "user" else "yours"
    return "present" if files.present(spec.name, spec.files) else "missing"


def _size(spec) -> str:
    """The size of the dataset's files that are here, in MB ("" if none are)."""
    from kpca_bench.datasets.locate import find

    paths = [path for path in (find(spec.name, file) for file in spec.files) if path is not None]
    return f"{sum(path.stat().st_size for path in paths) / 1e6:.2f} MB" if paths else ""


@app.command("list")
def list_datasets(
    collection: Optional[str] = typer.Option(
        None, "--collection", help="Only this collection: papers, adbench or user."
    ),
) -> None:
    """Every registered dataset: shape, classes, collection, whether its files are here and their size."""
    from kpca_bench.datasets.registry import DATASETS

    collections = sorted({spec.collection for spec in DATASETS.values()})
    if collection is not None and collection not in collections:
        fail(DataError(f"--collection: unknown collection {collection!r}; accepted: {', '.join(collections)}"))
    rows = [
        (
            spec.name,
            "x".join(map(str, spec.shape)) if spec.shape else "?",
            str(spec.n_classes or "?"),
            spec.collection,
            _location(spec),
            _size(spec),
        )
        for spec in DATASETS.values()
        if collection is None or spec.collection == collection
    ]
    print_datasets(rows, max(len(spec.name) for spec in DATASETS.values()))


def _here(spec) -> str:
    """Where the dataset's files are, or how to get them."""
    from kpca_bench.datasets.locate import find

    if not spec.files:
        return "yours: named in the config" if spec.collection == "user" else "built in: nothing to fetch"
    paths = [find(spec.name, file) for file in spec.files]
    if all(paths):
        return "present: " + ", ".join(str(path) for path in paths)
    if all(file.url for file in spec.files):
        return f"missing: kpca-bench datasets fetch {spec.name} downloads it from {spec.files[0].url}"
    return f"missing: get it by hand from {spec.homepage} into a folder of KPCA_BENCH_DATA (docs/datasets.md)"


def _show_fields(name: str) -> dict:
    """The facts ``datasets show`` prints, in order (registry and ``descriptions.yaml``)."""
    from kpca_bench.datasets.descriptions import describe, related_groups
    from kpca_bench.datasets.registry import get_spec

    spec, description = get_spec(name), describe(name)
    size = f"{spec.shape[0]:,} rows x {spec.shape[1]:,} features" if spec.shape else "as the file or OpenML has it"
    related = [
        f"{', '.join(n for n in group.datasets if n != spec.name)} ({group.name}): {group.reason} "
        f"(source: {group.source})"
        for group in related_groups()
        if spec.name in group.datasets
    ]
    return {
        "name": spec.name,
        "description": spec.description,
        "collection": spec.collection,
        "origin": description.origin,
        "version": description.version,
        "source": spec.homepage or spec.source,
        "size": size + (f", {spec.n_classes} classes" if spec.n_classes else ""),
        "classes": description.classes,
        "anomalies": description.anomalies,
        "inliers": description.inliers,
        "licence": description.licence,
        "cite": [f"{key}: {reference}" for key, reference in description.references],
        "related": related,
        "here": _here(spec),
    }


def _wrapped(label: str, values, width: int) -> list[str]:
    """``label`` then each value, wrapped (never cut) under a hanging indent."""
    import textwrap

    values = [values] if isinstance(values, str) else list(values) or ["none"]
    indent = " " * 12
    lines = []
    for position, value in enumerate(values):
        first = f"{label:<11} " if position == 0 else indent
        lines += textwrap.wrap(
            value,
            width=width,
            initial_indent=first,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
    return lines


@app.command("show")
def show(
    name: str = typer.Argument(..., help="A registered dataset (kpca-bench datasets list)."),
    as_json: bool = typer.Option(False, "--json", help="The same facts as one JSON object."),
) -> None:
    """What a dataset is: origin and version, size, classes, what its anomalies and inliers are, licence,
    references to cite, the datasets sharing its source, and whether its files are here."""
    import json
    import shutil

    try:
        fields = _show_fields(name)
    except KpcaBenchError as error:
        fail(error)
    if as_json:
        typer.echo(json.dumps(fields, indent=2, ensure_ascii=False))
        return
    width = max(60, shutil.get_terminal_size((100, 24)).columns - 1)
    typer.echo(f"{fields['name']}: {fields['description']}")
    for label, value in fields.items():
        if label not in ("name", "description"):
            typer.echo("\n".join(_wrapped(label, value, width)))


@app.command("verify")
def verify(
    names: Optional[List[str]] = typer.Argument(None, help="Datasets to check (default: all with files)."),
) -> None:
    """Check the checksums of the files present (every listed image for ETH-80).

    Exit code 2 if a file is corrupted, or if a dataset named on the command line is missing.
    """
    from kpca_bench.datasets import files
    from kpca_bench.datasets.registry import DATASETS, get_spec

    try:
        specs = [get_spec(name) for name in names] if names else [s for s in DATASETS.values() if s.files]
    except KpcaBenchError as error:
        fail(error)
    statuses = [status for spec in specs for status in files.verify(spec.name, spec.files)]
    print_verification(statuses)
    bad = [s for s in statuses if s.status == "corrupt" or (names and s.status == "missing")]
    if bad:
        listed = ", ".join(f"{s.dataset}/{s.file} ({s.status})" for s in bad)
        fail(DataError(f"{len(bad)} file(s) failed verification: {listed}"))


def _fetch_openml(name: str) -> None:
    from kpca_bench.datasets import openml_data

    data_id = name.removeprefix(openml_data.FETCH_PREFIX)
    if not data_id.isdigit():
        raise DataError(
            f"{name}: an OpenML dataset is fetched as {openml_data.FETCH_PREFIX}<data id>, e.g. openml:40978"
        )
    typer.echo(f"{name}: ok ({openml_data.fetch(int(data_id))})")


@app.command("fetch")
def fetch(
    names: List[str] = typer.Argument(
        ..., help="Datasets to download into the cache; openml:<data id> for an OpenML dataset."
    ),
) -> None:
    """Download the named datasets' missing files into the per-user cache, verifying their checksums."""
    from kpca_bench.datasets import files, openml_data
    from kpca_bench.datasets.registry import get_spec

    try:
        for name in names:
            if name.startswith(openml_data.FETCH_PREFIX):
                _fetch_openml(name)
                continue
            spec = get_spec(name)
            if not spec.files:
                typer.echo(f"{spec.name}: built in, nothing to fetch")
                continue
            paths = files.ensure(spec.name, spec.files, spec.homepage, offline=False)
            files.checked_records(spec.name, spec.files, paths)
            typer.echo(f"{spec.name}: ok ({', '.join(str(path) for path in paths.values())})")
    except KpcaBenchError as error:
        fail(error)
