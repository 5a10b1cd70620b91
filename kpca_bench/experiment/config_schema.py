"""The config as JSON Schema (draft 2020-12), for editors to complete and check configs (``kpca-bench schema``).

It is built from the same declarations the loader checks (:func:`~kpca_bench.validation.declared`
fields of the config dataclasses, each protocol's options dataclass, the method and dataset
registries), so the two cannot drift apart. The schema checks the shape of a config (its keys, their
types and choices); the loader checks the rest (ranges against the data, a method's parameter values).
"""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, Field, fields
from pathlib import Path

from kpca_bench.datasets import DATASETS
from kpca_bench.errors import StorageError
from kpca_bench.experiment.config import (
    RUNNER_PARAMS,
    Config,
    ExecutionConfig,
    OutputConfig,
    ReferenceConfig,
    StatisticsConfig,
    SuiteConfig,
)
from kpca_bench.experiment.config_parser import TOP_LEVEL
from kpca_bench.methods.registry import METHODS
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.protocols.base import DatasetConfig, MethodConfig, ThresholdConfig
from kpca_bench.validation import PROFILES, RANGE_KEYS, accepted_keys, required_keys

DRAFT = "https://json-schema.org/draft/2020-12/schema"
# The JSON type of each scalar annotation a config field or protocol option carries.
JSON_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "dict": "object", "None": "null"}
RANGE = {
    "type": "object",
    "properties": {key: {"type": "number"} for key in RANGE_KEYS},
    "required": list(RANGE_KEYS),
    "additionalProperties": False,
    "description": "the values start, start + step, ..., stop",
}
LABELS = {
    "anyOf": [
        {"type": ["string", "integer"]},
        {"type": "array", "items": {"type": ["string", "integer"]}, "minItems": 1},
    ]
}
IMPORT_PATH = r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$"


def annotation_schema(annotation: str) -> dict:
    """The JSON Schema of a field's annotation (a string, the modules use postponed annotations):
    scalars, ``X | None``, ``tuple[...]`` as a list; anything else accepts any value."""
    types, items = [], None
    for part in (p.strip() for p in annotation.split("|")):
        if part.startswith("tuple"):
            item = re.fullmatch(r"tuple\[(\w+), \.\.\.\]", part)
            types.append("array")
            items = annotation_schema(item.group(1)) if item else None
        elif part in JSON_TYPES:
            types.append(JSON_TYPES[part])
        else:
            return {}
    return {"type": types[0] if len(types) == 1 else types, **({"items": items} if items else {})}


def field_schema(declared: Field) -> dict:
    """A declared field's schema: its type, choices, minimum, default and meaning."""
    schema = annotation_schema(str(declared.type))
    meta = declared.metadata
    if meta.get("choices"):
        target = schema.setdefault("items", {}) if schema.get("type") == "array" else schema
        target["enum"] = list(meta["choices"])
    if meta.get("minimum") is not None:
        schema["minimum"] = meta["minimum"]
    if declared.default is not MISSING and isinstance(declared.default, (str, int, float, bool, tuple)):
        schema["default"] = list(declared.default) if isinstance(declared.default, tuple) else declared.default
    if meta.get("doc"):
        schema["description"] = meta["doc"]
    return schema


def entry_schema(cls, **overrides: dict) -> dict:
    """A config entry of dataclass ``cls``: its accepted keys only, each as declared or as overridden."""
    declared = {f.name: f for f in fields(cls)}
    properties = {key: overrides.get(key, field_schema(declared[key])) for key in accepted_keys(cls)}
    return {
        "type": "object",
        "properties": properties,
        "required": list(required_keys(cls)),
        "additionalProperties": False,
    }


def dataset_schema() -> dict:
    """A ``dataset:`` entry; which class and size keys a protocol needs is checked at load."""
    name = {
        "enum": list(DATASETS),
        "description": "a registered dataset ('kpca-bench datasets list'), 'file' or 'openml'",
    }
    return entry_schema(DatasetConfig, name=name, inliers=LABELS, outliers=LABELS)


def suite_schema(dataset: dict) -> dict:
    """A ``suite:``: a collection, its selection, and dataset keys shared by its datasets."""
    schema = entry_schema(SuiteConfig)
    shared = {key: value for key, value in dataset["properties"].items() if key != "name"}
    schema["properties"] = {**schema["properties"], **shared}
    return schema


