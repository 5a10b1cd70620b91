"""The Kim outlier-detection table gathered from the runs of several unsupervised configs."""

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.papers.kim.outliers import write_outlier_table


def write_config(path, name, dataset):
    path.write_text(yaml.safe_dump({
        "name": name, "dataset": dataset, "protocol": {"name": "unsupervised", "n_outliers": 5}, "trials": 2,
        "methods": [{"name": "l1_kpca", "label": "L1-KPCA RE", "params": {"n_components": 3, "n_restarts": 1}},
                    {"name": "kpca", "label": "L2-KPCA RE", "params": {"n_components": 3}},
                    {"name": "isolation_forest", "label": "iForest", "params": {"n_estimators": 20}}],
        "output": {"figures": []},
    }))
    return path


def test_table_has_one_row_per_config_and_marks_configs_without_results(tmp_path):
    ran = write_config(tmp_path / "a.yaml", "kim_outliers_a", {"name": "digits", "inliers": [0], "outliers": [1]})
    missing = write_config(tmp_path / "b.yaml", "kim_outliers_b", {"name": "internet_ads", "inliers": ["nonad."],
                                                                 "outliers": ["ad."]})
    result = CliRunner().invoke(app, ["run", str(ran), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    markdown = write_outlier_table([ran, missing], tmp_path).read_text()
    summary = pd.read_csv(tmp_path / "kim_outliers" / "summary.csv")
    ours = summary[summary["dataset"] == "digits"].set_index("method")
    assert list(ours.index) == ["L1-KPCA RE", "L2-KPCA RE", "iForest"]
    assert (ours["n"] == 178 + 5).all() and (ours["outliers"] == 5).all() and (ours["dimension"] == 64).all()
    first_row = {name: next(line for line in markdown.splitlines() if line.startswith(f"| {name} |"))
                 for name in ("digits", "internet_ads")}
    assert "**" in first_row["digits"] and "**" not in first_row["internet_ads"]  # the best mean in bold, where run
    assert "| internet_ads | – | – | – | not run | not run | not run |" in markdown
    paired = pd.read_csv(tmp_path / "kim_outliers" / "paired_l1_l2.csv").iloc[0]
    trials = pd.read_csv(tmp_path / "kim_outliers_a" / "trials.csv").set_index(["method", "trial"])["auroc"]
    expected = (trials["L1-KPCA RE"] - trials["L2-KPCA RE"]).mean()
    assert paired["dataset"] == "digits" and paired["trials"] == 2
    assert paired["difference_mean"] == pytest.approx(expected)
