"""The classification protocol end to end through the CLI runner, on the bundled digits."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from numpy.testing import assert_allclose
from sklearn.decomposition import PCA
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.datasets import load_dataset
from kpca_bench.errors import ConfigError, DataError
from kpca_bench.methods import KernelPCA
from kpca_bench.protocols import PROTOCOLS, Method
from kpca_bench.protocols.classification import (
    Options,
    Split,
    classification_split,
    describe_split,
    evaluate_classification,
)
from kpca_bench.experiment.config_parser import parse_config

CONFIG = {
    "name": "digits_classification",
    "dataset": {"name": "digits", "scaling": "minmax"},
    "protocol": {"name": "classification", "train_size": 150, "test_size": 90, "classes": [0, 1, 8]},
    "trials": 2,
    "seed": 0,
    "methods": [
        {"name": "kpca", "label": "KPCA + LDA", "params": {"n_components": 8, "kernel": "rbf", "sigma": 2.0}},
        {"name": "kpca", "label": "PCA + LDA", "params": {"n_components": 8, "kernel": "linear"}},
        {
            "name": "nystrom_kpca",
            "label": "Nystrom + LDA",
            "params": {"n_components": 8, "n_landmarks": 20, "kernel": "rbf", "sigma": 2.0},
        },
    ],
    "output": {"figures": []},
}


def run(tmp_path: Path, config: dict) -> Path:
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / f"{config['name']}.yaml"
    path.write_text(yaml.safe_dump(config))
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output + result.stderr
    return tmp_path / "out" / config["name"]


def test_lda_on_components_end_to_end(tmp_path):
    directory = run(tmp_path, CONFIG)
    trials = pd.read_csv(directory / "trials.csv")
    assert len(trials) == 6 and set(trials["status"]) == {"ok"}
    assert (trials["n_train"] == 150).all() and (trials["n_test"] == 90).all()
    assert np.allclose(trials["accuracy"] + trials["error"], 1.0)
    assert (trials["accuracy"] > 0.9).all()  # three well separated digits
    assert (trials["fit_time"] > 0).all() and trials["gamma"].notna().sum() == 4  # the linear kernel has none
    summary = pd.read_csv(directory / "summary.csv")
    assert list(summary["method"]) == ["KPCA + LDA", "PCA + LDA", "Nystrom + LDA"]
    assert {"accuracy_mean", "error_mean", "fit_time_mean"} <= set(summary.columns)
    assert "misclassification rate" in (directory / "summary.md").read_text()
    assert (directory / "error_box.png").stat().st_size > 0
    again = pd.read_csv(run(tmp_path / "again", CONFIG) / "trials.csv")
    pd.testing.assert_series_equal(again["accuracy"], trials["accuracy"])


def test_svm_with_a_cross_validated_grid_search(tmp_path):
    config = {
        **CONFIG,
        "name": "digits_svm",
        "trials": 1,
        "methods": CONFIG["methods"][:1],
        "protocol": {
            **CONFIG["protocol"],
            "classifier": {"name": "svm", "params": {"kernel": "linear"}},
            "search": {"classifier__C": [0.01, 1.0], "features__n_components": [4, 8]},
            "cv": 3,
        },
    }
    trials = pd.read_csv(run(tmp_path, config) / "trials.csv")
    assert trials.loc[0, "best__classifier__C"] in (0.01, 1.0)
    assert trials.loc[0, "best__features__n_components"] in (4, 8)
    assert trials.loc[0, "accuracy"] > 0.9


def test_split_is_stratified_and_scaled_on_training_rows():
    config = parse_config(CONFIG)
    dataset = load_dataset("digits")
    split = classification_split(dataset, config.dataset, config.options, seed=5)
    classes, train_counts = np.unique(split.y_train, return_counts=True)
    shares = np.array([np.mean(dataset.y[np.isin(dataset.y, [0, 1, 8])] == c) for c in (0, 1, 8)])
    assert list(classes) == [0, 1, 8] and np.all(np.abs(train_counts - 150 * shares) <= 1)
    assert split.X_train.min() == 0 and split.X_train.max() == 1  # minmax fitted on the training rows
    assert len(split.y_test) == 90


def test_stratify_false_draws_rows_without_regard_to_class():
    dataset = load_dataset("digits")
    shares = []
    for stratify in (True, False):
        config = parse_config({**CONFIG, "protocol": {**CONFIG["protocol"], "stratify": stratify}})
        assert ("stratified random" in describe_split(config.options)) == stratify
        splits = [classification_split(dataset, config.dataset, config.options, seed=seed) for seed in range(5)]
        shares.append({np.mean(split.y_train == 0) for split in splits})
    assert len(shares[0]) == 1 and len(shares[1]) > 1


def test_all_scaling_rows_fit_the_scaling_on_training_and_test_rows():
    config = parse_config({**CONFIG, "dataset": {**CONFIG["dataset"], "scaling_rows": "all"}})
    split = classification_split(load_dataset("digits"), config.dataset, config.options, seed=5)
    both = np.vstack([split.X_train, split.X_test])
    assert both.min() == 0 and both.max() == 1 and split.X_train.max() <= 1


@pytest.mark.parametrize(
    "change, message",
    [
        ({"protocol": {"name": "classification"}}, "protocol.train_size: missing"),
        ({"protocol": {"name": "classification", "train_size": 150, "classifier": "forest"}}, "unknown classifier"),
        ({"protocol": {"name": "classification", "train_size": 150, "search": {"C": [1]}}}, "protocol.search"),
        ({"protocol": {"name": "classification", "train_size": 150, "stratify": "no"}}, "protocol.stratify: must be"),
        ({"methods": [{"name": "ocsvm", "label": "OCSVM"}]}, "methods.0..name: ocsvm is not a kernel-PCA variant"),
        ({"methods": [{"name": "kpca", "label": "K", "params": {"n_components": 200}}]}, "use at most 149"),
    ],
)
def test_bad_options_fail_when_the_config_loads(change, message):
    with pytest.raises(ConfigError, match=message):
        parse_config({**CONFIG, **change})


def test_more_rows_than_the_data_have_fail_before_any_work():
    config = parse_config({**CONFIG, "protocol": {"name": "classification", "train_size": 2000}})
    with pytest.raises(DataError, match="more than the"):
        PROTOCOLS["classification"].check_data(load_dataset("digits"), config.dataset, config.options)


def tiny_split() -> Split:
    """Three classes of four 3-D points each, half of each class for training."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3)) + np.repeat(np.eye(3) * 4, 4, axis=0)
    y = np.repeat(["a", "b", "c"], 4)
    train = np.tile([True, True, False, False], 3)
    return Split(X_train=X[train], y_train=y[train], X_test=X[~train], y_test=y[~train])


