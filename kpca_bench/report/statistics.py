"""Statistics across datasets: ranks, Friedman, Nemenyi's critical difference, Wilcoxon-Holm, win / tie / loss.

Every function takes a *score table*: one row per dataset, one column per method, each cell
the method's mean score on that dataset (higher is better: AUROC, AUPRC), complete (no NaN).
The tests and the diagram come from maintained libraries: scipy.stats (Friedman, Wilcoxon,
the studentized range), statsmodels (Holm) and scikit-posthocs (the Nemenyi test and the
critical-difference diagram).

References: J. Demšar, Statistical comparisons of classifiers over multiple data sets, JMLR 7,
2006 (average ranks, Friedman, Nemenyi's CD, the diagram); A. Benavoli, G. Corani, F. Mangili,
Should we really use post-hoc tests based on mean-ranks?, JMLR 17, 2016 (pairwise Wilcoxon
signed-rank tests with Holm's correction instead of mean-rank post-hoc tests).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats


def ranks(table: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, each method's rank: 1 = the highest score; ties share the average rank."""
    return table.rank(axis=1, ascending=False, method="average")


def average_ranks(table: pd.DataFrame) -> pd.Series:
    """Each method's rank averaged over the datasets, best (lowest) first."""
    return ranks(table).mean().sort_values()


@dataclass(frozen=True)
class Friedman:
    """Friedman's test that all methods rank alike: chi-square statistic (tie-corrected, as scipy
    computes it), its p-value, Iman & Davenport's F form and the numbers of datasets and methods."""

    statistic: float
    p_value: float
    iman_davenport: float
    n_datasets: int
    n_methods: int


def friedman(table: pd.DataFrame) -> Friedman:
    """scipy.stats.friedmanchisquare over the methods (needs at least 3 methods and 2 datasets)."""
    n, k = table.shape
    statistic, p_value = stats.friedmanchisquare(*(table[c].to_numpy() for c in table.columns))
    denominator = n * (k - 1) - statistic
    iman = float((n - 1) * statistic / denominator) if denominator > 0 else float("inf")
    return Friedman(float(statistic), float(p_value), iman, n, k)


def critical_difference(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of average ranks (Demšar 2006, eq. 5 and Table 5a):
    ``q_alpha * sqrt(k (k + 1) / (6 N))``, with ``q_alpha`` the studentized range quantile / sqrt(2)."""
    q_alpha = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q_alpha * np.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets)))


def nemenyi(table: pd.DataFrame) -> pd.DataFrame:
    """Pairwise Nemenyi p-values after Friedman (scikit-posthocs), methods x methods."""
    import scikit_posthocs

    p_values = scikit_posthocs.posthoc_nemenyi_friedman(table.to_numpy())
    p_values.index = p_values.columns = list(table.columns)
    return p_values


def wilcoxon_holm(table: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Every pair of methods: Wilcoxon's signed-rank test over the datasets (scipy, two-sided), the
    p-values adjusted for all pairs by Holm's step-down method (statsmodels), and who wins.

    Columns: ``method_a``, ``method_b``, ``n`` (datasets), ``wins_a``, ``losses_a``,
    ``median_difference`` (a - b), ``statistic``, ``p_value``, ``p_holm``, ``significant``
    (``p_holm < alpha``). A pair with no non-zero difference has p = 1.
    """
    from statsmodels.stats.multitest import multipletests

    rows = []
    for a, b in itertools.combinations(table.columns, 2):
        difference = table[a].to_numpy() - table[b].to_numpy()
        if np.any(difference != 0):
            result = stats.wilcoxon(table[a], table[b])
            statistic, p_value = float(result.statistic), float(result.pvalue)
        else:
            statistic, p_value = 0.0, 1.0
        rows.append({"method_a": a, "method_b": b, "n": len(difference), "wins_a": int(np.sum(difference > 0)),
                     "losses_a": int(np.sum(difference < 0)), "median_difference": float(np.median(difference)),
                     "statistic": statistic, "p_value": p_value})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame.assign(p_holm=[], significant=[])
    reject, adjusted, _, _ = multipletests(frame["p_value"], alpha=alpha, method="holm")
    return frame.assign(p_holm=adjusted, significant=reject)


def win_tie_loss(table: pd.DataFrame, rows: list[str], columns: list[str], tie: float = 0.005) -> pd.DataFrame:
    """For each method in ``rows`` against each in ``columns``: "wins / ties / losses" over the datasets,
    a tie being a difference of mean scores of at most ``tie``."""
    result = pd.DataFrame(index=rows, columns=columns, dtype=object)
    for a in rows:
        for b in columns:
            difference = table[a] - table[b]
            wins, losses = int(np.sum(difference > tie)), int(np.sum(difference < -tie))
            result.loc[a, b] = f"{wins} / {len(difference) - wins - losses} / {losses}"
    return result
