"""The Kim outlier-detection table gathered from the runs of several unsupervised configs."""

import pandas as pd
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.experiments.kim_outliers import write_outlier_table


def write_config(path, name, dataset):
    path.write_text(yaml.safe_dump({
        "name": name, "dataset": dataset, "protocol": {"name": "unsupervised", "n_outliers": 5}, "trials": 2,
        "methods": [{"name": "kpca", "label": "L2-KPCA RE", "params": {"n_components": 3}},
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
    assert list(ours.index) == ["L2-KPCA RE", "iForest"]
    assert (ours["n"] == 178 + 5).all() and (ours["outliers"] == 5).all() and (ours["dimension"] == 64).all()
    assert "| internet_ads | – | – | – | not run | not run |" in markdown
    assert markdown.count("**") == 2  # one best mean in bold, in the row that ran
