"""Wang & Tanaka section 4.2: the classification_cv protocol end to end, and the sparsity definitions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.svm import SVC
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.methods import KernelPCA
from kpca_bench.methods.sparse_admm import L1SparseKernelPCA
from kpca_bench.protocols.base import ThresholdConfig
from kpca_bench.protocols.classification import Classifier
from kpca_bench.protocols.classification_cv import (
    LeadingComponents,
    Options,
    make_search,
    parse_options,
    sparsity_shares,
)
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.validation import Problems

SVM = {"classifier__C": [1.0, 10.0], "classifier__gamma": [0.1]}
CONFIG = {
    "name": "digits_cv",
    "dataset": {"name": "digits", "scaling": "minmax"},
    "protocol": {
        "name": "classification_cv",
        "train_size": 120,
        "test_size": 60,
        "classes": [3, 8],
        "classifier": "svm",
        "cv": 3,
        "search": {
            "SVM": SVM,
            "KPCA+SVM": {**SVM, "features__gamma": [0.01, 0.05], "n_components": [2, 6]},
            "SKPCA-l2,1+SVM": {**SVM, "n_components": [2, 4]},
        },
    },
    "trials": 1,
    "methods": [
        {"name": "kpca", "label": "SVM", "params": {"n_components": 64, "kernel": "linear"}},
        {"name": "kpca", "label": "KPCA+SVM", "params": {"n_components": 6, "gamma": 0.01}},
        {
            "name": "skpca_l21",
            "label": "SKPCA-l2,1+SVM",
            "params": {
                "n_components": 4,
                "gamma": 0.02,
                "lam": 0.001,
                "mu21": 0.05,
                "max_iter": 10,
                "max_outer_iter": 3,
            },
        },
    ],
    "output": {"figures": []},
}


@pytest.fixture(scope="module")
def trials(tmp_path_factory):
    directory = tmp_path_factory.mktemp("cv")
    path = directory / "digits_cv.yaml"
    path.write_text(yaml.safe_dump(CONFIG))
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(directory), "--quiet"])
    assert result.exit_code == 0, result.output
    assert (directory / "digits_cv" / "summary.md").exists()
    return pd.read_csv(directory / "digits_cv" / "trials.csv").set_index("method")


@pytest.mark.slow  # the module's grid-search run (the trials fixture)
def test_search_end_to_end(trials):
    assert set(trials["status"]) == {"ok"}
    assert (trials["accuracy"] > 0.85).all()
    assert trials.loc["KPCA+SVM", "best__leading__n_components"] in (2, 6)  # sliced from one 6-PC fit
    assert trials.loc["KPCA+SVM", "n_candidates"] == 2 * 2 * 2
    assert trials.loc["SKPCA-l2,1+SVM", "best__features__n_components"] in (2, 4)  # l2,1: a fit per count
    assert trials.loc["SVM", "n_components"] == 64
    assert ((trials[["precision", "recall", "f1"]] > 0) & (trials[["precision", "recall", "f1"]] <= 1)).all().all()


@pytest.mark.slow  # the module's grid-search run (the trials fixture)
def test_sparsity_definitions(trials):
    # KPCA (and the linear isometry of the SVM row) use every training sample
    assert trials.loc["SVM", "sample_sparsity"] == 0 and trials.loc["KPCA+SVM", "sample_sparsity"] == 0
    # l2,1 drops whole rows: unused samples = zero coefficients
    assert trials.loc["SKPCA-l2,1+SVM", "sample_sparsity"] == pytest.approx(
        trials.loc["SKPCA-l2,1+SVM", "coef_sparsity"]
    )
    assert 0 < trials.loc["SVM", "sv_sparsity"] < 1


def test_sparsity_shares_and_svm_share():
    A = np.array([[0.0, 1.0], [0.0, 0.0], [2.0, 0.0], [0.0, 0.0]])
    assert sparsity_shares(A) == {"sample_sparsity": 0.5, "coef_sparsity": 0.75}
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    svm = SVC(C=10).fit(X, y)
    assert 0 < 1 - len(svm.support_) / 40 < 1


def test_ties_first_or_last_candidate_in_grid_order(tmp_path):
    """Well-separated classes: every C reaches CV accuracy 1; first refits the smallest, last the largest."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-3, 0.5, size=(20, 2)), rng.normal(3, 0.5, size=(20, 2))])
    y = np.repeat([0, 1], 20)
    grid = {"classifier__C": [0.1, 1.0, 100.0]}
    refitted = {}
    for ties in ("first", "last"):
        options = Options(classifier=Classifier("svm", {"gamma": 0.1}), cv=4, ties=ties)
        search = make_search(KernelPCA(2, kernel="linear"), grid, options, memory=None).fit(X, y)
        assert np.all(search.cv_results_["rank_test_score"] == 1)
        refitted[ties] = search.best_estimator_["classifier"]
    assert refitted["first"].C == 0.1 and refitted["last"].C == 100.0
    assert len(refitted["last"].support_) < len(refitted["first"].support_)


def test_ties_option_is_checked():
    problems = Problems()
    assert parse_options({"train_size": 10, "ties": "last"}, ThresholdConfig(), problems).ties == "last"
    assert problems.items == []
    assert parse_options({"train_size": 10, "ties": "middle"}, ThresholdConfig(), problems).ties == "first"
    assert problems.items == [("ties", "must be one of first, last, got 'middle'")]


@pytest.mark.parametrize(
    "estimator",
    [KernelPCA(6, gamma=0.5), L1SparseKernelPCA(6, gamma=0.5, lam=0.01, lam1=0.002, max_iter=20, max_outer_iter=5)],
)
def test_leading_components_equal_a_smaller_fit(estimator):
    """The caching of the search rests on this: KPCA and SKPCA-l1 (sequential) are nested in n_components."""
    X = np.random.default_rng(1).uniform(size=(40, 3))
    full = LeadingComponents(3).fit_transform(estimator.fit(X).transform(X))
    small = estimator.set_params(n_components=3).fit(X).transform(X)
    np.testing.assert_allclose(full, small, atol=1e-10)


@pytest.mark.parametrize("name", ["australian", "breast_cancer", "climate"])
def test_paper_configs_parse(name):
    config = load_config(f"reproductions/wang/configs/wang_{name}.yaml", profile="quick")
    assert config.protocol == "classification_cv" and config.reference.paper == "Wang & Tanaka"
