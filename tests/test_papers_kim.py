"""Kim & Klabjan's analyses (reproductions.kim): the outlier-detection table over several unsupervised runs."""

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from reproductions.kim.outliers import analyse, outlier_configs, write_outlier_table
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory
from reproductions.framework.loader import load_reproduction

SHIPPED = load_reproduction(Path(__file__).resolve().parents[1] / "reproductions" / "kim")


def write_config(path, name, dataset):
    path.write_text(
        yaml.safe_dump(
            {
                "name": name,
                "dataset": dataset,
                "protocol": {"name": "unsupervised", "n_outliers": 5},
                "trials": 2,
                "methods": [
                    {"name": "l1_kpca", "label": "L1-KPCA RE", "params": {"n_components": 3, "n_restarts": 1}},
                    {"name": "kpca", "label": "L2-KPCA RE", "params": {"n_components": 3}},
                    {"name": "isolation_forest", "label": "iForest", "params": {"n_estimators": 20}},
                ],
                "output": {"figures": []},
            }
        )
    )
    return path


def test_table_has_one_row_per_config_and_marks_configs_without_results(tmp_path):
    ran = write_config(tmp_path / "a.yaml", "kim_outliers_a", {"name": "digits", "inliers": [0], "outliers": [1]})
    missing = write_config(
        tmp_path / "b.yaml", "kim_outliers_b", {"name": "internet_ads", "inliers": ["nonad."], "outliers": ["ad."]}
    )
    result = CliRunner().invoke(app, ["run", str(ran), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    markdown = write_outlier_table([ran, missing], tmp_path).read_text()
    summary = pd.read_csv(tmp_path / "kim_outliers" / "summary.csv")
    ours = summary[summary["dataset"] == "digits"].set_index("method")
    assert list(ours.index) == ["L1-KPCA RE", "L2-KPCA RE", "iForest"]
    assert (ours["n"] == 178 + 5).all() and (ours["outliers"] == 5).all() and (ours["dimension"] == 64).all()
    first_row = {
        name: next(line for line in markdown.splitlines() if line.startswith(f"| {name} |"))
        for name in ("digits", "internet_ads")
    }
    assert "**" in first_row["digits"] and "**" not in first_row["internet_ads"]  # the best mean in bold, where run
    assert "| internet_ads | – | – | – | not run | not run | not run |" in markdown
    paired = pd.read_csv(tmp_path / "kim_outliers" / "paired_l1_l2.csv").iloc[0]
    trials = pd.read_csv(tmp_path / "kim_outliers_a" / "trials.csv").set_index(["method", "trial"])["auroc"]
    expected = (trials["L1-KPCA RE"] - trials["L2-KPCA RE"]).mean()
    assert paired["dataset"] == "digits" and paired["trials"] == 2
    assert paired["difference_mean"] == pytest.approx(expected)


def store_run(config_path: Path, results: Path, aurocs: dict[str, list[float]]) -> None:
    """The files a finished run leaves, written by hand: one record, summary.csv and trials.csv.

    ``aurocs`` maps (label, registered name, score) written as ``label/name/score`` to per-trial AUROCs.
    """
    directory = experiment_directory(load_config(config_path), results)
    directory.mkdir(parents=True)
    record = {"key": "k", "status": "ok", "n_train": 60, "n_test_outliers": 6, "n_features": 4}
    (directory / "records.jsonl").write_text(json.dumps(record) + "\n")
    trials, summary = [], []
    for entry, values in aurocs.items():
        label, name, score = entry.split("/")
        trials += [
            {
                "method": label,
                "method_name": name,
                "score": score or None,
                "trial": trial,
                "status": "ok",
                "auroc": value,
            }
            for trial, value in enumerate(values)
        ]
        summary.append(
            {
                "method": label,
                "trials": len(values),
                "auroc_mean": pd.Series(values).mean(),
                "auroc_std": pd.Series(values).std(),
            }
        )
    pd.DataFrame(trials).to_csv(directory / "trials.csv", index=False)
    pd.DataFrame(summary).to_csv(directory / "summary.csv", index=False)


@pytest.fixture
def configs(tmp_path) -> Path:
    """A reproduction folder's configs: three outlier configs whose file-name order is not the row order, and Kim's
    robustness config."""
    folder = tmp_path / "configs"
    folder.mkdir()
    for file, name in [
        ("kim_outliers_a.yaml", "kim_outliers_ionosphere"),
        ("kim_outliers_b.yaml", "kim_outliers_new"),
        ("kim_outliers_c.yaml", "kim_outliers_satimage2"),
    ]:
        write_config(folder / file, name, {"name": "digits", "inliers": [0], "outliers": [1]})
    shutil.copy(SHIPPED.folder / "configs" / "kim_robustness.yaml", folder)
    return folder


def test_configs_are_the_papers_unsupervised_ones_in_row_order(configs):
    assert [path.name for path in outlier_configs(replace(SHIPPED, folder=configs.parent).config_paths())] == [
        "kim_outliers_c.yaml",
        "kim_outliers_a.yaml",
        "kim_outliers_b.yaml",
    ]  # satimage2, ionosphere, then others


def test_shipped_outlier_configs_are_all_in_the_row_order():
    assert [load_config(path).name for path in outlier_configs(SHIPPED.config_paths())] == [
        "kim_outliers_satimage2",
        "kim_outliers_breast_cancer",
        "kim_outliers_ionosphere",
        "kim_outliers_thyroid",
        "kim_outliers_internet_ads",
        "kim_outliers_mnist",
        "kim_outliers_eth80",
    ]


def test_analyse_builds_both_tables_from_stored_runs_only(configs, tmp_path):
    results = tmp_path / "results"
    store_run(
        configs / "kim_outliers_c.yaml",
        results,
        {
            "L1-KPCA RE/l1_kpca/": [0.9, 0.8, 0.7],
            "L2-KPCA RE/kpca/": [0.85, 0.82, 0.6],
            "L1-KPCA MD/l1_kpca/mahalanobis": [0.5, 0.5, 0.5],
            "L2-KPCA MD/kpca/mahalanobis": [0.6, 0.6, 0.6],
            "iForest/isolation_forest/": [0.95, 0.9, 0.85],
        },
    )
    (path,) = analyse(results, replace(SHIPPED, folder=configs.parent).config_paths())
    markdown = path.read_text()
    table = markdown.split("## L1-norm minus L2-norm")[0]
    rows = [line for line in table.splitlines() if line.startswith("| digits |")]
    assert len(rows) == 3  # one per outlier config, in row order; two of them not run
    assert rows[0] == (
        "| digits | 60 | 6 | 4 | 0.800 ± 0.100 | 0.757 ± 0.137 | 0.500 ± 0.000 | 0.600 ± 0.000 | **0.900 ± 0.050** |"
    )
    assert rows[1] == rows[2] == "| digits | – | – | – | " + " | ".join(["not run"] * 5) + " |"
    paired = pd.read_csv(results / "kim_outliers" / "paired_l1_l2.csv").set_index("score")
    assert paired.loc["reconstruction_error", "difference_mean"] == pytest.approx((0.05 - 0.02 + 0.1) / 3)
    assert paired.loc["reconstruction_error", "l1_ahead"] == 2
    assert paired.loc["mahalanobis", "difference_mean"] == pytest.approx(-0.1)
    assert paired.loc["mahalanobis", "l1_ahead"] == 0
