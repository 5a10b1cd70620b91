import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.metrics import auc, f1_score, roc_auc_score, roc_curve

from kpca_bench.metrics import ROC_FPR_GRID, choose_threshold, detection_metrics, roc_on_grid, sparsity_percent


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    is_outlier = np.r_[np.zeros(200, bool), np.ones(50, bool)]
    return is_outlier, rng.normal(size=250) + 1.5 * is_outlier, rng.normal(size=300)


def test_metrics_match_scikit_learn(scores):
    is_outlier, test, _ = scores
    result = detection_metrics(is_outlier, test, threshold=0.7)
    assert result["f1"] == pytest.approx(f1_score(is_outlier, test > 0.7))
    assert result["auroc"] == pytest.approx(roc_auc_score(is_outlier, test))


def test_oracle_threshold_maximises_f1(scores):
    is_outlier, test, train = scores
    cut = choose_threshold("test_oracle", train, test, is_outlier)
    best = max(f1_score(is_outlier, test > t) for t in np.r_[test - 1e-9, test.max() + 1])
    assert detection_metrics(is_outlier, test, cut)["f1"] == pytest.approx(best)


def test_prior_threshold_flags_as_many_as_there_are_outliers(scores):
    is_outlier, test, train = scores
    cut = choose_threshold("test_prior", train, test, is_outlier)
    assert np.sum(test > cut) == is_outlier.sum()


def test_train_quantile_threshold(scores):
    is_outlier, test, train = scores
    cut = choose_threshold("train_quantile", train, test, is_outlier, quantile=0.9)
    assert np.mean(train > cut) == pytest.approx(0.1, abs=0.01)


def test_fixed_threshold_is_used_as_given(scores):
    is_outlier, test, train = scores
    assert choose_threshold("fixed", train, test, is_outlier, value=0.0834) == 0.0834


def test_roc_on_grid_follows_the_exact_curve(scores):
    is_outlier, test, _ = scores
    tpr = roc_on_grid(is_outlier, test)
    fpr_exact, tpr_exact, _ = roc_curve(is_outlier, test)
    assert tpr[0] == tpr_exact[np.searchsorted(fpr_exact, 0, side="right") - 1] and tpr[-1] == 1.0
    assert np.all(np.diff(tpr) >= 0)
    assert_allclose(auc(ROC_FPR_GRID, tpr), roc_auc_score(is_outlier, test), atol=0.02)


def test_sparsity_is_percent_nonzero_per_component():
    coef = np.zeros((10, 2))
    coef[:3, 0] = 1.0
    coef[:, 1] = 1.0
    assert sparsity_percent(coef) == pytest.approx((30 + 100) / 2)
