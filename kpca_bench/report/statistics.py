"""Statistics across datasets: ranks, Friedman, Nemenyi's critical difference, Wilcoxon-Holm, the groups of
methods a post-hoc test does not separate (runs in rank order), the pairs it separates, what the test can find at
this size, t intervals for the means, win / tie / loss.

Every function takes a *score table*: one row per dataset, one column per method, each cell
the method's mean score on that dataset (higher is better: AUROC, AUPRC), complete (no NaN).
The tests and the diagram come from maintained libraries: scipy.stats (Friedman, Wilcoxon,
the studentized range, Student's t for the intervals), statsmodels (Holm) and scikit-posthocs
(the Nemenyi test and the critical-difference diagram).

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


# Scores this close (relative) are one score: means that are equal in exact arithmetic differ in the last bits
# when summed in another order, and would otherwise rank apart.
TIE_RTOL = 1e-12
# The level of every test across datasets, and of the groups a critical-difference diagram draws.
ALPHA = 0.05


def tied_within(table: pd.DataFrame, rtol: float = TIE_RTOL) -> pd.DataFrame:
    """``table`` with each dataset's (row's) scores within ``rtol`` of the next higher one set equal to it, so
    that they tie in every test below."""
    values = table.to_numpy(dtype=float).copy()
    for row in values:
        order = np.argsort(-row, kind="stable")
        ordered = row[order]
        for i in range(1, len(ordered)):
            if np.isclose(ordered[i], ordered[i - 1], rtol=rtol, atol=0.0):
                ordered[i] = ordered[i - 1]
        row[order] = ordered
    return pd.DataFrame(values, index=table.index, columns=table.columns)


def ranks(table: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, each method's rank: 1 = the highest score; ties (within :data:`TIE_RTOL`, :func:`tied_within`)
    share the average rank."""
    return tied_within(table).rank(axis=1, ascending=False, method="average")


def average_ranks(table: pd.DataFrame) -> pd.Series:
    """Each method's rank averaged over the datasets, best (lowest) first; equal averages in column order."""
    return ranks(table).mean().sort_values(kind="stable")


@dataclass(frozen=True)
class Friedman:
    """Friedman's test that all methods rank alike: chi-square statistic (tie-corrected, as scipy
    computes it), its p-value, Iman & Davenport's F form with its own p-value (F with k - 1 and
    (k - 1)(N - 1) degrees of freedom; Demšar 2006, eq. 4) and the numbers of datasets and methods."""

    statistic: float
    p_value: float
    iman_davenport: float
    iman_davenport_p: float
    n_datasets: int
    n_methods: int


def friedman(table: pd.DataFrame) -> Friedman:
    """scipy.stats.friedmanchisquare over the methods (needs at least 3 methods and 2 datasets), ties within
    :data:`TIE_RTOL` as ties."""
    n, k = table.shape
    tied = tied_within(table)
    statistic, p_value = stats.friedmanchisquare(*(tied[c].to_numpy() for c in tied.columns))
    denominator = n * (k - 1) - statistic
    iman = float((n - 1) * statistic / denominator) if denominator > 0 else float("inf")
    iman_p = float(stats.f.sf(iman, k - 1, (k - 1) * (n - 1)))
    return Friedman(float(statistic), float(p_value), iman, iman_p, n, k)


