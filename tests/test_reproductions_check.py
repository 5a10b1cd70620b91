"""Profiles, 'python -m reproductions bless' and 'check': a broken method must fail the check."""

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from reproductions.framework.cli import app as reproductions_app
from kpca_bench.kernels import KernelCentering
from kpca_bench.experiment.config_parser import load_config

REPO = Path(__file__).parents[1]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A scratch copy of the quickstart config, as the current directory."""
    (tmp_path / "configs").mkdir()
    shutil.copy(REPO / "configs" / "quickstart.yaml", tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(reproductions_app, [*args, "--quiet"])


def test_quick_profile_applies_overrides_by_method_label(tmp_path):
    raw = yaml.safe_load((REPO / "configs" / "quickstart.yaml").read_text())
    raw["profiles"]["quick"]["methods"] = {"KPCA": {"params": {"n_components": 3}}}
    raw["profiles"]["quick"]["dataset"] = {"train_inliers": 50}
    path = tmp_path / "q.yaml"
    path.write_text(yaml.safe_dump(raw))
    quick, full = load_config(path, "quick"), load_config(path)
    assert (quick.trials, quick.dataset.train_inliers, quick.methods[0].params["n_components"]) == (3, 50, 3)
    assert quick.methods[1].params["n_components"] == 10 and quick.dataset.test_inliers == 78
    assert (full.trials, full.dataset.train_inliers, full.profile, quick.profile) == (10, 100, "full", "quick")


def test_profile_errors_name_the_fix(tmp_path):
    raw = yaml.safe_load((REPO / "configs" / "quickstart.yaml").read_text())
    raw["profiles"]["quick"]["methods"] = {"KCPA": {"params": {"n_components": 3}}}
    path = tmp_path / "q.yaml"
    path.write_text(yaml.safe_dump(raw))
    result = CliRunner().invoke(app, ["run", str(path), "--profile", "quick"])
    assert result.exit_code == 2 and "profiles.quick.methods.KCPA: no method has this label" in result.stderr
    del raw["profiles"]
    path.write_text(yaml.safe_dump(raw))
    result = CliRunner().invoke(app, ["run", str(path), "--profile", "quick"])
    assert result.exit_code == 2 and "no 'quick' profile; add profiles:" in result.stderr


@pytest.mark.slow  # runs the quick profile twice
def test_bless_then_check_passes_and_records_the_profile(workdir):
    assert invoke("bless", "configs/quickstart.yaml").exit_code == 0
    blessed = pd.read_csv(workdir / "results" / "reference" / "quick.csv")
    assert set(blessed["method"]) == {"KPCA", "KPCA-Mahalanobis", "One-class SVM", "Isolation forest"}
    result = invoke("check")
    assert result.exit_code == 0, result.output
    assert "14 of 14 numbers within tolerance" in result.output  # F1, AUROC, AUPRC of 4 methods, sparsity of 2
    trials = pd.read_csv(workdir / "results" / "quick" / "quickstart" / "trials.csv")
    assert set(trials["profile"]) == {"quick"} and trials["trial"].max() == 2


@pytest.mark.slow  # runs the quick profile twice
def test_check_fails_with_a_readable_table_when_centering_is_broken(workdir, monkeypatch):
    assert invoke("bless", "configs/quickstart.yaml").exit_code == 0
    shutil.rmtree(workdir / "results" / "quick")

    def center_without_column_means(self, K_cross):
        row_means = K_cross.mean(axis=1)
        return K_cross - row_means[:, None], row_means

    monkeypatch.setattr(KernelCentering, "center_cross", center_without_column_means)
    result = invoke("check")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[0].split() == ["config", "method", "metric", "reference", "ours", "delta", "tolerance", "ok"]
    assert lines[-2].endswith("FAIL") and "KPCA" in lines[-2]
    assert "numbers within tolerance" in lines[-1]


def test_check_without_blessed_numbers_says_how_to_bless(workdir):
    result = invoke("check", "configs/quickstart.yaml")
    assert result.exit_code == 2
    assert "run 'python -m reproductions bless configs/quickstart.yaml'" in result.stderr


@pytest.mark.slow  # rebuilds a paper run's tables from its committed records
def test_a_full_check_never_rewrites_the_committed_run(tmp_path, real_data_dir):
    committed = tmp_path / "results" / "sas_ionosphere"
    shutil.copytree(REPO / "results" / "sas_ionosphere", committed)
    before = {path.name: path.read_bytes() for path in committed.iterdir()}
    config = REPO / "reproductions" / "sas" / "configs" / "sas_ionosphere.yaml"
    result = invoke("check", "--profile", "full", str(config), "--out", str(tmp_path / "results"), "--offline")
    assert "numbers within tolerance" in result.output, result.output
    assert {path.name: path.read_bytes() for path in committed.iterdir()} == before
    assert (tmp_path / "results" / "scratch" / "check" / "sas_ionosphere" / "summary.csv").is_file()
