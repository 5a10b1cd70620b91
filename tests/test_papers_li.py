"""Li et al.'s analyses (reproductions.li) on small synthetic sweep statistics."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from reproductions.li import REPRODUCTION, figure3, tables


def sweep_config(name: str, reference: dict | None) -> dict:
    config = {
        "name": name,
        "dataset": {
            "name": "digits",
            "inliers": [0],
            "outliers": [1],
            "train_inliers": 40,
            "test_inliers": 20,
            "test_outliers": 20,
        },
        "protocol": {"name": "novelty_sweep", "nu": [0.1, 0.5]},
        "trials": 3,
        "methods": [
            {
                "name": "kpca",
                "label": "MD",
                "score": "mahalanobis",
                "params": {"kernel": "rbf"},
                "grid": {"sigma": [20, 40]},
            }
        ],
        "output": {"figures": []},
    }
    return {**config, "reference": reference} if reference else config


def reference(dataset: str, source: str, metric: str, value: float, tolerance: float) -> dict:
    return {
        "paper": "Li et al.",
        "source": source,
        "dataset": dataset,
        "method": "MD",
        "metric": metric,
        "value": value,
        "tolerance": tolerance,
        "reason": "test",
    }


def write_statistics(directory: Path, best: list[float], minimum: list[float]) -> None:
    """``sweep_statistics.csv`` of one run: the best and min AUROC of MD per trial."""
    directory.mkdir(parents=True, exist_ok=True)
    rows = [
        {"entry": "MD", "trial": trial, "statistic": statistic, "auroc": value, "n_settings": 4}
        for statistic, values in (("best", best), ("min", minimum))
        for trial, value in enumerate(values)
    ]
    pd.DataFrame(rows).to_csv(directory / "sweep_statistics.csv", index=False)


@pytest.fixture
def tree(tmp_path) -> tuple[Path, Path]:
    """A reproduction folder's configs: two Li datasets (file-name order opposite to the paper's) and one without a
    reference; the paper's numbers of both datasets; statistics of every run."""
    configs, results = tmp_path / "configs", tmp_path / "results"
    configs.mkdir()
    for name, ref in [
        ("li_a", {"paper": "Li et al.", "dataset": "Beta"}),
        ("li_b", {"paper": "Li et al.", "dataset": "Alpha"}),
        ("li_c", None),
    ]:
        (configs / f"{name}.yaml").write_text(yaml.safe_dump(sweep_config(name, ref)))
        write_statistics(results / name, best=[0.6, 0.7, 0.8], minimum=[0.1, 0.2, 0.3])
    (results / "li_b" / "sweep_statistics.csv").unlink()
    write_statistics(results / "li_b", best=[0.70, 0.90, 0.80], minimum=[0.3, 0.2, 0.4])
    (results.parent / "reference").mkdir()
    entries = [
        reference("Alpha", "Table I", "auroc_best", 0.75, 0.04),
        reference("Alpha", "Table I", "auroc_min", 0.3, 0.1),
        reference("Beta", "Table II", "auroc_min", 0.15, 0.5),
    ]
    (results.parent / "reference" / "numbers.yaml").write_text(yaml.safe_dump(entries))
    return configs, results


def test_configs_are_the_papers_in_its_table_order(tree):
    configs, results = tree
    chosen = tables.li_configs(
        replace(REPRODUCTION, folder=configs.parent).config_paths(),
        tables.references_of(replace(REPRODUCTION, folder=configs.parent).config_paths()),
    )
    assert [config.name for config in chosen] == ["li_b", "li_a"]  # Alpha (Table I) before Beta (Table II)


def test_frame_puts_the_papers_number_beside_ours_on_split_0_and_over_the_splits(tree):
    configs, results = tree
    frame = tables.comparison_frame(results, replace(REPRODUCTION, folder=configs.parent).config_paths())
    assert list(zip(frame["dataset"], frame["statistic"])) == [
        ("Alpha", "best"),
        ("Alpha", "min"),
        ("Beta", "best"),
        ("Beta", "min"),
    ]
    best = frame.iloc[0]
    assert best["table"] == "Table I" and best["paper"] == 0.75 and best["splits"] == 3
    assert best["ours_split0"] == 0.70 and best["ours_median"] == 0.80
    assert (best["ours_min"], best["ours_max"]) == (0.70, 0.90)
    assert best["delta_split0"] == pytest.approx(-0.05) and best["delta_median"] == pytest.approx(0.05)
    beta_best = frame.iloc[2]
    assert beta_best["table"] == "" and math.isnan(beta_best["paper"])  # the paper gives no number for it


