"""Li et al.'s sweep: cumulative-over-p scores equal per-p refits, the OCSVM wrapper equals scikit-learn's,
AUROC per column, the range syntax, and the novelty_sweep protocol end to end through the CLI."""

import textwrap

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.svm import OneClassSVM
from sklearn.utils.estimator_checks import parametrize_with_checks
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.methods import KernelPCA, KernelSubspaceDetector, mahalanobis_distance, reconstruction_error
from kpca_bench.methods.baselines import KernelOneClassSVM
from kpca_bench.protocols.base import Method
from kpca_bench.protocols.novelty import Split
from kpca_bench.protocols.sweep import (
    DEFAULT_NU,
    auroc_columns,
    evaluate_sweep,
    mahalanobis_by_p,
    reconstruction_errors_by_p,
)
from kpca_bench.experiment.config_parser import parse_config
from kpca_bench.experiment.store import ResultStore


@pytest.fixture
def split():
    rng = np.random.default_rng(3)
    X_train = rng.normal(size=(30, 3)) * [1.0, 0.5, 0.2]
    X_test = np.vstack([rng.normal(size=(10, 3)) * [1.0, 0.5, 0.2], rng.normal(size=(10, 3)) + 1.5])
    return Split(X_train=X_train, X_test=X_test, is_outlier=np.r_[np.zeros(10, bool), np.ones(10, bool)])


@pytest.mark.filterwarnings("ignore:.*zero eigenvalue")
@pytest.mark.parametrize("params", [{"kernel": "rbf", "sigma": 1.5}, {"kernel": "poly", "degree": 2}])
def test_cumulative_over_p_equals_a_refit_per_p(split, params):
    full = KernelPCA(29, **params).fit(split.X_train)
    projection = full.project(split.X_test)
    rank = int(np.count_nonzero(full.projection_variances_ > 0))
    re = reconstruction_errors_by_p(projection.scores[:, :rank], projection.sq_norms, full.projection_variances_[:rank])
    md = mahalanobis_by_p(projection.scores[:, :rank], projection.sq_norms, full.projection_variances_[:rank])
    for p in sorted({1, 2, 5, rank}):
        model = KernelPCA(p, **params).fit(split.X_train)
        assert_allclose(re[:, p - 1], reconstruction_error(model, split.X_test), rtol=1e-7, atol=1e-10)
        assert_allclose(md[:, p - 1], mahalanobis_distance(model, split.X_test), rtol=1e-6)


def test_sweep_aurocs_equal_per_p_detectors(split):
    config = parse_config(
        {
            "name": "t",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 30,
                "test_inliers": 10,
                "test_outliers": 10,
            },
            "protocol": "novelty_sweep",
            "methods": [{"name": "kpca"}],
        }
    )
    for score in ("reconstruction_error", "mahalanobis"):
        method = Method("KPCA", "kpca", KernelPCA(kernel="rbf", sigma=1.0), subspace=True, score=score)
        record = evaluate_sweep(method, split, config.options)
        assert record["status"] == "ok" and record["n_model_params"] == 29
        for p in (1, 4, 29):
            refit = KernelSubspaceDetector(KernelPCA(p, kernel="rbf", sigma=1.0), outlier_score=score).fit(
                split.X_train
            )
            expected = roc_auc_score(split.is_outlier, -refit.score_samples(split.X_test))
            assert record["auroc_by_model_param"][p - 1] == pytest.approx(expected, abs=1e-6)
        assert record["auroc"] == max(record["auroc_by_model_param"])
        best = KernelSubspaceDetector(
            KernelPCA(record["best_model_param"], kernel="rbf", sigma=1.0), outlier_score=score
        ).fit(split.X_train)
        assert record["auprc"] == pytest.approx(
            average_precision_score(split.is_outlier, -best.score_samples(split.X_test)), abs=1e-9
        )


