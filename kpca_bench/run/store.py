"""The on-disk store of trial records: one JSON line per finished cell, appended at once.

A record is durable as soon as :meth:`ResultStore.append` returns (flushed and
fsync'd), so an interrupt loses no finished cell. A kill in the middle of a
write can leave a partial last line; :meth:`ResultStore.load` drops it, and the
next append starts on a fresh line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

RECORDS_FILE = "records.jsonl"


class ResultStore:
    """Append-only JSON-lines file of records, keyed by their ``key`` field."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.path = self.directory / RECORDS_FILE

    def load(self) -> dict[str, dict]:
        """All complete records, later ones winning for a repeated key."""
        if not self.path.exists():
            return {}
        self._drop_partial_line()
        records = {}
        with self.path.open() as handle:
            for line in handle:
                record = json.loads(line)
                records[record["key"]] = record
        return records

    def append(self, record: dict) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record, sort_keys=True, allow_nan=True) + "\n"
        with self.path.open("a") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def _drop_partial_line(self) -> None:
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)


def write_atomic(path: Path, text: str) -> None:
    """Write a text file so that readers see the old or the new content, never a mix."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