def test_markdown_flags_differences_beyond_the_tolerance(tree):
    configs, results = tree
    written = tables.analyse(results, replace(REPRODUCTION, folder=configs.parent).config_paths())
    assert written == [results / "li_tables.csv", results / "li_tables.md"]
    rows = [line for line in (results / "li_tables.md").read_text().splitlines() if "| MD |" in line]
    lines = {" ".join(cell.strip() for cell in line.split("|")[2:5:2]): line for line in rows}
    assert "-0.050 †" in lines["Alpha best"] and "+0.050 †" in lines["Alpha best"]
    assert "†" not in lines["Alpha min"] and "†" not in lines["Beta min"]
    assert len(pd.read_csv(results / "li_tables.csv")) == 4


def test_configs_without_runs_are_left_out(tree):
    configs, results = tree
    (results / "li_a" / "sweep_statistics.csv").unlink()
    assert set(
        tables.comparison_frame(results, replace(REPRODUCTION, folder=configs.parent).config_paths())["dataset"]
    ) == {"Alpha"}
    (results / "li_b" / "sweep_statistics.csv").unlink()
    assert tables.comparison_frame(results, replace(REPRODUCTION, folder=configs.parent).config_paths()).empty


def test_figure3_goes_into_the_results_root(tmp_path):
    (path,) = figure3.analyse(tmp_path / "results", [])
    assert path == tmp_path / "results" / "li_artificial" / "figure3_contours.png"
    assert path.read_bytes().startswith(b"\x89PNG")


def test_consistency_check_flags_a_best_below_every_splits_bound_and_a_min_above_every_floor():
    import numpy as np
    import pandas as pd

    from reproductions.li.consistency import at_setting, check_rows

    # two splits x two kernel parameters; column 0 is the checked setting (RE's p = 1)
    frame = pd.DataFrame(
        {
            "trial": [0, 0, 1, 1],
            "kernel_param": [0.1, 0.2, 0.1, 0.2],
            "aurocs": [np.array([0.70, 0.9]), np.array([0.80, 0.2]), np.array([0.75, 0.5]), np.array([0.65, 0.6])],
        }
    )
    splits = at_setting(frame, 0)
    assert splits["bound"].tolist() == [0.80, 0.75] and splits["floor"].tolist() == [0.70, 0.65]
    refs = {
        ("RE", "auroc_best"): {"value": 0.60, "tolerance": 0.1},
        ("RE", "auroc_median"): {"value": 0.3, "tolerance": 0.1},
    }
    rows = {r["metric"]: r for r in check_rows("li_x", "RE", splits, refs, "p = 1")}
    assert rows["auroc_best"]["inconsistent"] and rows["auroc_best"]["beyond_tolerance"]
    assert rows["auroc_best"]["basis"] == "direct" and rows["auroc_median"]["basis"] == "row"
    assert rows["auroc_median"]["inconsistent"]
    refs[("RE", "auroc_best")] = {"value": 0.78, "tolerance": 0.1}  # above split 1's bound: could be split 1
    assert not check_rows("li_x", "RE", splits, refs, "p = 1")[0]["inconsistent"]
    # from below: the paper's minimum cannot be above the floor (smallest AUROC of the setting) of its split
    refs[("RE", "auroc_min")] = {"value": 0.72, "tolerance": 0.05}  # above both floors (0.70, 0.65)
    rows = {r["metric"]: r for r in check_rows("li_x", "RE", splits, refs, "p = 1")}
    assert rows["auroc_min"]["inconsistent"] and rows["auroc_min"]["basis"] == "floor"
    assert not rows["auroc_min"]["beyond_tolerance"] and not rows["auroc_median"]["inconsistent"]
    refs[("RE", "auroc_min")] = {"value": 0.68, "tolerance": 0.05}  # below split 0's floor: could be split 0
    rows = {r["metric"]: r for r in check_rows("li_x", "RE", splits, refs, "p = 1")}
    assert not rows["auroc_min"]["inconsistent"]
