"""OpenML datasets read from a cache the test writes in openml-python's layout; nothing downloads."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from kpca_bench.datasets import CATEGORICAL, NUMERIC, load_dataset
from kpca_bench.errors import DataError

ARFF = """@RELATION tiny
@ATTRIBUTE a NUMERIC
@ATTRIBUTE colour {red,blue}
@ATTRIBUTE class {normal,anomaly}
@DATA
1.0,red,normal
1.5,blue,normal
2.0,red,normal
9.0,red,anomaly
"""


def test_a_cached_id_loads_offline_with_its_default_target_and_the_data_file_sha256(openml_cache):
    folder = openml_cache(90001, ARFF)
    dataset = load_dataset("openml", offline=True, data_id=90001)
    assert dataset.name == "openml:90001"
    assert list(dataset.y) == ["normal", "normal", "normal", "anomaly"]
    assert dataset.feature_kinds == (NUMERIC, CATEGORICAL)
    assert_array_equal(dataset.X[:, 0], [1.0, 1.5, 2.0, 9.0])
    assert dataset.provenance.files[0].sha256 == hashlib.sha256((folder / "dataset.arff").read_bytes()).hexdigest()
    assert "tiny version 1" in dataset.provenance.source


def test_target_overrides_the_default_and_a_name_finds_the_cached_id(openml_cache):
    openml_cache(90002, ARFF, name="tiny2", version=3)
    dataset = load_dataset("openml", offline=True, name="tiny2", target="colour")
    assert dataset.class_names == ("blue", "red")
    assert dataset.X.shape == (4, 2)


def test_not_cached_offline_names_the_id_and_the_fetch_command():
    with pytest.raises(
        DataError,
        match=r"openml data id 424242 is not in the OpenML cache .*; fetch it with: "
        r"kpca-bench datasets fetch openml:424242",
    ):
        load_dataset("openml", offline=True, data_id=424242)


def test_not_cached_online_downloads_through_one_function(monkeypatch, openml_cache):
    from kpca_bench.datasets import openml_data

    asked = []

    def fake_download(openml, data_id):
        asked.append(data_id)
        openml_cache(data_id, ARFF)

    monkeypatch.setattr(openml_data, "download", fake_download)
    assert load_dataset("openml", data_id=90003).X.shape == (4, 2)
    assert asked == [90003]


@pytest.mark.parametrize(
    "options, message",
    [
        ({}, "give exactly one of dataset.options.data_id or dataset.options.name"),
        ({"data_id": 90004, "target": "nope"}, r"dataset.options.target: no column 'nope'; columns: a, colour, class"),
        ({"data_id": "x"}, "dataset.options.data_id: must be a positive integer"),
    ],
)
def test_bad_options_are_one_line_errors(openml_cache, options, message):
    openml_cache(90004, ARFF)
    with pytest.raises(DataError, match=message):
        load_dataset("openml", offline=True, **options)


def test_labels_as_numbers_become_integers(openml_cache):
    arff = "@RELATION n\n@ATTRIBUTE a NUMERIC\n@ATTRIBUTE class NUMERIC\n@DATA\n1,0\n2,0\n3,1\n"
    openml_cache(90005, arff)
    dataset = load_dataset("openml", offline=True, data_id=90005)
    assert dataset.y.dtype == np.int64 and dataset.class_names == (0, 1)
