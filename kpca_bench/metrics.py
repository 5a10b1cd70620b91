"""Metrics of an outlier detector on one trial. Outliers are the positive class throughout."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import (
    average_precision_score,
    f1_score,
    precision_recall_curve,
    precision_score,
    recall_score,
    roc_auc_score,
    roc_curve,
)

# False-positive rates at which every trial's ROC curve is stored, so curves of
# different trials can be averaged point by point.
ROC_FPR_GRID = np.linspace(0.0, 1.0, 101)


def sparsity_percent(dual_coef: np.ndarray) -> float:
    """Percentage of non-zero dual coefficients per component, averaged over components.

    This is the sparsity measure of Das et al. (section V) and Wang & Tanaka:
    100 means every training point enters every component.
    """
    return float(100.0 * np.mean(np.count_nonzero(dual_coef, axis=0) / dual_coef.shape[0]))


def choose_threshold(
    rule: str, train_scores, test_scores, is_outlier, *, quantile: float = 0.95, value: float | None = None
) -> float:
    """The outlier-score threshold of a rule; scores above it are flagged as outliers.

    ``train_quantile``: the ``quantile`` of the training scores; ``fixed``: ``value``;
    ``test_prior``: flags as many test points as ``is_outlier`` has outliers;
    ``test_oracle``: the cut with the best F1 on the test set.
    """
    if rule == "train_quantile":
        return float(np.quantile(train_scores, quantile))
    if rule == "fixed":
        assert value is not None, "rule fixed needs a value (the config parser requires one)"
        return value
    if rule == "test_prior":
        n_outliers = int(np.sum(is_outlier))
        return float(np.nextafter(np.sort(test_scores)[::-1][n_outliers - 1], -np.inf))
    precision, recall, thresholds = precision_recall_curve(is_outlier, test_scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    best = int(np.argmax(f1[:-1]))
    return float(np.nextafter(thresholds[best], -np.inf))


def roc_on_grid(is_outlier, scores) -> np.ndarray:
    """True-positive rates at :data:`ROC_FPR_GRID` (step interpolation of the exact ROC)."""
    fpr, tpr, _ = roc_curve(is_outlier, scores)
    return tpr[np.searchsorted(fpr, ROC_FPR_GRID, side="right") - 1]


def detection_metrics(is_outlier, test_scores, threshold: float) -> dict:
    """F1, precision, recall at a threshold, AUROC and AUPRC, for outlier scores (higher = more abnormal).

    AUPRC is scikit-learn's average precision with the outliers as the positive class
    (ADBench's second headline metric); a random score gets the outlier share, not 0.5.
    """
    predicted = test_scores > threshold
    return {
        "f1": float(f1_score(is_outlier, predicted, zero_division=0.0)),
        "precision": float(precision_score(is_outlier, predicted, zero_division=0.0)),
        "recall": float(recall_score(is_outlier, predicted, zero_division=0.0)),
        "auroc": float(roc_auc_score(is_outlier, test_scores)),
        "auprc": float(average_precision_score(is_outlier, test_scores)),
    }