def test_rank_deficient_kernel_stops_p_at_the_rank():
    codes = np.random.default_rng(0).integers(0, 2, size=(12, 2)).astype(float)  # at most 4 distinct rows
    split = Split(X_train=codes, X_test=codes[:6], is_outlier=np.r_[np.zeros(3, bool), np.ones(3, bool)])
    config = parse_config(
        {
            "name": "t",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 12,
                "test_inliers": 3,
                "test_outliers": 3,
            },
            "protocol": "novelty_sweep",
            "methods": [{"name": "kpca"}],
        }
    )
    method = Method("KPCA", "kpca", KernelPCA(kernel="hamming", gamma=0.3), subspace=True, score="mahalanobis")
    record = evaluate_sweep(method, split, config.options)
    assert record["status"] == "ok" and record["n_model_params"] <= 3


def test_ocsvm_sweep_equals_separate_fits(split):
    config = parse_config(
        {
            "name": "t",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 30,
                "test_inliers": 10,
                "test_outliers": 10,
            },
            "protocol": {"name": "novelty_sweep", "nu": [0.05, 0.5, 0.9]},
            "methods": [{"name": "ocsvm_kernel"}],
        }
    )
    record = evaluate_sweep(
        Method("OCSVM", "ocsvm_kernel", KernelOneClassSVM(sigma=1.0), subspace=False), split, config.options
    )
    for nu, auroc in zip([0.05, 0.5, 0.9], record["auroc_by_model_param"]):
        model = KernelOneClassSVM(sigma=1.0, nu=nu).fit(split.X_train)
        assert auroc == pytest.approx(roc_auc_score(split.is_outlier, -model.score_samples(split.X_test)), abs=1e-6)


def test_ocsvm_wrapper_equals_scikit_learn(split):
    ours = KernelOneClassSVM(kernel="rbf", gamma=0.4, nu=0.2).fit(split.X_train)
    theirs = OneClassSVM(kernel="rbf", gamma=0.4, nu=0.2).fit(split.X_train)
    assert_allclose(ours.score_samples(split.X_test), theirs.score_samples(split.X_test), rtol=1e-6)
    assert_allclose(ours.decision_function(split.X_test), theirs.decision_function(split.X_test), atol=1e-6)
    assert (ours.predict(split.X_test) == theirs.predict(split.X_test)).all()
    by_sigma = KernelOneClassSVM(kernel="rbf", sigma=np.sqrt(1 / 0.8), nu=0.2).fit(split.X_train)
    assert_allclose(by_sigma.score_samples(split.X_test), ours.score_samples(split.X_test), rtol=1e-6)


@parametrize_with_checks([KernelOneClassSVM()])
def test_ocsvm_wrapper_is_scikit_learn_compatible(estimator, check):
    check(estimator)


def test_auroc_columns_equals_roc_auc_score_with_ties():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 4, size=(40, 6)).astype(float)
    is_outlier = rng.random(40) < 0.4
    expected = [roc_auc_score(is_outlier, scores[:, j]) for j in range(6)]
    assert_allclose(auroc_columns(is_outlier, scores), expected)


def test_range_syntax_in_grid_and_protocol_options():
    config = parse_config(
        {
            "name": "t",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 30,
                "test_inliers": 10,
                "test_outliers": 10,
            },
            "protocol": {"name": "novelty_sweep", "nu": {"start": 0.01, "stop": 0.99, "step": 0.01}},
            "methods": [
                {"name": "kpca", "grid": {"sigma": {"start": 0.2, "stop": 30, "step": 0.2}}},
                {"name": "ocsvm_kernel", "label": "o", "grid": {"degree": {"start": 1, "stop": 3, "step": 1}}},
            ],
        }
    )
    sigmas = config.methods[0].grid["sigma"]
    assert len(sigmas) == 150 and sigmas[:3] == [0.2, 0.4, 0.6] and sigmas[-1] == 30.0
    assert config.options.nu == DEFAULT_NU
    assert config.methods[1].grid["degree"] == [1, 2, 3]


