"""``kpca-bench run`` on a user's own data: each format and an OpenML id end to end, the shipped examples,
and every data error as one line with exit code 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.io
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.experiment.store import ResultStore

EXAMPLES = Path(__file__).parents[1] / "configs" / "examples"
SHIPPED = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data"
ARFF = "@RELATION t\n@ATTRIBUTE a NUMERIC\n@ATTRIBUTE b NUMERIC\n@ATTRIBUTE class {0,1}\n@DATA\n"


def example_arrays():
    with np.load(SHIPPED / "example.npz") as content:
        return content["X"], content["y"]


def write_config(folder: Path, options: dict, **dataset) -> Path:
    """A small novelty config on ``name: file`` (or ``dataset['name']``) with the 0/1 label default."""
    entry = {
        "name": "file",
        "options": options,
        "train_inliers": 40,
        "test_inliers": 20,
        "test_outliers": 10,
        **dataset,
    }
    config = {
        "name": "own",
        "dataset": entry,
        "protocol": "novelty",
        "trials": 2,
        "seed": 0,
        "methods": [
            {"name": "kpca", "label": "KPCA", "params": {"n_components": 2, "kernel": "rbf", "gamma": "mean_pairwise"}}
        ],
    }
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def run(config: Path, out: Path, *args: str):
    return CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--quiet", "--offline", *args])


def run_ok(config: Path, out: Path) -> pd.DataFrame:
    result = run(config, out)
    assert result.exit_code == 0, result.output + result.stderr
    return pd.read_csv(out / "own" / "trials.csv")


def write_csv(folder):
    X, y = example_arrays()
    pd.DataFrame(X, columns=list("abcd")).assign(label=y).to_csv(folder / "data.csv", index=False)
    return {"path": "data.csv"}


def write_parquet(folder):
    X, y = example_arrays()
    pd.DataFrame(X, columns=list("abcd")).assign(label=y).to_parquet(folder / "data.parquet")
    return {"path": "data.parquet"}


def write_npz(folder):
    shutil.copy(SHIPPED / "example.npz", folder / "data.npz")
    return {"path": "data.npz"}


def write_mat(folder):
    X, y = example_arrays()
    scipy.io.savemat(folder / "odds.mat", {"X": X, "y": y[:, None].astype(float)})
    return {"path": "odds.mat"}


# Two runs each: CSV in the quick subset, the other formats in `make test`.
@pytest.mark.parametrize(
    "write",
    [write_csv, *(pytest.param(write, marks=pytest.mark.slow) for write in (write_parquet, write_npz, write_mat))],
)
def test_each_format_runs_end_to_end_with_identical_numbers(tmp_path, write):
    trials = run_ok(write_config(tmp_path, write(tmp_path)), tmp_path / "out")
    reference = run_ok(write_config(tmp_path, write_npz(tmp_path)), tmp_path / "npz")
    assert len(trials) == 2 and set(trials["status"]) == {"ok"}
    pd.testing.assert_series_equal(trials["auroc"], reference["auroc"])
    record = ResultStore(tmp_path / "out" / "own").records()[0]
    assert len(next(iter(record["data_files"].values()))) == 64
    summary = (tmp_path / "out" / "own" / "summary.md").read_text()
    assert "1 = outlier" in summary


def test_an_openml_id_from_the_cache_runs_end_to_end(tmp_path, openml_cache):
    X, y = example_arrays()
    openml_cache(90100, ARFF + "".join(f"{a},{b},{label}\n" for (a, b), label in zip(X[:, :2], y)))
    config = write_config(tmp_path, {"data_id": 90100}, name="openml")
    trials = run_ok(config, tmp_path / "out")
    assert set(trials["status"]) == {"ok"} and trials["dataset"].iloc[0] == "openml:90100"


def test_max_rows_subsamples_and_says_so(tmp_path):
    config = write_config(tmp_path, write_npz(tmp_path), max_rows=120)
    trials = run_ok(config, tmp_path / "out")
    record = ResultStore(tmp_path / "out" / "own").records()[0]
    assert record["n_rows"] == 120 and set(trials["status"]) == {"ok"}
    assert "max_rows: 120 of 180 rows" in (tmp_path / "out" / "own" / "summary.md").read_text()


@pytest.mark.parametrize(
    "example", ["csv", *(pytest.param(example, marks=pytest.mark.slow) for example in ("npz", "mat"))]
)
def test_the_shipped_examples_run(tmp_path, example):
    result = run(EXAMPLES / f"{example}.yaml", tmp_path, "--trials", "1")
    assert result.exit_code == 0, result.output + result.stderr


def no_file(folder):
    return {"path": "absent.csv"}


def unknown_format(folder):
    (folder / "data.xlsx").write_text("x")
    return {"path": "data.xlsx"}


def unreadable(folder):
    (folder / "data.npz").write_bytes(b"not a zip")
    return {"path": "data.npz"}


def no_label_column(folder):
    return {**write_csv(folder), "label": "cls"}


def nan_rows(folder):
    (folder / "data.csv").write_text("a,b,label\n1,2,0\n,3,0\n4,5,1\n")
    return {"path": "data.csv"}


def empty(folder):
    (folder / "data.csv").write_text("")
    return {"path": "data.csv"}


def npz_without_key(folder):
    np.savez(folder / "data.npz", features=np.zeros((3, 2)), y=np.zeros(3))
    return {"path": "data.npz"}


def other_labels(folder):
    (folder / "data.csv").write_text("a,label\n1,2\n2,3\n3,4\n")
    return {"path": "data.csv"}


@pytest.mark.parametrize(
    "write, dataset, expected",
    [
        (no_file, {}, "absent.csv: dataset.options.path: no such file"),
        (unknown_format, {}, "data.xlsx: dataset.options.format: unknown extension '.xlsx'"),
        (unreadable, {}, "data.npz: not a readable NumPy .npz file"),
        (no_label_column, {}, "data.csv: dataset.options.label: no column 'cls'; columns: a, b, c, d, label"),
        (write_csv, {"inliers": ["x"], "outliers": [1]}, "has no class 'x' (dataset.inliers); its classes are [0, 1]"),
        (
            nan_rows,
            {},
            "data.csv: 1 of 3 rows have missing (NaN) or infinite values (in a); set "
            "dataset.options.drop_na: true to drop them",
        ),
        (empty, {}, "data.csv: dataset.options.path: the file is empty"),
        (npz_without_key, {}, "data.npz: dataset.options.X: no array 'X' in the file; it has: features, y"),
        (
            other_labels,
            {},
            "dataset.inliers: neither inliers nor outliers are given, so the labels must be 0 / 1 "
            "(1 = outlier), but they are [2, 3, 4]",
        ),
        (lambda folder: {"data_id": 777777}, {"name": "openml"}, "openml data id 777777 is not in the OpenML cache"),
    ],
    ids=[
        "missing file",
        "unknown format",
        "unreadable",
        "no label column",
        "class not in file",
        "nan rows",
        "empty",
        "npz without key",
        "labels not 0/1",
        "openml not cached",
    ],
)
def test_each_data_error_is_one_line_exit_2_no_traceback(tmp_path, write, dataset, expected):
    result = run(write_config(tmp_path, write(tmp_path), **dataset), tmp_path / "out")
    assert result.exit_code == 2, result.output + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], result.stderr
    assert "Traceback" not in result.output + result.stderr
