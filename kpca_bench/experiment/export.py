"""``kpca-bench export RUN --format parquet|json|csv``: a run's records as one file for other tools.

One row per cell, every field of its record: scalars as columns, mappings and
lists (``params``, ``versions``, ROC points, ...) as JSON text in CSV and
Parquet, and kept as they are in JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.store import RECORDS_FILE, ResultStore, atomic_output, write_atomic

FORMATS = ("parquet", "json", "csv")


def run_records(directory) -> list[dict]:
    """The records of a results folder, in the order stored; a one-line error if there are none."""
    directory = Path(directory)
    if not (directory / RECORDS_FILE).is_file():
        raise KpcaBenchError(f"{directory}: no {RECORDS_FILE} here; name a run's results folder, e.g. "
                             "results/quickstart")
    return list(ResultStore(directory).load().values())


def export_run(directory, fmt: str, output: Path | None = None) -> Path:
    """Write the run's records to ``output`` (default ``<run>/records.<fmt>``) and return its path."""
    if fmt not in FORMATS:
        raise KpcaBenchError(f"--format: unknown format {fmt!r}; accepted: {', '.join(FORMATS)}")
    records = run_records(directory)
    output = Path(output) if output is not None else Path(directory) / f"records.{fmt}"
    if fmt == "json":
        write_atomic(output, json.dumps(records, indent=1, sort_keys=True) + "\n")
        return output
    import pandas as pd

    frame = pd.DataFrame([{k: json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v
                           for k, v in record.items()} for record in records])
    if fmt == "csv":
        write_atomic(output, frame.to_csv(index=False))
        return output
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise KpcaBenchError('parquet needs pyarrow: pip install "kpca-bench[parquet]"') from None
    # Columns mixing types (a value in some records, None in others) stay as they are; objects become text.
    for column in frame.columns[frame.dtypes == object]:
        frame[column] = frame[column].map(lambda v: v if v is None or isinstance(v, str) else str(v))
    with atomic_output(output) as tmp:
        frame.to_parquet(tmp, index=False)
    return output