def linear_kpca(n_components: int) -> Method:
    return Method("PCA", "kpca", KernelPCA(n_components, kernel="linear"), subspace=True)


def test_scores_keeps_the_leading_component_scores_of_every_row_training_rows_first():
    split = tiny_split()
    record = evaluate_classification(linear_kpca(3), split, Options(train_size=6, scores=2))
    X = np.vstack([split.X_train, split.X_test])
    pca_scores = PCA(2).fit(split.X_train).transform(X)  # the linear kernel gives PCA's scores up to sign
    assert_allclose(np.abs(record["component_scores"]), np.abs(pca_scores), atol=1e-8)
    assert record["score_classes"] == ["a", "a", "b", "b", "c", "c"] * 2
    assert json.loads(json.dumps(record))["component_scores"] == record["component_scores"]


def test_scores_off_by_default_and_capped_by_the_components():
    split = tiny_split()
    assert "component_scores" not in evaluate_classification(linear_kpca(2), split, Options(train_size=6))
    record = evaluate_classification(linear_kpca(1), split, Options(train_size=6, scores=2))
    assert np.shape(record["component_scores"]) == (12, 1)


@pytest.mark.parametrize("scores", [-1, 1.5, "two"])
def test_scores_must_be_a_non_negative_integer(scores):
    with pytest.raises(ConfigError, match="protocol.scores"):
        parse_config({**CONFIG, "protocol": {**CONFIG["protocol"], "scores": scores}})


def test_scores_parsed_into_the_options():
    assert parse_config({**CONFIG, "protocol": {**CONFIG["protocol"], "scores": 2}}).options.scores == 2
    assert parse_config(CONFIG).options.scores == 0


def test_the_runs_summary_reads_no_papers_numbers_beside_its_config(tmp_path):
    """A config in a reproduction's layout (configs/ beside reference/numbers.yaml) gets our numbers only: the
    reproduction framework sets the paper's beside them, in REPORT.md."""
    (tmp_path / "configs").mkdir()
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "numbers.yaml").write_text(
        "- {paper: P, source: Table I, dataset: D, method: KPCA + LDA, metric: error_mean, value: 0.4321, "
        "tolerance: 0.01, reason: test}\n"
    )
    directory = run(tmp_path / "configs", {**CONFIG, "reference": {"paper": "P", "dataset": "D"}})
    summary = (directory / "summary.md").read_text()
    assert "| KPCA + LDA | 2 / 2 |" in summary
    assert "0.4321" not in summary and "- paper: P, D" in summary  # the reference named, its numbers not read
