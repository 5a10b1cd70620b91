"""The on-disk store of trial records, and atomic file writes.

A results folder keeps its records in two files. ``records.parquet`` is the table of a finished run
(:mod:`~kpca_bench.experiment.record_table`: typed columns, the run's constants once), the file that is
kept and committed. ``records.jsonl`` is the journal a run appends to, one JSON line per cell, as
each finishes; :meth:`ResultStore.compact` folds it into the table at the end of a run and before a
resumed one plans, and removes it. Reading takes both, the journal's record winning for a key.

A record is durable as soon as :meth:`ResultStore.append` returns (flushed and
fsync'd), so an interrupt loses no finished cell. An append that fails (a full
disk) is cut back, so the lines before it stay whole and no partial line stays. A line that cannot be
read — cut short by a kill mid-write, or damaged in any other way — is skipped
by :meth:`ResultStore.load`; :meth:`ResultStore.set_aside_damaged` (called by
the one writer of the folder) moves it to ``records.damaged.jsonl`` beside the
store, so that its cell runs again and the line is reported once.

Every write of a table or figure goes through :func:`atomic_output`: a unique
temporary file in the target's folder, renamed over the target when complete,
so readers see the old file or the new one, concurrent writers never share a
temporary name, and a failed write leaves no temporary file. An ``OSError``
while writing becomes a one-line :class:`~kpca_bench.errors.StorageError`.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kpca_bench.errors import StorageError

RECORDS_FILE = "records.jsonl"
TABLE_FILE = "records.parquet"
DAMAGED_FILE = "records.damaged.jsonl"


@dataclass(frozen=True)
class DamagedLine:
    number: int
    text: bytes

    @property
    def problem(self) -> str:
        return "damaged" if self.text.endswith(b"\n") else "cut short (a write was interrupted)"


class ResultStore:
    """A folder's records, keyed by their ``key`` field: the table of the finished run and the journal appended
    to since (``path``)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.path = self.directory / RECORDS_FILE
        self.table_path = self.directory / TABLE_FILE
        self.damaged_path = self.directory / DAMAGED_FILE

    def exists(self) -> bool:
        """Whether the folder holds records (a table, a journal or both)."""
        return self.table_path.is_file() or self.path.is_file()

    def load(self) -> dict[str, dict]:
        """All readable records: the table's, then the journal's, later ones winning for a repeated key; damaged
        lines of the journal are skipped. A table that cannot be read is a one-line :class:`StorageError`."""
        # The journal first: a compaction between the two reads then leaves its records in the table.
        journal = self._read()[0]
        records = self._table()
        records.update(journal)
        return records

    def records(self) -> list[dict]:
        """:meth:`load`'s records as a list, in stored order."""
        return list(self.load().values())

    def compact(self) -> list[str]:
        """Fold the journal into the table (written whole, then renamed over the old one) and remove it; the
        messages of :meth:`set_aside_damaged`. Nothing to do without a journal.

        Only the process holding the folder's lock may call this. A kill at any point loses no record: until
        the journal is removed, its records are in it, and from the rename on in the table too.
        """
        from kpca_bench.experiment.record_table import write_records

        if not self.path.exists():
            return []
        messages = self.set_aside_damaged()
        records = list(self.load().values())
        with atomic_output(self.table_path) as tmp, writing(self.table_path):
            write_records(tmp, records)
            with tmp.open("rb") as handle:
                os.fsync(handle.fileno())
        with writing(self.path):
            self.path.unlink()
        return messages

    def set_aside_damaged(self) -> list[str]:
        """Move damaged lines to the side file; one message per line moved, naming the file and line number.

        Only the process holding the folder's lock may call this: it rewrites the store.
        """
        records, damaged, whole = self._read()
        if not damaged:
            return []
        with writing(self.damaged_path), self.damaged_path.open("ab") as side:
            side.write(b"".join(line.text.rstrip(b"\n") + b"\n" for line in damaged))
            side.flush()
            os.fsync(side.fileno())
        write_atomic(self.path, "".join(whole))
        return [
            f"{self.path}: line {line.number} is {line.problem}; moved it to {self.damaged_path}, its cell runs again"
            for line in damaged
        ]

    def append(self, record: dict) -> None:
        self.extend([record])

    def extend(self, records: list[dict]) -> None:
        """Append ``records`` in one write; if it fails none of them is stored."""
        lines = "".join(json.dumps(record, sort_keys=True, allow_nan=True) + "\n" for record in records).encode()
        with writing(self.path):
            self.directory.mkdir(parents=True, exist_ok=True)
        # Unbuffered: each write goes to the file at once, so a failed one leaves no buffer for the
        # truncate below to flush (and fail on) again.
        with writing(self.path), self.path.open("ab", buffering=0) as handle:
            end = handle.seek(0, os.SEEK_END)
            try:
                written = 0
                while written < len(lines):  # a nearly full disk takes part of a write, then refuses the rest
                    written += handle.write(lines[written:])
                os.fsync(handle.fileno())
            except OSError:
                # Leave no partial line behind: the records before these stay readable.
                handle.truncate(end)
                raise

    def _table(self) -> dict[str, dict]:
        """The table's records by key ({} without a table)."""
        from pyarrow import ArrowException

        from kpca_bench.experiment.record_table import RecordTableError, read_records

        if not self.table_path.exists():
            return {}
        try:
            return {record["key"]: record for record in read_records(self.table_path)}
        except RecordTableError as error:
            raise StorageError(
                f"{self.table_path}: {error}; migrate an older one with the repository's "
                f"migrations/cell_keys.py {self.table_path.parent}, or read it with the kpca-bench "
                "that wrote it"
            ) from None
        except (OSError, ValueError, ArrowException) as error:
            raise StorageError(
                f"{self.table_path} cannot be read ({' '.join(str(error).split())}); restore it "
                "(e.g. git checkout), or move it away to run its cells again"
            ) from None

    def _read(self) -> tuple[dict[str, dict], list[DamagedLine], list[str]]:
        """The journal's records by key, its damaged lines, and its whole lines as text."""
        if not self.path.exists():
            return {}, [], []
        records, damaged, whole = {}, [], []
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                record = parse_record(raw)
                if record is None:
                    damaged.append(DamagedLine(number, raw))
                else:
                    records[record["key"]] = record
                    whole.append(raw.decode())
        return records, damaged, whole


