"""Shen & Asgharzadeh's analyses (reproductions.sas) on small synthetic records."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml
from numpy.testing import assert_allclose, assert_array_equal

from kpca_bench.errors import KpcaBenchError
from reproductions.sas import REPRODUCTION
from reproductions.sas.visualization import CONFIG, FIGURE, analyse, draw_panel, score_panels
from kpca_bench.report.plots import plt
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory, plan_cells
from kpca_bench.experiment.store import ResultStore

VISUALIZATION = {
    "name": "sas_visualization",
    "dataset": {"name": "digits", "scaling": "standard"},
    "protocol": {"name": "classification", "train_size": 20, "test_size": 10, "classifier": "lda", "scores": 2},
    "trials": 2,
    "seed": 0,
    "methods": [
        {"name": "kpca", "label": "KPCA (2 scores) + LDA", "params": {"n_components": 2, "kernel": "rbf"}},
        {"name": "kpca", "label": "PCA (2 scores) + LDA", "params": {"n_components": 2, "kernel": "linear"}},
    ],
    "output": {"figures": []},
}


def scores_of(trial: int, method_index: int) -> np.ndarray:
    """Scores that tell the trial and the entry apart: row i of entry m in trial t is (100 t + 10 m + i, -i)."""
    rows = np.arange(30)
    return np.column_stack([100 * trial + 10 * method_index + rows, -rows]).astype(float)


@pytest.fixture
def tree(tmp_path) -> tuple[Path, Path]:
    """A config folder with the visualization config and a results folder with its records."""
    configs, results = tmp_path / "configs", tmp_path / "results"
    configs.mkdir()
    (configs / CONFIG).write_text(yaml.safe_dump(VISUALIZATION))
    config = load_config(configs / CONFIG)
    store = ResultStore(experiment_directory(config, results))
    for cell in plan_cells(config):
        store.append(
            {
                "key": cell.key,
                "trial": cell.trial,
                "status": "ok",
                "component_scores": scores_of(cell.trial, cell.method_index).tolist(),
                "score_classes": ["a", "b", "c"] * 10,
            }
        )
    return configs, results


def test_panels_are_the_trial_0_scores_of_each_entry_in_config_order(tree):
    configs, results = tree
    panels = score_panels(load_config(configs / CONFIG), results)
    assert [label for label, _, _ in panels] == ["KPCA (2 scores) + LDA", "PCA (2 scores) + LDA"]
    for method_index, (_, scores, classes) in enumerate(panels):
        assert_allclose(scores, scores_of(0, method_index))
        assert_array_equal(classes, ["a", "b", "c"] * 10)


def test_a_record_without_scores_names_the_config_to_run(tree):
    configs, results = tree
    config = load_config(configs / CONFIG)
    first = next(cell for cell in plan_cells(config) if cell.trial == 0)
    ResultStore(experiment_directory(config, results)).append({"key": first.key, "trial": 0, "status": "ok"})
    with pytest.raises(KpcaBenchError, match="run 'kpca-bench run .*configs/sas_visualization.yaml'"):
        score_panels(config, results)


def test_no_records_is_an_error_too(tree):
    configs, _ = tree
    with pytest.raises(KpcaBenchError, match="no finished trial 0"):
        score_panels(load_config(configs / CONFIG), configs.parent / "empty")


def test_panel_draws_each_class_with_its_own_rows():
    scores = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])
    classes = np.array(["x", "y", "x", "y"])
    fig, ax = plt.subplots()
    draw_panel(ax, "KPCA (2 scores) + LDA", scores, classes)
    offsets = {collection.get_label(): collection.get_offsets() for collection in ax.collections}
    plt.close(fig)
    assert_allclose(offsets["x"], scores[[0, 2]])
    assert_allclose(offsets["y"], scores[[1, 3]])
    assert ax.get_title() == "KPCA (2 scores)"


def test_analyse_writes_figure_2_into_the_config_folder(tree):
    configs, results = tree
    (path,) = analyse(results, replace(REPRODUCTION, folder=configs.parent).config_paths())
    assert path == results / "sas_visualization" / FIGURE
    assert path.read_bytes().startswith(b"\x89PNG")
