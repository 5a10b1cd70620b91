"""kpca-bench in PyOD's, ADBench's and scikit-learn's loops (kpca_bench/methods/interop.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from kpca_bench.datasets import load_dataset
from kpca_bench.methods import KernelPCA, KernelSubspaceDetector
from kpca_bench.methods.interop import (
    PyODAdapter,
    SignedDetector,
    adbench_model,
    outlier_average_precision_scorer,
    outlier_roc_auc_scorer,
    outlier_scores,
)
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.experiment.config_parser import parse_config
from kpca_bench.experiment.runner import run_experiment
from kpca_bench.experiment.store import ResultStore

CONFIGS = Path(__file__).parents[1] / "configs"


def planted(seed=0, n_in=200, n_out=20):
    """A Gaussian blob of inliers and uniform outliers around it; y = 1 marks the outliers."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_in, 3)), rng.uniform(-6, 6, size=(n_out, 3))])
    y = np.r_[np.zeros(n_in, int), np.ones(n_out, int)]
    return X, y


def test_the_adapter_scores_higher_for_outliers_and_sets_pyods_attributes():
    X, y = planted()
    clf = PyODAdapter(KernelPCA(n_components=5), contamination=0.1).fit(X)
    assert roc_auc_score(y, clf.decision_scores_) > 0.95
    # A scikit-learn-style detector in a PyOD loop would rank the other way round.
    sklearn_sign = KernelSubspaceDetector(KernelPCA(n_components=5)).fit(X).decision_function(X)
    assert roc_auc_score(y, sklearn_sign) == pytest.approx(1 - roc_auc_score(y, clf.decision_scores_))
    assert clf.labels_.sum() == pytest.approx(0.1 * len(X), abs=1) and set(clf.labels_) == {0, 1}
    assert np.array_equal(clf.predict(X), clf.labels_)
    assert np.array_equal(clf.fit_predict(X), clf.labels_)
    assert clf.predict_proba(X).shape == (len(X), 2)
    assert np.allclose(clf.predict_proba(X).sum(axis=1), 1)


def test_the_adapter_meets_pyods_own_base_detector():
    """PyOD's BaseDetector methods, run on the adapter, give what the adapter gives."""
    base = pytest.importorskip("pyod.models.base").BaseDetector
    X, _ = planted()
    X_new, _ = planted(seed=1)
    clf = PyODAdapter(contamination=0.05).fit(X)
    threshold, labels = clf.threshold_, clf.labels_.copy()
    base._process_decision_scores(clf)
    assert clf.threshold_ == pytest.approx(threshold) and np.array_equal(clf.labels_, labels)
    assert np.array_equal(base.predict(clf, X_new), clf.predict(X_new))
    for method in ("linear", "unify"):
        assert np.allclose(base.predict_proba(clf, X_new, method=method), clf.predict_proba(X_new, method=method))
    assert np.allclose(base.predict_confidence(clf, X_new), clf.predict_confidence(X_new))


def test_pyods_utilities_accept_the_adapter():
    evaluation = pytest.importorskip("pyod.utils.utility")
    X, y = planted()
    clf = PyODAdapter().fit(X)
    assert evaluation.precision_n_scores(y, clf.decision_scores_) > 0.5


def test_pyod_detectors_and_ours_agree_on_the_sign():
    pytest.importorskip("pyod")
    from pyod.models.ecod import ECOD

    X, y = planted()
    ecod = ECOD().fit(X)
    assert roc_auc_score(y, outlier_scores(ecod, X)) > 0.9
    assert roc_auc_score(y, -SignedDetector(ECOD(), higher_is="outlier").fit(X).score_samples(X)) > 0.9


def novelty_config(inlier: int, name: str) -> dict:
    outliers = [d for d in range(10) if d != inlier]
    return {
        "name": name,
        "dataset": {
            "name": "digits",
            "inliers": [inlier],
            "outliers": outliers,
            "train_inliers": 80,
            "test_inliers": 40,
            "test_outliers": 40,
        },
        "trials": 2,
        "methods": [{"name": "kpca", "label": "KPCA", "params": {"n_components": 8}}],
    }


def test_a_pyod_loop_with_the_adapter_gives_the_runners_auroc(tmp_path):
    """Three datasets (digits with 0, 3 or 7 as the inlier class), each trial's split from the runner."""
    protocol = PROTOCOLS["novelty"]
    for inlier in (0, 3, 7):
        config = parse_config(novelty_config(inlier, f"digits{inlier}"))
        run_experiment(config, tmp_path)
        records = ResultStore(tmp_path / config.name).records()
        dataset = load_dataset("digits")
        for record in records:
            split = protocol.split(dataset, config.dataset, config.options, record["split_seed"])
            clf = PyODAdapter(KernelPCA(n_components=8)).fit(split.X_train)  # the PyOD loop
            auroc = roc_auc_score(split.is_outlier, clf.decision_function(split.X_test))
            assert auroc == pytest.approx(record["auroc"], abs=1e-12)


def test_adbench_customised_model_hook():
    """ADBench builds clf(seed=..., model_name=...), fits on (X_train, y_train), ranks by predict_score."""
    X, y = planted()
    Model = adbench_model(KernelPCA(n_components=5, eigen_solver="arpack"))
    model = Model(seed=3, model_name="KPCA").fit(X, y)
    assert model.model.detector_.estimator_.random_state == 3
    assert roc_auc_score(y, model.predict_score(X)) > 0.95


@pytest.mark.parametrize("outlier_label", [1, -1])
def test_grid_search_with_the_outlier_scorer_picks_the_best_setting(outlier_label):
    """Planted outliers: sigma 1 separates them, sigma 0.01 makes every kernel value 0 (every score ties).
    scikit-learn's roc_auc ranks by the normality score and picks the worst; ours picks the best."""
    X, y = planted()
    labels = np.where(y == 1, outlier_label, 1 if outlier_label == -1 else 0)
    grid = {"estimator__sigma": [0.01, 1.0]}
    detector = KernelSubspaceDetector(KernelPCA(n_components=5))
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    for scorer in (outlier_roc_auc_scorer(outlier_label), outlier_average_precision_scorer(outlier_label)):
        search = GridSearchCV(detector, grid, scoring=scorer, cv=cv).fit(X, labels)
        assert search.best_params_ == {"estimator__sigma": 1.0}
        assert search.best_score_ > 0.9
    if outlier_label == 1:
        wrong = GridSearchCV(detector, grid, scoring="roc_auc", cv=cv).fit(X, labels)
        assert wrong.best_params_ == {"estimator__sigma": 0.01}


def test_grid_search_without_scoring_uses_no_string_as_a_method():
    """With the parameter renamed, GridSearchCV(detector) no longer calls the string 'reconstruction_error'."""
    X, y = planted()
    detector = KernelSubspaceDetector(KernelPCA(n_components=5))
    with pytest.raises(TypeError, match="score"):
        GridSearchCV(detector, {"contamination": [0.05, 0.1]}, cv=3).fit(X, y)


def test_a_signed_detector_gives_scores_and_offers_no_labels_it_cannot_give():
    from sklearn.ensemble import IsolationForest

    from kpca_bench.methods.interop import SignedDetector

    X = np.random.default_rng(0).normal(size=(30, 2))
    detector = SignedDetector(IsolationForest(random_state=0)).fit(X)
    assert detector.score_samples(X).shape == (30,)
    assert not hasattr(detector, "fit_predict") and not hasattr(detector, "predict")
