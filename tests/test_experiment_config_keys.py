"""The config hash and the planned cells of every committed config stay as they were recorded.

Committed results are found by these keys: a change to the config dataclasses, their parsing
or the key rule that moves one would orphan stored records. ``tests/data/config_keys.json`` holds
them, by config name; ``python tests/test_experiment_config_keys.py`` rewrites it (only when a
key change is intended and the stored records are migrated with it, as ``migrations/`` does).

``tests/data/config_keys_schema1.json`` holds, for the configs as they were when the records were
migrated to schema 2, their keys of schema 1 (as kpca-bench computed them then) beside those of
schema 2: the migration's frozen schema-1 rule must give the former wherever a config still gives
the latter.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

import pytest
import yaml

from migrations.cell_keys import old_cell_keys, old_config_hash

from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import plan_cells

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).with_name("data") / "config_keys.json"
SCHEMA1 = Path(__file__).with_name("data") / "config_keys_schema1.json"
QUICKSTART = ROOT / "configs" / "quickstart.yaml"


def committed_configs() -> list[Path]:
    """Every experiment config in the repository (the examples, suites, paper configs and variants): a YAML
    mapping with ``methods``, which a reproduction's reference numbers, claims and choices have not."""
    paths = [path for folder in ("configs", "reproductions") for path in (ROOT / folder).glob("**/*.yaml")]
    return sorted(path for path in paths if "methods" in (read_yaml(path) or {}))


def read_yaml(path: Path):
    return yaml.safe_load(path.read_text())


def profile_keys(config, schema: int = 2) -> dict:
    """The config hash of a profile's config and of each suite member, and a digest of its planned cells, by the
    rule of key schema ``schema`` (1: the migration's frozen one)."""
    config_hash = (lambda c: c.config_hash()) if schema == 2 else old_config_hash
    cells = hashlib.sha256()
    members, count = {}, 0
    for label, member in config.members():
        planned = plan_cells(member)
        keys = [cell.key for cell in planned] if schema == 2 else old_cell_keys(member, planned)
        count += len(planned)
        members[label] = config_hash(member)
        for cell, key in zip(planned, keys):
            cells.update(f"{label} {key} {cell.split_seed} {cell.random_state}\n".encode())
    return {"config_hash": config_hash(config), "members": members, "n_cells": count, "cells": cells.hexdigest()[:16]}


@cache
def config_keys(path: Path, schema: int = 2) -> tuple[str, dict]:
    """The config's name and :func:`profile_keys` for each of the profiles it declares."""
    declared = read_yaml(path).get("profiles") or {}
    profiles = {profile: load_config(path, profile) for profile in ("full", *declared)}
    return profiles["full"].name, {profile: profile_keys(config, schema) for profile, config in profiles.items()}


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads(FIXTURE.read_text())


# The quickstart in the quick subset; the sweep over every config in `make test`.
@pytest.mark.parametrize(
    "path",
    [pytest.param(path, marks=() if path == QUICKSTART else pytest.mark.slow) for path in committed_configs()],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_keys_of_each_committed_config_are_unchanged(path, expected):
    name, keys = config_keys(path)
    assert name in expected, f"{name} is not in {FIXTURE.name}; a new config: run this module to add it"
    assert keys == expected[name]


def test_every_recorded_config_is_still_committed(expected):
    assert {config_keys(path)[0] for path in committed_configs()} == set(expected)


@pytest.mark.parametrize(
    "path",
    [pytest.param(path, marks=() if path == QUICKSTART else pytest.mark.slow) for path in committed_configs()],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_migrations_schema_1_rule_gives_the_keys_schema_1_recorded(path):
    recorded = json.loads(SCHEMA1.read_text())
    name, keys = config_keys(path)
    if recorded.get(name, {}).get("schema 2") != keys:
        pytest.skip(f"{name} has changed since the migration to schema 2 (or is new)")
    assert config_keys(path, 1)[1] == recorded[name]["schema 1"]


if __name__ == "__main__":
    FIXTURE.write_text(
        json.dumps(dict(config_keys(path) for path in committed_configs()), indent=1, sort_keys=True) + "\n"
    )
