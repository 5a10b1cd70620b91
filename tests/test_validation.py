"""The declarations of config keys: accepted and required keys, and an entry's written fields, are read from the
fields."""

import inspect
from dataclasses import dataclass

import numpy as np
import pytest

from kpca_bench.api import run
from kpca_bench.errors import ConfigError
from kpca_bench.protocols.base import DatasetConfig
from kpca_bench.validation import (
    RUN_ARGUMENTS,
    accepted_keys,
    as_flag,
    as_keyword,
    check_run_arguments,
    declaration,
    declared,
    plain,
    required_keys,
    written_fields,
)


@dataclass(frozen=True)
class Entry:
    name: str = declared(doc="required: no default")
    label: str = declared(required=False, doc="no default, yet optional")
    size: int = declared(3, minimum=1, doc="a size")
    kind: str = declared("a", choices=("a", "b"), doc="one of two")
    derived: bool = declared(False, key=False, doc="set by the loader")


def test_accepted_keys_are_the_key_fields_in_declaration_order():
    assert accepted_keys(Entry) == ("name", "label", "size", "kind")


def test_required_keys_are_those_without_a_default_unless_declared_optional():
    assert required_keys(Entry) == ("name",)


def test_a_declaration():
    assert declaration(Entry, "size")["minimum"] == 1 and declaration(Entry, "kind")["choices"] == ("a", "b")


def test_declared_fields_keep_the_dataclass_defaults():
    assert Entry(name="x", label="y") == Entry(name="x", label="y", size=3, kind="a", derived=False)


def test_an_entrys_written_fields_are_its_keys_as_plain_data_and_leave_out_what_the_loader_derives():
    assert written_fields(Entry(name="x", label="y")) == {"name": "x", "label": "y", "size": 3, "kind": "a"}
    dataset = written_fields(DatasetConfig(name="digits", inliers=(0, 1), options={"split": ("a",)}))
    assert dataset["inliers"] == [0, 1] and dataset["options"] == {"split": ["a"]}
    assert "default_classes" not in dataset and dataset["draw"] == "random"
    assert plain({"n": np.int64(5), "gamma": np.float32(0.5), "on": True}) == {"n": 5, "gamma": 0.5, "on": True}
    assert type(plain(np.int64(5))) is int


def test_the_run_arguments_are_declared_once_for_kpca_bench_run_and_its_defaults_pass():
    parameters = inspect.signature(run).parameters
    assert set(RUN_ARGUMENTS) <= set(parameters)
    assert {name: RUN_ARGUMENTS[name](parameters[name].default) for name in RUN_ARGUMENTS} == dict.fromkeys(
        RUN_ARGUMENTS
    )


@pytest.mark.parametrize("spell, named", [(as_keyword, "max_memory: "), (as_flag, "--max-memory: ")])
def test_a_bad_run_argument_is_named_as_the_caller_wrote_it(spell, named):
    with pytest.raises(ConfigError) as raised:
        check_run_arguments({"max_memory": 0, "trials": 2}, spell)
    assert str(raised.value).startswith(named) and "\n" not in str(raised.value)
