"""A user's own file as a dataset: every format, labels, categorical columns, missing values, errors."""

from __future__ import annotations

import hashlib
import time

import numpy as np
import pandas as pd
import pytest
import scipy.io
from numpy.testing import assert_array_equal

from kpca_bench.datasets import CATEGORICAL, NUMERIC, load_dataset
from kpca_bench.datasets.user_file import load_file, said_if_slow
from kpca_bench.errors import DataError

X = np.array([[0.1, 1.0], [0.2, 1.5], [0.3, 1.25], [5.0, 9.0]])
Y = np.array([0, 0, 0, 1])


def frame() -> pd.DataFrame:
    return pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "label": Y})


def test_csv_reads_the_header_takes_the_last_column_as_label_and_records_the_sha256(tmp_path):
    path = tmp_path / "data.csv"
    frame().to_csv(path, index=False)
    dataset = load_dataset("file", path=str(path))
    assert_array_equal(dataset.X, X)
    assert_array_equal(dataset.y, Y)
    assert dataset.y.dtype == np.int64 and dataset.feature_kinds == (NUMERIC, NUMERIC)
    assert dataset.provenance.files[0].sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_relative_path_is_read_from_the_given_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    frame().to_csv(tmp_path / "sub" / "data.csv", index=False)
    assert load_dataset("file", base_dir=tmp_path, path="sub/data.csv").X.shape == (4, 2)


@pytest.mark.parametrize("suffix, sep", [(".tsv", "\t"), (".txt", " ")])
def test_tsv_and_blank_separated_text(tmp_path, suffix, sep):
    path = tmp_path / f"data{suffix}"
    frame().to_csv(path, index=False, sep=sep)
    assert_array_equal(load_file(path=path).X, X)


def test_label_column_by_name_text_labels_and_dropped_columns(tmp_path):
    path = tmp_path / "data.csv"
    table = frame().assign(kind=["ok", "ok", "ok", "bad"], row_id=range(4))
    table.to_csv(path, index=False)
    dataset = load_file(path=path, label="kind", drop=["row_id", "label"])
    assert_array_equal(dataset.X, X)
    assert dataset.class_names == ("bad", "ok")


def test_text_feature_columns_are_categorical_codes_named_in_the_notes(tmp_path):
    path = tmp_path / "data.csv"
    frame().assign(colour=["red", "blue", "red", "green"])[["a", "colour", "label"]].to_csv(path, index=False)
    dataset = load_file(path=path)
    assert dataset.feature_kinds == (NUMERIC, CATEGORICAL)
    assert dataset.categories == (None, ("blue", "green", "red"))
    assert_array_equal(dataset.X[:, 1], [2, 0, 2, 1])
    assert "colour" in dataset.provenance.notes and "hamming" in dataset.provenance.notes


def test_a_column_of_numbers_and_text_is_refused_unless_listed_as_categorical(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,size,label\n0.1,1,0\n0.2,large,0\n0.3,2,0\n5.0,1,1\n")
    with pytest.raises(DataError, match=r"column 'size' holds numbers but data row 2 has 'large'"):
        load_file(path=path)
    dataset = load_file(path=path, categorical=["size"])
    assert dataset.feature_kinds == (NUMERIC, CATEGORICAL)
    assert dataset.categories == (None, ("1", "2", "large"))
    assert_array_equal(dataset.X[:, 1], [0, 2, 1, 0])


def test_a_listed_column_of_numbers_is_coded_as_categories_too(tmp_path):
    path = tmp_path / "data.csv"
    frame().assign(code=[3, 1, 3, 2])[["a", "code", "label"]].to_csv(path, index=False)
    dataset = load_file(path=path, categorical=["code"])
    assert dataset.feature_kinds == (NUMERIC, CATEGORICAL)
    assert dataset.categories == (None, ("1", "2", "3"))
    assert_array_equal(dataset.X[:, 1], [2, 0, 2, 1])


def test_npy_labels_default_to_y_npy_beside_the_features(tmp_path):
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", Y)
    assert_array_equal(load_file(path=tmp_path / "X.npy").y, Y)


def test_missing_values_are_refused_with_the_count_and_dropped_on_request(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,b,label\n1,2,0\n?,3,0\n4,inf,1\n5,6,1\n")
    with pytest.raises(
        DataError,
        match=r"2 of 4 rows have missing \(NaN\) or infinite values \(in a, b\); "
        r"set dataset.options.drop_na: true",
    ):
        load_file(path=path, na_values=["?"])
    dataset = load_file(path=path, na_values=["?"], drop_na=True)
    assert_array_equal(dataset.X, [[1, 2], [5, 6]])
    assert "2 rows with missing" in dataset.provenance.notes


def test_parquet(tmp_path):
    path = tmp_path / "data.parquet"
    frame().to_parquet(path)
    assert_array_equal(load_file(path=path).X, X)


def test_arff_with_nominal_attributes(tmp_path):
    path = tmp_path / "data.arff"
    path.write_text(
        "@RELATION t\n@ATTRIBUTE a NUMERIC\n@ATTRIBUTE b NUMERIC\n@ATTRIBUTE class {normal,anomaly}\n"
        "@DATA\n0.1,1.0,normal\n0.2,1.5,normal\n0.3,1.25,normal\n5.0,9.0,anomaly\n"
    )
    dataset = load_file(path=path)
    assert_array_equal(dataset.X, X)
    assert list(dataset.y) == ["normal", "normal", "normal", "anomaly"]


def test_npz_with_named_arrays_and_npy_pair(tmp_path):
    np.savez(tmp_path / "data.npz", features=X, target=Y)
    dataset = load_file(path=tmp_path / "data.npz", X="features", y="target")
    assert_array_equal(dataset.X, X)
    assert_array_equal(dataset.y, Y)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "labels.npy", Y)
    dataset = load_file(path=tmp_path / "X.npy", y="labels.npy")
    assert_array_equal(dataset.y, Y)
    assert len(dataset.provenance.files) == 2


def test_mat_in_odds_layout_with_labels_as_a_float_column(tmp_path):
    scipy.io.savemat(tmp_path / "data.mat", {"X": X, "y": Y[:, None].astype(float)})
    dataset = load_file(path=tmp_path / "data.mat")
    assert_array_equal(dataset.X, X)
    assert_array_equal(dataset.y, Y)
    assert dataset.y.dtype == np.int64


def write_mat73(path, **arrays):
    """A MATLAB v7.3 file: HDF5 after a 512-byte header, arrays stored transposed (column-major)."""
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "w", userblock_size=512) as content:
        for name, array in arrays.items():
            content[name] = np.asarray(array).T
    with open(path, "r+b") as stream:
        stream.write(b"MATLAB 7.3 MAT-file".ljust(116))