def critical_difference(n_methods: int, n_datasets: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of average ranks (Demšar 2006, eq. 5 and Table 5a):
    ``q_alpha * sqrt(k (k + 1) / (6 N))``, with ``q_alpha`` the studentized range quantile / sqrt(2)."""
    q_alpha = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q_alpha * np.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets)))


def nemenyi(table: pd.DataFrame) -> pd.DataFrame:
    """Pairwise Nemenyi p-values after Friedman (scikit-posthocs), methods x methods."""
    import scikit_posthocs

    p_values = scikit_posthocs.posthoc_nemenyi_friedman(tied_within(table).to_numpy())
    p_values.index = p_values.columns = list(table.columns)
    return p_values


def wilcoxon_holm(table: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Every pair of methods: Wilcoxon's signed-rank test over the datasets (scipy, two-sided), the
    p-values adjusted for all pairs by Holm's step-down method (statsmodels), and who wins.

    Columns: ``method_a``, ``method_b``, ``n`` (datasets), ``wins_a``, ``losses_a``,
    ``median_difference`` (a - b), ``statistic``, ``p_value``, ``p_holm``, ``significant``
    (``p_holm < alpha``). A pair with no non-zero difference has p = 1. Scores within :data:`TIE_RTOL` are equal.
    """
    from statsmodels.stats.multitest import multipletests

    table = tied_within(table)
    rows = []
    for a, b in itertools.combinations(table.columns, 2):
        difference = table[a].to_numpy() - table[b].to_numpy()
        if np.any(difference != 0):
            result = stats.wilcoxon(table[a], table[b])
            statistic, p_value = float(result.statistic), float(result.pvalue)
        else:
            statistic, p_value = 0.0, 1.0
        rows.append(
            {
                "method_a": a,
                "method_b": b,
                "n": len(difference),
                "wins_a": int(np.sum(difference > 0)),
                "losses_a": int(np.sum(difference < 0)),
                "median_difference": float(np.median(difference)),
                "statistic": statistic,
                "p_value": p_value,
            }
        )
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


def contiguous_groups(p_values: pd.DataFrame, ranks: pd.Series, alpha: float = ALPHA) -> list[list[str]]:
    """The bars of a critical-difference diagram: the longest runs of methods, consecutive in average-rank order,
    of which the post-hoc test separates no two (every pair has p >= ``alpha``).

    A bar from a run's first to its last rank passes over no method the test separates from a member: Holm's
    sets of mutually not-separated methods need not be consecutive in rank order, so a bar over such a set
    could. A method in no longer run is a group of its own. Each group lists its methods best rank first; the
    groups are ordered by their best rank (and so by their worst, as no group lies inside another).
    """
    order = list(ranks.sort_values(kind="stable").index)
    groups, reach = [], -1
    for start in range(len(order)):
        end = start
        while end + 1 < len(order) and all(p_values.loc[order[end + 1], m] >= alpha for m in order[start : end + 1]):
            end += 1
        if end > reach:
            groups.append(order[start : end + 1])
            reach = end
    return groups


def separated_pairs(p_values: pd.DataFrame, ranks: pd.Series, alpha: float = ALPHA) -> list[tuple[str, str, float]]:
    """The pairs the post-hoc test separates (p < ``alpha``), as (better average rank, worse, p), smallest p first."""
    order = list(ranks.sort_values(kind="stable").index)
    pairs = [
        (a, b, float(p_values.loc[a, b]))
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if p_values.loc[a, b] < alpha
    ]
    return sorted(pairs, key=lambda pair: pair[2])


def group_table(groups: list[list[str]], ranks: pd.Series) -> pd.DataFrame:
    """One row per method (best rank first): its average rank and, per group, whether it belongs to it
    (columns ``group_1``, ``group_2``, ... in the order of ``groups``)."""
    table = pd.DataFrame({"method": ranks.index, "rank": ranks.to_numpy()})
    for number, group in enumerate(groups, start=1):
        table[f"group_{number}"] = table["method"].isin(group)
    return table


def smallest_wilcoxon_p(n_datasets: int) -> float:
    """The smallest two-sided p-value :func:`wilcoxon_holm`'s test can give on ``n_datasets`` pairs: scipy's
    p for every difference of one sign, with no tied or zero differences. scipy's default (``method="auto"``)
    is the exact test up to 50 pairs when no difference is zero or tied (``2 / 2**n``, the one most extreme
    sign pattern of 2**n, both tails), and the normal approximation beyond 50; with zero or tied differences it
    runs a permutation test over the 2**n sign patterns up to 13 pairs (exact, as 2**13 < its 9,999 resamples)
    and the tie-corrected normal approximation from 14 pairs on."""
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


def t_mean_interval(values: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Student's t interval over the rows (datasets) for the mean of each column (method): mean ± t quantile x
    standard error (scipy.stats.t, N - 1 degrees of freedom). A column of equal values gives a zero-width interval.
    Returns columns ``low`` and ``high``, one row per column of ``values``."""
    data = values.to_numpy(dtype=float)
    mean = data.mean(axis=0)
    half = stats.t.ppf(0.5 + confidence / 2, len(data) - 1) * data.std(axis=0, ddof=1) / np.sqrt(len(data))
    return pd.DataFrame({"low": mean - half, "high": mean + half}, index=values.columns)
