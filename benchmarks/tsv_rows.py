"""Append one row to a benchmark's tab-separated results file, writing the header when the file is new."""

from __future__ import annotations

import csv
from pathlib import Path


def append_row(path: Path, columns: tuple[str, ...], row: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, columns, delimiter="\t")
        if new:
            writer.writeheader()
        writer.writerow(row)
