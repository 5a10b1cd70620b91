"""A run's records as one typed Parquet table, and back, losslessly.

A record is a JSON mapping (:mod:`kpca_bench.experiment.store`). In the table each field is a column:
a field whose values are all of one scalar type (bool, int, float, str) a typed column, one whose values
are all lists of floats a ``list<double>`` column, any other (mappings, mixed types, explicit nulls)
its values' JSON text. A missing field is a null. A field with the same value in every record of the
table (the package versions, the data's files, the dataset) is stored once, in the file's metadata,
not in a column; the ``key``, one per record, always has its column. The metadata also holds
:data:`SCHEMA_VERSION`; :func:`read_records` refuses any other version, so a change of the layout or of
what the records' keys mean is a new version with its migration (``migrations/``). Version 2: the cells are
keyed by :func:`~kpca_bench.experiment.planning.cell_key`'s schema 2; version 1 by schema 1.

:func:`read_records` returns the records exactly as :func:`write_records` was given them: the same
fields with the same values and types, every mapping in sorted order as the JSON journal keeps them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA_VERSION = 2
SCHEMA_KEY = b"kpca_bench.records_schema"
CONSTANTS_KEY = b"kpca_bench.constants"
JSON_COLUMNS_KEY = b"kpca_bench.json_columns"
# zstd at a high level: the lists of ROC points and sweep AUROCs take most of the room (docs/running.md).
COMPRESSION = {"compression": "zstd", "compression_level": 19}

SCALAR_TYPES = {bool: pa.bool_(), int: pa.int64(), float: pa.float64(), str: pa.string()}
INT64_LIMIT = 2**63
_MISSING = object()


class RecordTableError(ValueError):
    """A records table this version cannot read: another schema version, or not one of ours."""


def as_json(value) -> str:
    return json.dumps(value, sort_keys=True, allow_nan=True)


def column_type(values: list) -> pa.DataType | None:
    """The Arrow type that holds every present value of a field as it is, or None: JSON text then."""
    kinds = {type(v) for v in values}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind is list and all(type(x) is float for v in values for x in v):
        return pa.list_(pa.float64())
    if kind is int and any(abs(v) >= INT64_LIMIT for v in values):
        return None
    return SCALAR_TYPES.get(kind)


def records_table(records: list[dict]) -> pa.Table:
    """The records as a table: typed columns, JSON text columns and the constant fields in the metadata."""
    names = sorted({name for record in records for name in record})
    constants, columns, json_columns = {}, {}, []
    for name in names:
        values = [record.get(name, _MISSING) for record in records]
        if name != "key" and len(records) > 1 and _MISSING not in values and len({as_json(v) for v in values}) == 1:
            constants[name] = values[0]
            continue
        present = [v for v in values if v is not _MISSING]
        kind = column_type(present)
        if kind is None:
            json_columns.append(name)
            kind, present_as = pa.string(), as_json
        else:
            present_as = None
        columns[name] = pa.array(
            [None if v is _MISSING else present_as(v) if present_as else v for v in values], type=kind
        )
    return pa.table(columns).replace_schema_metadata(
        {
            SCHEMA_KEY: str(SCHEMA_VERSION).encode(),
            CONSTANTS_KEY: as_json(constants).encode(),
            JSON_COLUMNS_KEY: as_json(json_columns).encode(),
        }
    )


def table_records(table: pa.Table, version: int = SCHEMA_VERSION) -> list[dict]:
    """The records a table of :func:`records_table` holds, if it is of schema ``version`` (a migration reads
    an older one)."""
    metadata = table.schema.metadata or {}
    found = metadata.get(SCHEMA_KEY)
    if found is None:
        raise RecordTableError("it is not a kpca-bench records table (no schema version in its metadata)")
    if found != str(version).encode():
        raise RecordTableError(
            f"its records schema is version {found.decode()}, this kpca-bench reads version {version}"
        )
    constants = json.loads(metadata[CONSTANTS_KEY])
    json_columns = set(json.loads(metadata[JSON_COLUMNS_KEY]))
    columns = {name: (table.column(name).to_pylist(), name in json_columns) for name in table.column_names}
    records = []
    for row in range(table.num_rows):
        record = dict(constants)
        for name, (values, is_json) in columns.items():
            if values[row] is not None:
                record[name] = json.loads(values[row]) if is_json else values[row]
        records.append(dict(sorted(record.items())))
    return records


def write_records(path: Path, records: list[dict]) -> None:
    """Write ``records`` to the Parquet file ``path`` (the caller makes the write atomic)."""
    pq.write_table(records_table(records), path, **COMPRESSION)


def read_records(path: Path, version: int = SCHEMA_VERSION) -> list[dict]:
    """The records of the Parquet file ``path``; :class:`RecordTableError` if it is not of schema ``version``,
    ``OSError`` or Arrow's error if it cannot be read at all."""
    return table_records(pq.read_table(path), version)


def schema_version(path: Path) -> int | None:
    """The schema version of the records table ``path`` (None: not a kpca-bench records table)."""
    found = (pq.read_schema(path).metadata or {}).get(SCHEMA_KEY)
    return None if found is None else int(found)
