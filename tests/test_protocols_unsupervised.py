"""The unsupervised protocol: one contaminated sample, fitted and scored without labels."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from numpy.testing import assert_allclose
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import LocalOutlierFactor
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.datasets import load_dataset
from kpca_bench.errors import ConfigError
from kpca_bench.methods.registry import METHODS
from kpca_bench.protocols.base import Method
from kpca_bench.protocols.unsupervised import (
    check_unsupervised,
    evaluate_unsupervised,
    fitted_sample_scores,
    unsupervised_split,
)
from kpca_bench.experiment.config_parser import load_config, parse_config

CONFIGS = Path(__file__).parents[1] / "reproductions" / "kim" / "configs"


def tiny_config(**protocol):
    return {
        "name": "unsupervised_tiny",
        "dataset": {"name": "digits", "inliers": [0], "outliers": [1], "scaling": "standard"},
        "protocol": {"name": "unsupervised", "n_inliers": 60, "n_outliers": 6, **protocol},
        "threshold": {"rule": "test_prior"},
        "trials": 2,
        "methods": [
            {"name": "kpca", "label": "KPCA", "params": {"n_components": 5}, "score": "reconstruction_error"},
            {
                "name": "l1_kpca",
                "label": "L1-KPCA",
                "params": {"n_components": 5, "n_restarts": 1},
                "score": "reconstruction_error",
            },
            {"name": "lof", "label": "LOF", "params": {"n_neighbors": 10}},
            {"name": "isolation_forest", "label": "iForest", "params": {"n_estimators": 50}},
        ],
        "output": {"figures": ["roc"]},
    }


def _data_and_options(raw: dict):
    config = parse_config(raw)
    return config.dataset, config.options


@pytest.fixture(scope="module")
def digits():
    return load_dataset("digits")


def test_split_draws_the_sizes_asked_for_and_scores_the_fitted_points(digits):
    config = parse_config(tiny_config())
    split = unsupervised_split(digits, config.dataset, config.options, seed=1)
    assert split.X_train.shape == (66, 64) and split.X_test is split.X_train
    assert split.is_outlier.sum() == 6 and 0 < np.flatnonzero(split.is_outlier).min()  # mixed, not appended
    assert_allclose(split.X_train.mean(axis=0), 0, atol=1e-12)  # scaled on the sample itself
    assert_allclose(unsupervised_split(digits, config.dataset, config.options, seed=1).X_train, split.X_train)
    assert not np.allclose(unsupervised_split(digits, config.dataset, config.options, seed=2).X_train, split.X_train)


def test_all_takes_every_row_of_the_classes_and_features_picks_columns(digits):
    config = parse_config(tiny_config(n_inliers="all", n_outliers="all", features=[3, 10, 20]))
    split = unsupervised_split(digits, config.dataset, config.options, seed=0)
    counts = digits.class_counts()
    assert split.X_train.shape == (counts[0] + counts[1], 3) and split.is_outlier.sum() == counts[1]


@pytest.mark.parametrize(
    "protocol, message",
    [
        ({"n_inliers": 10_000}, "protocol.n_inliers"),
        ({"n_outliers": 0}, "protocol.n_outliers"),
        ({"features": [64]}, "protocol.features"),
    ],
)
def test_impossible_options_are_config_errors(digits, protocol, message):
    with pytest.raises(ConfigError, match=message):
        check_unsupervised(digits, *_data_and_options(tiny_config(**protocol)))


def test_lof_scores_its_own_points_like_scikit_learn_outlier_mode(digits):
    config = parse_config(tiny_config())
    split = unsupervised_split(digits, config.dataset, config.options, seed=0)
    detector = METHODS["lof"].build({"n_neighbors": 10})  # registered in novelty mode
    record = evaluate_unsupervised(Method("LOF", "lof", detector, subspace=False), split, config.options)
    reference = LocalOutlierFactor(n_neighbors=10).fit(split.X_train).negative_outlier_factor_
    assert_allclose(fitted_sample_scores(detector, split.X_train), -reference)
    assert record["auroc"] == pytest.approx(roc_auc_score(split.is_outlier, -reference))


def test_other_detectors_score_the_sample_by_score_samples(digits):
    split = unsupervised_split(digits, *_data_and_options(tiny_config()), seed=0)
    forest = IsolationForest(random_state=0).fit(split.X_train)
    assert_allclose(fitted_sample_scores(forest, split.X_train), -forest.score_samples(split.X_train))


def test_run_end_to_end_through_the_cli(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_config()))
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    trials = pd.read_csv(tmp_path / "unsupervised_tiny" / "trials.csv")
    assert len(trials) == 8 and set(trials["status"]) == {"ok"}
    assert (trials["n_train"] == 66).all() and (trials["n_test_outliers"] == 6).all()
    auroc = trials.groupby("method", observed=True)["auroc"].mean()
    # Zeros vs ones is easy, but 6 ones in 66 points form a cluster that L2 KPCA's subspace can
    # take in (its AUROC ranged 0.68-0.99 over trials and scalings); L1 KPCA's stayed above 0.97.
    assert auroc["KPCA"] > 0.6 and (auroc[["L1-KPCA", "LOF", "iForest"]] > 0.95).all()
    assert (tmp_path / "unsupervised_tiny" / "roc.png").stat().st_size > 0


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("kim_outliers_*.yaml")), ids=lambda p: p.stem)
def test_shipped_configs_are_valid_at_both_profiles(path):
    for profile in ("full", "quick"):
        config = load_config(path, profile)
        assert config.protocol == "unsupervised" and config.dataset.inliers and config.dataset.outliers