TINY = textwrap.dedent("""\
    name: tiny_sweep
    dataset: {name: digits, inliers: [0], outliers: [1, 7], train_inliers: 40, test_inliers: 20, test_outliers: 20}
    protocol: {name: novelty_sweep, nu: [0.1, 0.5]}
    reference: {paper: P, dataset: D}
    trials: 2
    methods:
      - {name: kpca, label: MD, score: mahalanobis, params: {kernel: rbf}, grid: {sigma: [20, 40]}}
      - {name: kpca, label: RE, params: {kernel: rbf}, grid: {sigma: [20, 40]}}
      - {name: ocsvm_kernel, label: OCSVM, params: {kernel: rbf}, grid: {sigma: [20, 40]}}
    output: {figures: []}
    """)


def test_sweep_protocol_end_to_end_through_the_cli(tmp_path):
    # A reproduction folder: the config in configs/, the paper's numbers in reference/ beside it, which the run's
    # tables do not read (the reproduction framework sets them beside ours).
    (tmp_path / "configs").mkdir()
    config = tmp_path / "configs" / "tiny.yaml"
    config.write_text(TINY)
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "numbers.yaml").write_text(
        "- {paper: P, source: Table I, dataset: D, method: MD, metric: auroc_best, value: 0.5, tolerance: 0.01, "
        "reason: test}\n"
    )
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    directory = tmp_path / "out" / "tiny_sweep"
    records = ResultStore(directory).records()
    assert len(records) == 2 * 3 * 2 and {r["status"] for r in records} == {"ok"}
    md = [r for r in records if r["entry"] == "MD"]
    assert all(r["n_model_params"] == 39 and len(r["auroc_by_model_param"]) == 39 for r in md)
    assert all(len(r["auroc_by_model_param"]) == 2 for r in records if r["entry"] == "OCSVM")
    stats = pd.read_csv(directory / "sweep_statistics.csv")
    assert len(stats) == 2 * 3 * 5 and stats["auroc"].between(0, 1).all()
    summary_csv = pd.read_csv(directory / "summary.csv")
    assert list(summary_csv["method"]) == ["MD", "RE", "OCSVM"] and "auroc_median" in summary_csv
    summary = (directory / "sweep_summary.md").read_text()
    assert "| statistic | MD | RE | OCSVM |" in summary and "- reproduces: P, D" in summary
    assert "paper" not in summary.replace("\n- reproduces: P, D", "")
    assert (directory / "sweep_max_auroc.png").stat().st_size > 0


def test_sweep_rejects_a_model_parameter_in_the_config(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text(
        TINY.replace(
            "params: {kernel: rbf}, grid: {sigma: [20, 40]}}\n  - {name: kpca, label: RE",
            "params: {kernel: rbf, n_components: 5}, grid: {sigma: [20, 40]}}\n  - {name: kpca, label: RE",
        )
    )
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 2 and "n_components is swept by the protocol" in result.output


def _sweep_options(**protocol):
    return parse_config(
        {
            "name": "t",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 12,
                "test_inliers": 3,
                "test_outliers": 3,
            },
            "protocol": {"name": "novelty_sweep", **protocol},
            "methods": [{"name": "kpca"}],
        }
    ).options


@pytest.mark.filterwarnings("ignore:.*zero eigenvalue")
def test_p_range_all_keeps_the_components_beyond_the_numerical_rank(split):
    # sigma = 50 on 3 features: the centered kernel's spectrum decays below max * n * eps after a few terms.
    method = Method("KPCA", "kpca", KernelPCA(kernel="rbf", sigma=50.0), subspace=True, score="mahalanobis")
    by_rank = evaluate_sweep(method, split, _sweep_options())
    literal = evaluate_sweep(method, split, _sweep_options(p_range="all"))
    assert by_rank["n_model_params"] < literal["n_model_params"] <= 29
    n = by_rank["n_model_params"]
    assert literal["auroc_by_model_param"][:n] == pytest.approx(by_rank["auroc_by_model_param"], abs=1e-6)