def failed_record(key: str, error: BaseException, cause: str = "") -> dict:
    """The record of a cell that raised ``error``: status ``failed``, the exception's type and message."""
    return {"key": key, "status": "failed", "error_type": type(error).__name__, "error": cause + str(error).strip()}


def parse_record(raw: bytes) -> dict | None:
    """The record on a complete line of the store, or None if the line is cut short or damaged."""
    if not raw.endswith(b"\n"):
        return None
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        return None
    return record


def read_state(path: Path, valid: Callable[[dict], bool] = lambda data: True) -> tuple[dict | None, str | None]:
    """A JSON state file of a results folder (``run.json``, ``provenance.json``, ``environment.json``) as
    ``(data, None)``; ``(None, None)`` if there is none; ``(None, message)`` if it is damaged (not UTF-8 JSON,
    not a mapping, or not ``valid``): then it is moved aside (:func:`set_aside`) and ``message`` says so,
    so that the caller can go on without it."""
    path = Path(path)
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None, None
    except ValueError:  # UnicodeDecodeError and JSONDecodeError both are
        data = None
    except OSError as error:
        raise StorageError(
            f"cannot read {path}: {os.strerror(error.errno) if error.errno else error}; "
            "make it a readable file or remove it"
        ) from None
    if isinstance(data, dict) and valid(data):
        return data, None
    return None, f"{path} is damaged; moved it to {set_aside(path)}"


def set_aside(path: Path) -> Path:
    """Move a damaged file to ``STEM.damaged.SUFFIX`` beside it (``STEM.damaged-2.SUFFIX``, ... if taken),
    keeping every earlier damaged copy; the new path."""
    path = Path(path)
    target, number = path.with_name(f"{path.stem}.damaged{path.suffix}"), 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.stem}.damaged-{number}{path.suffix}")
    with writing(path):
        os.replace(path, target)
    return target


@contextmanager
def writing(path) -> Iterator[None]:
    """Turn an ``OSError`` raised while writing ``path`` into a one-line StorageError."""
    try:
        yield
    except OSError as error:
        raise StorageError.from_os_error(path, error) from None


@contextmanager
def atomic_output(path) -> Iterator[Path]:
    """A unique temporary path next to ``path`` to write to; renamed to ``path`` if the block succeeds.

    The temporary file is removed if anything fails, and an ``OSError`` becomes a StorageError.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    with writing(path):
        # Created here, exclusively, with the permissions a plain write would give (mkstemp's are 0600).
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        try:
            yield tmp
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def write_atomic(path, text: str) -> None:
    """Write a text file so that readers see the old or the new content, never a mix."""
    with atomic_output(path) as tmp:
        tmp.write_text(text)


def write_table(directory: Path, stem: str, frame, markdown: str) -> list[Path]:
    """``STEM.csv`` (the frame) and ``STEM.md`` (its Markdown) in ``directory``, each atomically; their paths."""
    paths = [Path(directory) / f"{stem}.csv", Path(directory) / f"{stem}.md"]
    write_atomic(paths[0], frame.to_csv(index=False))
    write_atomic(paths[1], markdown)
    return paths
