"""Statistics across datasets: ranks, Friedman, Nemenyi's critical difference, Wilcoxon-Holm, the groups of
methods a post-hoc test does not separate, what the test can find at this size, bootstrap intervals, win / tie / loss.

Every function takes a *score table*: one row per dataset, one column per method, each cell
the method's mean score on that dataset (higher is better: AUROC, AUPRC), complete (no NaN).
The tests and the diagram come from maintained libraries: scipy.stats (Friedman, Wilcoxon,
the studentized range), statsmodels (Holm) and scikit-posthocs (the Nemenyi test and the
critical-difference diagram); networkx forms the groups of methods a post-hoc test does not separate.

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
    """Each method's rank averaged over the datasets, best (lowest) first; equal averages in column order."""
    return ranks(table).mean().sort_values(kind="stable")


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


def wilcoxon_holm_matrix(pairs: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """The Holm-adjusted p-values of :func:`wilcoxon_holm` as a symmetric methods x methods matrix (diagonal 1),
    the form scikit-posthocs' diagram reads."""
    matrix = pd.DataFrame(1.0, index=methods, columns=methods)
    for row in pairs.itertuples():
        matrix.loc[row.method_a, row.method_b] = matrix.loc[row.method_b, row.method_a] = row.p_holm
    return matrix


def not_separated_groups(p_values: pd.DataFrame, ranks: pd.Series, alpha: float = 0.05) -> list[list[str]]:
    """The largest sets of methods of which the post-hoc test separates no two (every pair has p >= ``alpha``).

    These are the maximal cliques of the graph joining each such pair (networkx), as scikit-posthocs forms the
    bars of its critical-difference diagram; a method the test separates from every other is a group of its
    own. Each group lists its methods best rank first; the groups are ordered by their best, then worst rank.
    """
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(ranks.index)
    graph.add_edges_from((a, b) for a, b in itertools.combinations(ranks.index, 2) if p_values.loc[a, b] >= alpha)
    position = {method: i for i, method in enumerate(ranks.sort_values(kind="stable").index)}
    groups = [sorted(clique, key=position.get) for clique in nx.find_cliques(graph)]
    return sorted(groups, key=lambda group: (position[group[0]], position[group[-1]]))


def group_table(groups: list[list[str]], ranks: pd.Series) -> pd.DataFrame:
    """One row per method (best rank first): its average rank and, per group, whether it belongs to it
    (columns ``group_1``, ``group_2``, ... in the order of ``groups``)."""
    table = pd.DataFrame({"method": ranks.index, "rank": ranks.to_numpy()})
    for number, group in enumerate(groups, start=1):
        table[f"group_{number}"] = table["method"].isin(group)
    return table


def smallest_wilcoxon_p(n_datasets: int) -> float:
    """The smallest two-sided p-value :func:`wilcoxon_holm`'s test can give on ``n_datasets`` pairs: scipy's
    p for every difference of one sign. scipy computes it exactly up to 50 pairs without ties (``2 / 2**n``,
    the one most extreme sign pattern of 2**n, both tails) and by the normal approximation beyond."""
    if n_datasets < 2:
        return 1.0
    return float(stats.wilcoxon(np.arange(1.0, n_datasets + 1)).pvalue)


def smallest_holm_p(n_datasets: int, n_pairs: int) -> float:
    """The smallest Holm-adjusted p-value attainable over ``n_pairs`` Wilcoxon tests on ``n_datasets`` datasets:
    Holm's first step multiplies the smallest p by the number of pairs. Not capped at 1 (statsmodels caps
    the adjusted p-values at 1), so that a value above 1 says by how far no pair can be significant."""
    return n_pairs * smallest_wilcoxon_p(n_datasets)


def nemenyi_can_separate(cd: float, n_methods: int) -> bool:
    """Whether any two average ranks can differ by more than the critical difference: the largest possible gap
    is ``n_methods - 1`` (one method always first, another always last)."""
    return cd < n_methods - 1


def bootstrap_mean_interval(values: pd.DataFrame, confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """A percentile bootstrap interval, resampling the rows (datasets), for the mean of each column (method):
    scipy.stats.bootstrap with a seeded generator, so the same table gives the same interval.
    Returns columns ``low`` and ``high``, one row per column of ``values``."""
    result = stats.bootstrap((values.to_numpy(dtype=float),), np.mean, axis=0, confidence_level=confidence,
                             method="percentile", rng=np.random.default_rng(seed))
    interval = result.confidence_interval
    return pd.DataFrame({"low": interval.low, "high": interval.high}, index=values.columns)