def test_re_norm_uncentred_drops_eq10s_centring_terms(split):
    method = Method("RE", "kpca", KernelPCA(kernel="rbf", sigma=1.0), subspace=True, score="reconstruction_error")
    record = evaluate_sweep(method, split, _sweep_options(re_norm="uncentred"))
    model = KernelPCA(3, kernel="rbf", sigma=1.0).fit(split.X_train)
    scores = model.project(split.X_test).scores
    # k(x, x) = 1 for the RBF kernel: RE = 1 - sum_j y_j^2 instead of ||phi~(x)||^2 - sum_j y_j^2.
    expected = roc_auc_score(split.is_outlier, 1.0 - np.sum(scores**2, axis=1))
    assert record["auroc_by_model_param"][2] == pytest.approx(expected, abs=1e-6)
    centred = evaluate_sweep(method, split, _sweep_options())
    assert record["auroc_by_model_param"] != centred["auroc_by_model_param"]


def test_ocsvm_auroc_from_predictions_ranks_by_predict(split):
    options = _sweep_options(nu=[0.1, 0.5], ocsvm_auroc="predictions")
    record = evaluate_sweep(
        Method("OCSVM", "ocsvm_kernel", KernelOneClassSVM(sigma=1.0), subspace=False), split, options
    )
    for nu, auroc in zip([0.1, 0.5], record["auroc_by_model_param"]):
        predicted = KernelOneClassSVM(sigma=1.0, nu=nu).fit(split.X_train).predict(split.X_test)
        assert auroc == pytest.approx(roc_auc_score(split.is_outlier, predicted == -1), abs=1e-6)


def test_sweep_rejects_an_unknown_reading():
    with pytest.raises(Exception, match="p_range"):
        _sweep_options(p_range="everything")


def test_statistics_option_defaults_to_all_settings_and_accepts_kernel_max():
    assert _sweep_options().statistics == "settings"
    assert _sweep_options(statistics="kernel_max").statistics == "kernel_max"
    with pytest.raises(Exception, match="statistics"):
        _sweep_options(statistics="quartiles")


@pytest.mark.parametrize(
    "name, score", [("kpca", "mahalanobis"), ("kpca", "reconstruction_error"), ("ocsvm_kernel", None)]
)
def test_a_cell_whose_every_model_parameter_scores_constantly_is_flagged(split, name, score):
    # test rows far from the training rows: each one's kernel row underflows to 0, so each column of scores
    # is one value, the columns at different levels (RE's and MD's: a whole-matrix check missed them)
    far = Split(X_train=split.X_train, X_test=split.X_test + 1e3, is_outlier=split.is_outlier)
    config = parse_config(
        {
            "name": "t",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 30,
                "test_inliers": 10,
                "test_outliers": 10,
            },
            "protocol": {"name": "novelty_sweep", "nu": [0.1, 0.5]},
            "methods": [{"name": "kpca"}],
        }
    )
    estimator = KernelPCA(kernel="rbf", sigma=1.0) if name == "kpca" else KernelOneClassSVM(kernel="rbf", sigma=1.0)
    method = Method("M", name, estimator, subspace=name == "kpca", score=score)
    record = evaluate_sweep(method, far, config.options)
    assert set(record["auroc_by_model_param"]) == {0.5} and record["degenerate"] == "constant scores"


def test_a_cell_with_one_ranking_model_parameter_is_not_flagged(split):
    config = parse_config(
        {
            "name": "t",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 30,
                "test_inliers": 10,
                "test_outliers": 10,
            },
            "protocol": "novelty_sweep",
            "methods": [{"name": "kpca"}],
        }
    )
    method = Method("MD", "kpca", KernelPCA(kernel="rbf", sigma=1.0), subspace=True, score="mahalanobis")
    assert "degenerate" not in evaluate_sweep(method, split, config.options)