def option_schema(declared: Field) -> dict:
    """A protocol option: as declared (:func:`field_schema`), or a ``{start, stop, step}`` range in its place."""
    schema = field_schema(declared)
    described = {key: schema.pop(key) for key in ("description", "default") if key in schema}
    return {"anyOf": [schema, RANGE], **described}


def protocol_schema() -> dict:
    """``protocol: NAME`` or ``protocol: {name: NAME, <option>: value}`` with that protocol's options."""
    names = list(PROTOCOLS)
    by_name = [
        {
            "if": {"properties": {"name": {"const": name}}},
            "then": {
                "properties": {
                    "name": {},
                    **{f.name: option_schema(f) for f in fields(protocol.options) if f.name in protocol.option_names()},
                },
                "additionalProperties": False,
            },
        }
        for name, protocol in PROTOCOLS.items()
    ]
    mapping = {"type": "object", "properties": {"name": {"enum": names}}, "required": ["name"], "allOf": by_name}
    return {
        "anyOf": [{"enum": names}, mapping],
        "description": "a protocol ('kpca-bench protocols'), or a mapping of its name and options",
    }


def method_schema() -> dict:
    """A ``methods`` entry; a registered method's ``params`` and ``grid`` take that method's parameters."""
    values = {"anyOf": [{"type": "array", "minItems": 1}, RANGE]}
    schema = entry_schema(
        MethodConfig,
        name={"anyOf": [{"enum": list(METHODS)}, {"type": "string", "pattern": IMPORT_PATH}]},
        grid={
            "type": "object",
            "additionalProperties": values,
            "description": "parameter values to sweep: a list or {start, stop, step}",
        },
    )
    schema["allOf"] = [
        {
            "if": {"properties": {"name": {"const": name}}},
            "then": {"properties": {part: {"propertyNames": {"enum": parameters}} for part in ("params", "grid")}},
        }
        for name, spec in METHODS.items()
        if (parameters := [p for p in spec.param_names() if p not in RUNNER_PARAMS])
    ]
    return schema


def profiles_schema() -> dict:
    """``profiles:``: each profile other than full overrides top-level keys (``methods`` keyed by label)."""
    overrides = {"type": "object", "propertyNames": {"enum": [key for key in TOP_LEVEL if key != "profiles"]}}
    return {
        "type": "object",
        "properties": {name: overrides for name in PROFILES if name != "full"},
        "additionalProperties": False,
        "description": "smaller runs of the same experiment (--profile)",
    }


def config_schema() -> dict:
    """The JSON Schema of an experiment config file."""
    dataset = dataset_schema()
    top = entry_schema(
        Config,
        name={"type": "string", "pattern": r"^[A-Za-z0-9_-]+$", "description": "names the results folder"},
        dataset=dataset,
        datasets={"type": "array", "minItems": 1, "items": {"anyOf": [dataset["properties"]["name"], dataset]}},
        suite=suite_schema(dataset),
        protocol=protocol_schema(),
        methods={"type": "array", "minItems": 1, "items": method_schema()},
        threshold=entry_schema(ThresholdConfig),
        output=entry_schema(OutputConfig),
        reference=entry_schema(ReferenceConfig),
        execution=entry_schema(ExecutionConfig),
        statistics=entry_schema(StatisticsConfig),
    )
    top["properties"]["profiles"] = profiles_schema()
    # One dataset, or several (datasets and / or suite), never both.
    top["required"] = [key for key in top["required"] if key != "dataset"]
    top["oneOf"] = [{"required": ["dataset"]}, {"anyOf": [{"required": ["datasets"]}, {"required": ["suite"]}]}]
    return {"$schema": DRAFT, "title": "kpca-bench experiment config", **top}


def schema_text() -> str:
    """:func:`config_schema` as indented JSON text."""
    return json.dumps(config_schema(), indent=2) + "\n"


def write_schema(path: Path) -> Path:
    """Write :func:`schema_text` to ``path``; :class:`~kpca_bench.errors.StorageError` if it cannot be written."""
    try:
        Path(path).write_text(schema_text(), encoding="utf-8")
    except OSError as error:
        raise StorageError.from_os_error(path, error) from None
    return Path(path)
