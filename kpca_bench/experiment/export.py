"""``kpca-bench export RUN --format parquet|json|csv``: a run's or a suite's records as one file for other tools.

One row per cell, every field of its record: scalars as columns, mappings and
lists (``params``, ``versions``, ROC points, ...) as JSON text in CSV and
Parquet, and kept as they are in JSON. A suite's cells carry the dataset they
belong to, and its tables across datasets are written beside them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.store import TABLE_FILE, ResultStore, atomic_output, write_atomic

FORMATS = ("parquet", "json", "csv")
EXPORT_STEM = "export"


def run_records(directory) -> list[dict]:
    """The records of a results folder, in the order stored; a one-line error if there are none."""
    directory = Path(directory)
    store = ResultStore(directory)
    if not store.exists():
        raise KpcaBenchError(
            f"{directory}: no {TABLE_FILE} here; name a run's results folder, e.g. "
            "results/quickstart, or a suite's, e.g. results/adbench_classical"
        )
    return list(store.load().values())


def suite_members(directory) -> dict[str, Path]:
    """A suite's results folder: its datasets' run folders (the sub-folders with records) by dataset name.

    Empty for a single run's folder (it has records of its own) and for a folder that is neither.
    """
    directory = Path(directory)
    if ResultStore(directory).exists() or not directory.is_dir():
        return {}
    return {member.name: member for member in sorted(directory.iterdir()) if ResultStore(member).exists()}


def suite_records(directory) -> list[dict]:
    """Every dataset's records of a suite, each with ``dataset`` set to its dataset's folder name (the
    record's own ``dataset``, the data source, kept as ``dataset_source``)."""
    members = suite_members(directory)
    if not members:
        run_records(directory)  # raises the one-line error naming what is missing
    return [
        {"dataset": name, **{("dataset_source" if key == "dataset" else key): value for key, value in record.items()}}
        for name, member in members.items()
        for record in run_records(member)
    ]


def export_run(directory, fmt: str, output: Path | None = None, tables: bool = True) -> list[Path]:
    """Write the records of a run or a suite to ``output`` (default ``<folder>/export.<fmt>``); return the paths.

    A suite's records carry a ``dataset`` column; with ``tables``, its tables across datasets (the CSV
    files of its folder: ranks, tests, one row per dataset and method) are written beside ``output`` in
    the same format, as ``<output stem>_<table>.<fmt>``.
    """
    if fmt not in FORMATS:
        raise KpcaBenchError(f"--format: unknown format {fmt!r}; accepted: {', '.join(FORMATS)}")
    directory = Path(directory)
    suite = bool(suite_members(directory))
    records = suite_records(directory) if suite else run_records(directory)
    # Not records.parquet, the folder's own store (kpca_bench.experiment.store).
    output = Path(output) if output is not None else directory / f"{EXPORT_STEM}.{fmt}"
    written = [write_records(records, fmt, output)]
    if suite and tables:
        import pandas as pd

        for table in suite_tables(directory, output.stem):
            path = output.with_name(f"{output.stem}_{table.stem}.{fmt}")
            written.append(write_records(pd.read_csv(table).to_dict(orient="records"), fmt, path))
    return written


def suite_tables(directory: Path, exported: str) -> list[Path]:
    """The CSV tables of a suite's folder, but for those an export named ``exported`` wrote there before."""
    return [
        table
        for table in sorted(directory.glob("*.csv"))
        if table.stem != exported and not table.stem.startswith(f"{exported}_")
    ]


def write_records(records: list[dict], fmt: str, output: Path) -> Path:
    """Write ``records`` (one mapping per row) to ``output`` as ``fmt`` and return its path."""
    if fmt == "json":
        # A missing number (NaN in a table) is null, as JSON has no NaN.
        write_atomic(
            output,
            json.dumps(
                [
                    {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in record.items()}
                    for record in records
                ],
                indent=1,
                sort_keys=True,
            )
            + "\n",
        )
        return output
    import pandas as pd

    frame = pd.DataFrame(
        [
            {k: json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v for k, v in record.items()}
            for record in records
        ]
    )
    if fmt == "csv":
        write_atomic(output, frame.to_csv(index=False))
        return output
    # Columns mixing types (a value in some records, None in others) stay as they are; objects become text.
    for column in frame.columns[frame.dtypes.eq(object)]:
        frame[column] = frame[column].map(lambda v: v if v is None or isinstance(v, str) else str(v))
    with atomic_output(output) as tmp:
        frame.to_parquet(tmp, index=False)
    return output
