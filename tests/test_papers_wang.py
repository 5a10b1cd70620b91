"""reproductions.wang.report: Tables 3-5, the other-class scores and the grid checks from synthetic trials and
reference files, wang.yaml's errors, and the grid-check configs the report pairs with the full runs."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from kpca_bench.errors import ConfigError
from reproductions.wang import REPRODUCTION
from reproductions.wang.report import (
    analyse,
    grid_check,
    grid_check_config,
    grid_check_rows,
    load_analysis_text,
    other_class_scores,
    table_configs,
)
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import plan_cells

CONFIGS = Path(__file__).parents[1] / "reproductions" / "wang" / "configs"
ANALYSIS = {
    "sparsity_finding": "SPARSITY-PROSE",
    "grid_check_intro": "INTRO-PROSE",
    "grid_check_finding": "FINDING-PROSE",
    "deviations": "- DEVIATION-PROSE",
}
PAPERS_YAML = [
    {
        "paper": "Wang & Tanaka",
        "source": "Table 3",
        "dataset": "Australian",
        "method": "SVM",
        "metric": metric,
        "value": value,
        "tolerance": 0.02,
        "reason": "test",
    }
    for metric, value in (("accuracy_mean", 0.8461), ("recall_mean", 0.8011), ("sv_sparsity_mean", 0.5183))
]
METRICS = ("accuracy", "precision", "recall", "f1", "sample_sparsity", "coef_sparsity", "sv_sparsity")


def trials_frame(accuracy, recall, *, C=(0.1, 0.1), seeds=(11, 12), counts=True) -> pd.DataFrame:
    """Two SVM trials; with ``counts``, 100 test rows of which 40 positive."""
    frame = pd.DataFrame(
        {
            "method": "SVM",
            "trial": [0, 1],
            "split_seed": list(seeds),
            "status": "ok",
            "accuracy": accuracy,
            "cv_accuracy": [0.85, 0.85],
            "precision": [0.8, 0.8],
            "recall": recall,
            "f1": [0.8, 0.8],
            "sample_sparsity": 0.0,
            "coef_sparsity": 0.0,
            "sv_sparsity": [0.3, 0.4],
            "best__classifier__C": list(C),
            "best__classifier__gamma": 1.0,
            "wall_time": [6.0, 12.0],
        }
    )
    return frame.assign(n_test=100, n_test_positive=40) if counts else frame


def write_run(directory: Path, trials: pd.DataFrame) -> None:
    directory.mkdir(parents=True)
    trials.to_csv(directory / "trials.csv", index=False)
    summary = trials.groupby("method")[list(METRICS)].agg(["mean", "std"])
    summary.columns = [f"{metric}_{stat}" for metric, stat in summary.columns]
    summary.assign(trials=len(trials)).reset_index().to_csv(directory / "summary.csv", index=False)


@pytest.fixture
def config_dir(tmp_path):
    """A reproduction folder's configs: Australian's full run and grid check, and a toy config of the paper (another
    protocol: no table)."""
    directory = tmp_path / "configs"
    directory.mkdir()
    for name in ("wang_australian", "wang_gridcheck_australian", "wang_toy_gaussians"):
        shutil.copy(CONFIGS / f"{name}.yaml", directory)
    return directory


@pytest.fixture
def results(tmp_path):
    root = tmp_path / "results"
    root.mkdir(parents=True)
    (root.parent / "reference").mkdir()
    (root.parent / "reference" / "numbers.yaml").write_text(yaml.safe_dump(PAPERS_YAML))
    (root.parent / "reference" / "wang.yaml").write_text(yaml.safe_dump(ANALYSIS))
    return root


def test_the_tables_configs_are_the_papers_classification_runs(config_dir):
    assert [path.name for path in table_configs(replace(REPRODUCTION, folder=config_dir.parent).config_paths())] == [
        "wang_australian.yaml"
    ]


def test_other_class_scores_from_the_test_class_counts():
    # Trial 0: TP = 0.5 x 40 = 20, TN = 0.8 x 100 - 20 = 60, FN = 20: precision 60 / 80, recall 60 / 60.
    # Trial 1: TP = 30, TN = 0.9 x 100 - 30 = 60, FN = 10: precision 60 / 70, recall 1.
    scores = other_class_scores(trials_frame([0.8, 0.9], [0.5, 0.75])).loc["SVM"]
    f1 = [2 * p / (p + 1) for p in (0.75, 60 / 70)]
    assert scores.to_dict() == pytest.approx({"precision": (0.75 + 60 / 70) / 2, "recall": 1.0, "f1": sum(f1) / 2})
    assert other_class_scores(trials_frame([0.8, 0.9], [0.5, 0.75], counts=False)) is None
    assert other_class_scores(trials_frame([0.8, 0.9], [0.5, 0.75]).assign(n_test_positive=[40, None])) is None


def test_analyse_writes_the_report_from_trials_and_reference_files(results, config_dir):
    write_run(results / "wang_australian", trials_frame([0.8, 0.9], [0.5, 0.75]))
    write_run(results / "wang_gridcheck_australian", trials_frame([0.84, 0.9], [0.5, 0.75], C=(5.0, 0.1)))
    assert analyse(results, replace(REPRODUCTION, folder=config_dir.parent).config_paths()) == [
        results / "wang_report.md"
    ]
    text = (results / "wang_report.md").read_text()
    assert "`reproductions/wang/configs/wang_australian.yaml`" in text and "toy" not in text
    assert "## Table 3: Australian (`australian`, 2 repeats, 345 training rows)" in text
    assert "| SVM | 0.8461 / 0.8500 ± 0.0707 | – / 0.8000 ± 0.0000 | 0.8011 / 0.6250 ± 0.1768 **(off)** |" in text
    assert "- SVM: 0.8036 / 1.0000 / 0.8901" in text  # other class positive
    assert "| SVM | 0.5183 | 0.0000 | 0.0000 | 0.3500 |" in text  # sparsity candidates
    assert "| Australian | SVM | 9.0 | 0.3 |" in text  # wall_time: median s, total min
    assert (
        "| Australian | SVM | 2 | 0.8500 | 0.8700 | +0.0200 [+0.0000, +0.0400] | 0.8500 / 0.8500 | 1 of 2 | "
        "C 0.1→5×1 | 0.8461 ± 0.02 | yes / **no** |"
    ) in text
    for prose in ANALYSIS.values():
        assert text.count(prose) == 1
    assert (
        text.index("SPARSITY-PROSE")
        < text.index("INTRO-PROSE")
        < text.index("FINDING-PROSE")
        < text.index("## Deviations and their causes\n\n- DEVIATION-PROSE")
    )


def test_runs_without_test_class_counts_say_so(results, config_dir):
    write_run(results / "wang_australian", trials_frame([0.8, 0.9], [0.5, 0.75], counts=False))
    analyse(results, replace(REPRODUCTION, folder=config_dir.parent).config_paths())
    text = (results / "wang_report.md").read_text()
    assert "with the other class positive (derived):\n\nnot recorded: re-run the config" in text
    assert "| Australian | not run: no " in text  # no grid check either


def test_a_config_not_run_is_named(results, config_dir):
    analyse(results, replace(REPRODUCTION, folder=config_dir.parent).config_paths())
    assert "not run: no " in (results / "wang_report.md").read_text()


@pytest.mark.parametrize(
    "text, message",
    [
        (yaml.safe_dump({k: v for k, v in ANALYSIS.items() if k != "deviations"}), "exactly the text blocks"),
        (yaml.safe_dump({**ANALYSIS, "deviations": ["a", "b"]}), r"deviations \(list\)"),
        ("- a list\n", "must be a mapping"),
        ("sparsity_finding: 'unclosed\n", "YAML syntax error"),
    ],
)
def test_a_malformed_wang_yaml_is_one_line_naming_the_file(results, text, message):
    (results.parent / "reference" / "wang.yaml").write_text(text)
    with pytest.raises(ConfigError, match=message) as error:
        load_analysis_text(results.parent / "reference")
    assert str(error.value).startswith(str(results.parent / "reference" / "wang.yaml")) and "\n" not in str(error.value)


def test_the_committed_wang_yaml_loads():
    assert set(load_analysis_text(Path(__file__).parents[1] / "reproductions" / "wang" / "reference")) == set(ANALYSIS)


@pytest.mark.parametrize("name", ["australian", "breast_cancer", "climate"])
def test_grid_checks_search_the_full_runs_splits_on_wider_grids(name):
    """reproductions/wang/configs/wang_gridcheck_<dataset>.yaml: same splits and method seeds as the full run, no paper numbers of its own."""
    full = load_config(CONFIGS / f"wang_{name}.yaml")
    check = load_config(grid_check_config(CONFIGS / f"wang_{name}.yaml"))
    assert check.reference is None and check.name == f"wang_gridcheck_{name}"

    def seeds(config):
        return {
            (c.trial, config.methods[c.method_index].label): (c.split_seed, c.random_state) for c in plan_cells(config)
        }

    full_seeds, check_seeds = seeds(full), seeds(check)
    assert {trial for trial, _ in check_seeds} == set(range(full.trials))
    assert all(full_seeds[key] == value for key, value in check_seeds.items())
    for label in ("SVM", "KPCA+SVM"):
        reduced, widened = full.options.search[label], check.options.search[label]
        assert set(reduced) == set(widened) and all(set(reduced[k]) <= set(widened[k]) for k in reduced)
        assert len(widened["classifier__C"]) > len(reduced["classifier__C"])


def test_grid_check_pairs_trials_and_names_the_moves():
    def trials(C, accuracy, seeds=(11, 12, 13)):
        return pd.DataFrame(
            {
                "method": "SVM",
                "trial": [0, 1, 2],
                "split_seed": list(seeds),
                "accuracy": accuracy,
                "cv_accuracy": [0.8, 0.8, 0.8],
                "best__classifier__C": C,
                "best__classifier__gamma": [1.0, 1.0, 1.0],
            }
        )

    reduced = trials([0.1, 0.1, 10.0], [0.80, 0.90, 0.85])
    widened = trials([0.001, 0.1, 5.0], [0.86, 0.90, 0.85])
    references = {("SVM", "accuracy_mean"): {"value": 0.84, "tolerance": 0.02}}
    row = grid_check(reduced, widened, references).iloc[0]
    assert (row.trials, row.differs, row.moved) == (3, 2, "C 0.1→0.001×1, 10→5×1")
    assert row.delta == pytest.approx(0.02) and (row.delta_min, row.delta_max) == pytest.approx((0.0, 0.06))
    assert (row.holds_reduced, row.holds_widened) == (True, False)
    assert (
        "| 2 of 3 | C 0.1→0.001×1, 10→5×1 | 0.8400 ± 0.02 | yes / **no** |"
        in grid_check_rows("D", grid_check(reduced, widened, references))[0]
    )
    assert grid_check(reduced.iloc[:2], widened, {}).iloc[0].trials == 2  # only the trials both ran
    with pytest.raises(ValueError, match="different splits: SVM trial 2"):
        grid_check(reduced, trials([0.1, 0.1, 10.0], [0.8, 0.9, 0.85], seeds=(11, 12, 99)), {})
