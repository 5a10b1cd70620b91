"""The ADBench classical datasets: all 47 registered with their source and checksum; the files that are
here verify and load; a run on adbench_thyroid equals the same run on a .mat and a CSV of the same arrays."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.io
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.datasets import DATASETS, load_dataset
from kpca_bench.datasets.adbench import FILES, FOLDER
from kpca_bench.datasets.files import verify

ADBENCH = {name: spec for name, spec in DATASETS.items() if spec.collection == "adbench"}
NOT_HERE = {
    "adbench_backdoor",
    "adbench_census",
    "adbench_fraud",
    "adbench_speech",  # not in the snapshot
    "adbench_cardio",
    "adbench_musk",
    "adbench_pendigits",
    "adbench_stamps",
    "adbench_vowels",
    "adbench_waveform",
    "adbench_wilt",
}  # kept out of the shared folder on purpose


def test_all_47_are_registered_under_stable_names_with_url_and_checksum():
    assert len(ADBENCH) == 47 == len(FILES)
    assert {
        "adbench_cardio",
        "adbench_thyroid",
        "adbench_magic_gamma",
        "adbench_satimage_2",
        "adbench_internetads",
    } <= set(ADBENCH)
    for spec in ADBENCH.values():
        (file,) = spec.files
        assert file.url.endswith("/adbench/datasets/Classical/" + file.path) and file.folder == FOLDER
        assert spec.binary_labels and spec.shape and spec.n_classes == 2
    unchecked = {name for name, spec in ADBENCH.items() if not spec.files[0].checksums}
    assert unchecked == {"adbench_backdoor", "adbench_census", "adbench_fraud", "adbench_speech"}


def test_datasets_list_filters_the_collection():
    result = CliRunner().invoke(app, ["datasets", "list", "--collection", "adbench"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "adbench_thyroid" in result.output and "fashion_mnist" not in result.output
    bad = CliRunner().invoke(app, ["datasets", "list", "--collection", "nope"])
    assert bad.exit_code == 2 and "accepted: adbench, papers, user" in bad.stderr


@pytest.mark.real_data
def test_the_36_shared_files_verify_and_the_others_are_missing(real_data_dir, monkeypatch):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(real_data_dir))
    statuses = {spec.name: verify(spec.name, spec.files)[0].status for spec in ADBENCH.values()}
    assert {name for name, status in statuses.items() if status == "missing"} == NOT_HERE
    assert {status for name, status in statuses.items() if name not in NOT_HERE} == {"ok"}


@pytest.mark.real_data
def test_thyroid_loads_with_its_table_one_counts(real_data_dir, monkeypatch):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(real_data_dir))
    dataset = load_dataset("adbench_thyroid", offline=True)
    assert dataset.X.shape == (3772, 6) and dataset.class_counts() == {0: 3679, 1: 93}


def novelty_config(folder, dataset: dict) -> str:
    config = {
        "name": "thyroid",
        "protocol": "novelty",
        "trials": 2,
        "seed": 3,
        "dataset": {**dataset, "train_inliers": 300, "test_inliers": 100, "test_outliers": 50, "scaling": "standard"},
        "methods": [
            {"name": "kpca", "label": "KPCA", "params": {"n_components": 5, "kernel": "rbf", "gamma": "mean_pairwise"}},
            {"name": "ocsvm", "label": "OCSVM", "params": {"nu": 0.1, "gamma": "scale"}},
        ],
    }
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return str(path)


def metrics_of(config: str, out) -> pd.DataFrame:
    result = CliRunner().invoke(app, ["run", config, "--out", str(out), "--quiet", "--offline"])
    assert result.exit_code == 0, result.output + result.stderr
    return pd.read_csv(out / "thyroid" / "trials.csv")[["method", "trial", "f1", "auroc", "threshold", "gamma"]]


@pytest.mark.slow  # two runs on real data
@pytest.mark.real_data
def test_thyroid_by_name_as_mat_and_as_csv_give_identical_numbers(real_data_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(real_data_dir))
    with np.load(real_data_dir / FOLDER / "38_thyroid.npz") as content:
        X, y = content["X"], content["y"]
    scipy.io.savemat(tmp_path / "thyroid.mat", {"X": X, "y": y[:, None].astype(float)})
    pd.DataFrame(X).assign(y=y).to_csv(tmp_path / "thyroid.csv", index=False)
    by_name = metrics_of(novelty_config(tmp_path, {"name": "adbench_thyroid"}), tmp_path / "name")
    for file in ["thyroid.mat", "thyroid.csv"]:
        ours = metrics_of(
            novelty_config(tmp_path, {"name": "file", "options": {"path": file}}), tmp_path / f"out_{file}"
        )
        pd.testing.assert_frame_equal(ours, by_name)