def test_mat_v73_through_h5py(tmp_path):
    write_mat73(tmp_path / "data.mat", X=X, y=Y[:, None].astype(float))
    dataset = load_file(path=tmp_path / "data.mat")
    assert_array_equal(dataset.X, X)
    assert_array_equal(dataset.y, Y)


def test_mat_v73_without_h5py_names_the_extra(tmp_path, monkeypatch):
    write_mat73(tmp_path / "data.mat", X=X, y=Y)
    monkeypatch.setitem(__import__("sys").modules, "h5py", None)
    with pytest.raises(DataError, match=r"needs h5py; pip install 'kpca-bench\[hdf5\]'"):
        load_file(path=tmp_path / "data.mat")


@pytest.mark.parametrize(
    "write, options, message",
    [
        (None, {}, r"dataset.options.path: no such file"),
        (
            lambda p: p.with_suffix(".xlsx").write_text("x"),
            {"suffix": ".xlsx"},
            r"dataset.options.format: unknown extension",
        ),
        (lambda p: p.write_bytes(b"\x00\x01garbage"), {"suffix": ".npz"}, r"not a readable NumPy .npz file"),
        (lambda p: p.write_text(""), {}, r"dataset.options.path: the file is empty"),
        (lambda p: p.write_text("a,b,label\n"), {}, r"dataset.options.path: the file has no data rows"),
        (
            lambda p: frame().to_csv(p, index=False),
            {"label": "cls"},
            r"dataset.options.label: no column 'cls'; columns: a, b, label",
        ),
        (lambda p: frame().to_csv(p, index=False), {"drop": ["zz"]}, r"dataset.options.drop: no column 'zz'"),
        (lambda p: np.savez(p, X=X), {"suffix": ".npz"}, r"dataset.options.y: no array 'y' in the file; it has: X"),
    ],
)
def test_errors_name_the_file_and_the_option(tmp_path, write, options, message):
    options = dict(options)
    path = tmp_path / f"data{options.pop('suffix', '.csv')}"
    if write is not None:
        write(path)
    with pytest.raises(DataError, match=message) as error:
        load_file(path=path, **options)
    assert str(error.value).startswith(str(path))


def wide_csv(path, rows: int, columns: int, names=None, text_cell=None):
    """A CSV of ``rows`` x ``columns`` numbers and a 0 / 1 label (every fifth row an outlier)."""
    names = names or [f"f{i}" for i in range(columns)]
    values = np.random.default_rng(0).normal(size=(rows, columns)).round(3).astype(str)
    if text_cell is not None:
        values[text_cell] = "broken"
    lines = [",".join(names) + ",label"] + [",".join(row) + f",{int(i % 5 == 0)}" for i, row in enumerate(values)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_wide_table_with_a_repeated_name_or_a_text_cell_names_them(tmp_path):
    names = [f"f{i}" for i in range(5_000)]
    names[4_000] = names[17] = names[2_500] = "f3"
    with pytest.raises(DataError, match=r"column names 'f3' are given more than once"):
        load_file(path=wide_csv(tmp_path / "twice.csv", 4, 5_000, names=names))
    with pytest.raises(DataError, match=r"column 'f4321' holds numbers but data row 3 has 'broken'"):
        load_file(path=wide_csv(tmp_path / "text.csv", 4, 5_000, text_cell=(2, 4321)))


@pytest.mark.slow  # a 20 x 20,000 table: quadratic checks took minutes here, a linear load takes seconds
def test_a_wide_csv_loads(tmp_path):
    dataset = load_file(path=wide_csv(tmp_path / "wide.csv", 20, 20_000))
    assert dataset.X.shape == (20, 20_000) and dataset.y.sum() == 4
    assert dataset.feature_kinds == (NUMERIC,) * 20_000


def test_a_slow_load_says_so_once_and_a_quick_one_not_at_all(capsys):
    with said_if_slow("reading big.csv ...", after_s=0.05):
        time.sleep(0.5)
    with said_if_slow("reading small.csv ...", after_s=5):
        pass
    time.sleep(0.1)
    assert capsys.readouterr().err == "reading big.csv ...\n"


def test_columns_without_a_name_are_no_repeat(tmp_path):
    path = tmp_path / "unnamed.csv"
    path.write_text("a,,,label\n1,2,3,0\n4,5,6,1\n")
    assert_array_equal(load_file(path=path).X, [[1, 2, 3], [4, 5, 6]])
