"""The config's JSON Schema: built from the loader's declarations, it accepts every committed config and
rejects what the loader rejects for its shape (an unknown key, a choice not offered)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from kpca_bench.experiment.config_parser import TOP_LEVEL
from kpca_bench.experiment.config_schema import annotation_schema, config_schema
from kpca_bench.errors import ConfigError

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = yaml.safe_load((ROOT / "configs" / "quickstart.yaml").read_text())
VALIDATOR = jsonschema.Draft202012Validator(config_schema())


def committed_configs() -> list[Path]:
    paths = [path for folder in ("configs", "reproductions") for path in (ROOT / folder).glob("**/*.yaml")]
    return sorted(path for path in paths if "methods" in (yaml.safe_load(path.read_text()) or {}))


def test_the_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(config_schema())
    assert config_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_its_top_level_keys_are_those_the_loader_accepts():
    assert tuple(config_schema()["properties"]) == TOP_LEVEL


@pytest.mark.parametrize("path", committed_configs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_committed_config_validates(path):
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(yaml.safe_load(path.read_text()))]
    assert not errors


def edited(change) -> dict:
    raw = copy.deepcopy(QUICKSTART)
    change(raw)
    return raw


BAD = {
    "unknown adbench option": lambda r: r.update(protocol={"name": "adbench", "max_trian": 500}),
    "unknown choice of an adbench option": lambda r: r.update(protocol={"name": "adbench", "train_on": "outliers"}),
    "unknown top-level key": lambda r: r.update(trails=3),
    "unknown dataset key": lambda r: r["dataset"].update(scalling="standard"),
    "unknown scaling": lambda r: r["dataset"].update(scaling="zscore"),
    "unknown dataset": lambda r: r["dataset"].update(name="digitz"),
    "unknown method": lambda r: r["methods"][0].update(name="kcpa"),
    "unknown method key": lambda r: r["methods"][0].update(lable="x"),
    "unknown parameter of a registered method": lambda r: r["methods"][0]["params"].update(nuu=0.1),
    "unknown protocol option": lambda r: r.update(protocol={"name": "novelty_sweep", "nuu": [0.1]}),
    "unknown protocol": lambda r: r.update(protocol="novel"),
    "unknown threshold rule": lambda r: r["threshold"].update(rule="median"),
    "unknown profile": lambda r: r.update(profiles={"fast": {"trials": 2}}),
    "unknown key in a profile": lambda r: r.update(profiles={"quick": {"trails": 2}}),
    "dataset and datasets": lambda r: r.update(datasets=["digits"]),
    "no dataset": lambda r: r.pop("dataset"),
    "no methods": lambda r: r.pop("methods"),
    "trials 0": lambda r: r.update(trials=0),
}


@pytest.mark.parametrize("change", BAD.values(), ids=BAD)
def test_a_config_the_loader_rejects_for_its_shape_does_not_validate(change):
    raw = edited(change)
    with pytest.raises(ConfigError):
        load_config_from(raw)
    assert list(VALIDATOR.iter_errors(raw))


def load_config_from(raw: dict):
    from kpca_bench.experiment.config_parser import parse_config

    return parse_config(raw)


GOOD = {
    "a grid as a range": lambda r: (
        r["methods"][0]["params"].pop("n_components"),
        r["methods"][0].update(grid={"n_components": {"start": 2, "stop": 6, "step": 2}}),
    ),
    "a class by import path": lambda r: r["methods"].append(
        {"name": "sklearn.ensemble:IsolationForest", "label": "IF", "params": {"n_estimators": 50}}
    ),
    "a suite with shared dataset keys": lambda r: (
        r.pop("dataset"),
        r.update(
            protocol={"name": "adbench", "max_train": 500},
            methods=r["methods"][:1],
            suite={"collection": "adbench", "include": ["adbench_wine"], "scaling": "standard"},
        ),
    ),
}


@pytest.mark.parametrize("change", GOOD.values(), ids=GOOD)
def test_a_config_the_loader_accepts_validates(change):
    raw = edited(change)
    load_config_from(raw)
    assert not list(VALIDATOR.iter_errors(raw))


@pytest.mark.parametrize(
    "annotation, schema",
    [
        ("str", {"type": "string"}),
        ("int | None", {"type": ["integer", "null"]}),
        ("tuple[float, ...]", {"type": "array", "items": {"type": "number"}}),
        ("tuple", {"type": "array"}),
        ("tuple[int, ...] | None", {"type": ["array", "null"], "items": {"type": "integer"}}),
        ("Classifier", {}),
    ],
)
def test_annotation_schema(annotation, schema):
    assert annotation_schema(annotation) == schema
