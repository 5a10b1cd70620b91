"""Statistics across datasets against values computed by hand on a small table (Demšar 2006's formulas)."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from kpca_bench.report import statistics

# 4 datasets x 3 methods, no ties: ranks A 1,2,1,1; B 2,1,3,2; C 3,3,2,3.
TABLE = pd.DataFrame(
    {"A": [0.90, 0.80, 0.70, 0.95], "B": [0.80, 0.85, 0.60, 0.90], "C": [0.70, 0.60, 0.65, 0.50]},
    index=["w", "x", "y", "z"],
)


def test_ranks_and_average_ranks():
    assert statistics.ranks(TABLE).to_numpy().tolist() == [[1, 2, 3], [2, 1, 3], [1, 3, 2], [1, 2, 3]]
    assert statistics.average_ranks(TABLE).to_dict() == {"A": 1.25, "B": 2.0, "C": 2.75}


def test_tied_scores_share_the_average_rank():
    tied = pd.DataFrame({"A": [0.9], "B": [0.9], "C": [0.5]})
    assert statistics.ranks(tied).iloc[0].tolist() == [1.5, 1.5, 3.0]


def test_means_equal_but_for_their_last_bits_tie_in_ranks_friedman_and_wilcoxon():
    # The mean of the same three numbers summed in two orders: equal in exact arithmetic, not in floating point.
    values = [0.1, 0.2, 0.3]
    a, b = (values[0] + values[1] + values[2]) / 3, (values[2] + values[1] + values[0]) / 3
    assert a != b and abs(a - b) <= 1e-12 * a
    table = pd.DataFrame({"X": [0.9, 0.9], "Y": [0.5, 0.5], "A": [a, b], "B": [b, a], "Z": [0.1, 0.1]})
    assert statistics.ranks(table).to_numpy().tolist() == [[1, 2, 3.5, 3.5, 5]] * 2
    # A and B differ by the last bit on both datasets: no non-zero difference left, p = 1.
    pairs = statistics.wilcoxon_holm(table).set_index(["method_a", "method_b"])
    assert pairs.loc[("A", "B"), "p_value"] == 1.0
    assert statistics.friedman(table).statistic == pytest.approx(
        statistics.friedman(table.assign(B=table["A"])).statistic, abs=0
    )
    # A real difference (relative 1e-9) is kept.
    apart = table.assign(B=table["A"] * (1 + 1e-9))
    assert statistics.ranks(apart).iloc[0].tolist() == [1, 2, 4, 3, 5]


def test_friedman_statistic():
    # chi2 = 12 / (N k (k + 1)) * sum R_j^2 - 3 N (k + 1), rank sums 5, 8, 11: 12/48 * 210 - 48 = 4.5;
    # Iman-Davenport F = (N - 1) chi2 / (N (k - 1) - chi2) = 3 * 4.5 / 3.5.
    result = statistics.friedman(TABLE)
    assert result.statistic == pytest.approx(4.5)
    assert result.p_value == pytest.approx(np.exp(-4.5 / 2))  # chi-square with 2 degrees of freedom
    assert result.iman_davenport == pytest.approx(13.5 / 3.5)
    # F's own p: F with k - 1 = 2 and (k - 1)(N - 1) = 6 degrees of freedom, not the chi-square p.
    assert result.iman_davenport_p == pytest.approx(stats.f.sf(13.5 / 3.5, 2, 6))
    assert result.iman_davenport_p != pytest.approx(result.p_value, rel=1e-3)
    assert (result.n_datasets, result.n_methods) == (4, 3)


def test_critical_difference_matches_demsar_table():
    # Demšar's Table 5(a): q_0.05 = 2.343 for k = 3, 2.569 for k = 4, 3.164 for k = 10.
    assert statistics.critical_difference(3, 4) == pytest.approx(2.343 * np.sqrt(3 * 4 / 24), abs=1e-3)
    assert statistics.critical_difference(4, 10) == pytest.approx(2.569 * np.sqrt(4 * 5 / 60), abs=1e-3)
    assert statistics.critical_difference(10, 30) == pytest.approx(3.164 * np.sqrt(10 * 11 / 180), abs=1e-3)


def test_wilcoxon_holm_adjusted_p_values():
    # Exact two-sided signed-rank p-values with n = 4: A-C all positive: 2/16 = 0.125; A-B (+.1, -.05, +.1,
    # +.05: W- = 1.5) 0.375; B-C (W- = 1) 0.25. Holm: sorted 0.125, 0.25, 0.375 -> 3 * 0.125 = 0.375,
    # max(0.375, 2 * 0.25) = 0.5, max(0.5, 0.375) = 0.5.
    result = statistics.wilcoxon_holm(TABLE).set_index(["method_a", "method_b"])
    assert_allclose(result["p_value"].to_numpy(), [0.375, 0.125, 0.25])
    assert_allclose(result["p_holm"].to_numpy(), [0.5, 0.375, 0.5])
    assert not result["significant"].any()
    assert result.loc[("A", "C"), ["wins_a", "losses_a"]].tolist() == [4, 0]


def test_identical_methods_have_p_one():
    same = pd.DataFrame({"A": [0.5, 0.6, 0.7], "B": [0.5, 0.6, 0.7]})
    assert statistics.wilcoxon_holm(same)["p_value"].tolist() == [1.0]


def test_nemenyi_is_symmetric_with_unit_diagonal():
    p = statistics.nemenyi(TABLE)
    assert list(p.columns) == ["A", "B", "C"]
    assert_allclose(p.to_numpy(), p.to_numpy().T)
    assert_allclose(np.diag(p.to_numpy()), 1.0)
    assert p.loc["A", "C"] < p.loc["A", "B"]


def test_win_tie_loss():
    result = statistics.win_tie_loss(TABLE, ["A"], ["B", "C"], tie=0.06)
    # A - B: +0.1, -0.05 (a tie within 0.06), +0.1, +0.05 (a tie).
    assert result.loc["A", "B"] == "2 / 2 / 0"
    assert result.loc["A", "C"] == "3 / 1 / 0"  # +0.2, +0.2, +0.05 (a tie), +0.45


def _p_values_from_cd(ranks: dict, cd: float) -> pd.DataFrame:
    """A Nemenyi-like significance matrix built by hand: p = 0 where two average ranks differ by more than cd."""
    methods = list(ranks)
    return pd.DataFrame(
        [[0.0 if abs(ranks[a] - ranks[b]) > cd else 1.0 for b in methods] for a in methods],
        index=methods,
        columns=methods,
    )


@pytest.mark.parametrize(
    ("ranks", "cd", "expected"),
    [
        ({"A": 1, "B": 2, "C": 9, "D": 10}, 1.5, [["A", "B"], ["C", "D"]]),  # two groups
        ({"A": 1, "B": 2, "C": 2.5, "D": 3}, 2.5, [["A", "B", "C", "D"]]),  # every method joined
        ({"A": 1, "B": 2, "C": 3, "D": 4}, 1.5, [["A", "B"], ["B", "C"], ["C", "D"]]),  # a chain: overlapping groups
        ({"A": 1, "B": 5, "C": 6, "D": 12}, 1.5, [["A"], ["B", "C"], ["D"]]),  # separated from all: its own group
    ],
)
def test_groups_are_the_runs_of_methods_the_test_does_not_separate(ranks, cd, expected):
    series = pd.Series(ranks, dtype=float)
    assert statistics.contiguous_groups(_p_values_from_cd(ranks, cd), series) == expected


def holm_like(ranks: dict, separated: list[tuple[str, str]]) -> pd.DataFrame:
    """p = 0.01 for the ``separated`` pairs, 0.5 for every other: a test whose not-separated sets need not be
    consecutive in rank order (Holm's can be so; Nemenyi's cannot)."""
    matrix = pd.DataFrame(0.5, index=list(ranks), columns=list(ranks))
    for a, b in separated:
        matrix.loc[a, b] = matrix.loc[b, a] = 0.01
    return matrix


@pytest.mark.parametrize(
    ("ranks", "separated", "expected"),
    [
        # {A, B, D} is a set of which no two are separated, but C, between B and D, is separated from A.
        ({"A": 1, "B": 2, "C": 3, "D": 4}, [("A", "C")], [["A", "B"], ["B", "C", "D"]]),
        # The top method separated from one in the middle only: its run stops before it.
        ({"A": 5.06, "B": 5.67, "C": 7.5, "D": 7.79, "E": 7.88}, [("A", "D")], [["A", "B", "C"], ["B", "C", "D", "E"]]),
        # A separated from B alone: A is a group of its own, although the test does not separate A from C or D.
        ({"A": 1, "B": 2, "C": 3, "D": 4}, [("A", "B")], [["A"], ["B", "C", "D"]]),
    ],
)
def test_groups_never_span_a_method_the_test_separates_from_a_member(ranks, separated, expected):
    p_values = holm_like(ranks, separated)
    series = pd.Series(ranks, dtype=float)
    groups = statistics.contiguous_groups(p_values, series)
    assert groups == expected
    order = list(series.sort_values().index)
    for group in groups:
        spanned = order[order.index(group[0]) : order.index(group[-1]) + 1]
        assert all(p_values.loc[a, b] >= 0.05 for a in spanned for b in spanned)


def test_separated_pairs_name_the_better_rank_first_smallest_p_first():
    ranks = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0})
    p_values = holm_like(dict(ranks), [("D", "A"), ("C", "B")])
    p_values.loc["B", "C"] = p_values.loc["C", "B"] = 0.001
    assert statistics.separated_pairs(p_values, ranks) == [("B", "C", 0.001), ("A", "D", 0.01)]


def test_group_table_marks_each_methods_groups():
    ranks = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0})
    table = statistics.group_table([["A", "B"], ["B", "C"]], ranks)
    assert table.columns.tolist() == ["method", "rank", "group_1", "group_2"]
    assert table[["group_1", "group_2"]].to_numpy().tolist() == [[True, False], [True, True], [False, True]]


def test_nemenyi_separates_exactly_the_pairs_further_apart_than_the_critical_difference():
    rng = np.random.default_rng(3)
    table = pd.DataFrame(rng.random((20, 6)) + np.linspace(0, 1.0, 6), columns=list("ABCDEF"))
    ranks = statistics.average_ranks(table)
    cd = statistics.critical_difference(6, 20)
    p = statistics.nemenyi(table)
    gaps = np.abs(ranks.to_numpy()[:, None] - ranks.to_numpy()[None, :])
    separated = p.loc[ranks.index, ranks.index].to_numpy() < 0.05
    assert separated.any() and not separated.all()
    assert (separated == (gaps > cd)).all()


def test_wilcoxon_holm_matrix_is_symmetric_with_the_adjusted_p_values():
    pairs = statistics.wilcoxon_holm(TABLE)
    matrix = statistics.wilcoxon_holm_matrix(pairs, list(TABLE.columns))
    assert_allclose(matrix.to_numpy(), matrix.to_numpy().T)
    assert_allclose(np.diag(matrix.to_numpy()), 1.0)
    assert matrix.loc["C", "A"] == pytest.approx(0.375)


@pytest.mark.parametrize("n", [2, 3, 5, 7, 10, 20])
def test_smallest_wilcoxon_p_is_what_scipy_gives_when_every_difference_has_one_sign(n):
    differences = np.arange(1.0, n + 1)
    assert statistics.smallest_wilcoxon_p(n) == pytest.approx(stats.wilcoxon(differences).pvalue)
    # Any other sign pattern gives a larger p.
    assert stats.wilcoxon(differences * np.r_[-1, np.ones(n - 1)]).pvalue > statistics.smallest_wilcoxon_p(n)


@pytest.mark.parametrize("n", [2, 7, 20, 50])
def test_smallest_wilcoxon_p_is_one_sign_pattern_of_all_up_to_50_datasets(n):
    assert statistics.smallest_wilcoxon_p(n) == pytest.approx(2.0 ** (1 - n), rel=1e-9)


def test_with_tied_differences_scipy_is_exact_up_to_13_datasets_and_approximate_from_14():
    # What smallest_wilcoxon_p's docstring and summary.md say scipy does: all differences positive, two tied.
    for n, exact in ((13, True), (14, False)):
        differences = np.r_[1.0, np.arange(1.0, n)]
        p = stats.wilcoxon(differences).pvalue
        assert (p == pytest.approx(2.0 ** (1 - n))) == exact
        assert (p == pytest.approx(stats.wilcoxon(differences, method="asymptotic").pvalue)) != exact


@pytest.mark.parametrize("n", [51, 120])
def test_smallest_wilcoxon_p_beyond_50_datasets_is_the_normal_approximation(n):
    mean, sd = n * (n + 1) / 4, np.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    assert statistics.smallest_wilcoxon_p(n) == pytest.approx(2 * stats.norm.sf(mean / sd), rel=1e-9)
    assert statistics.smallest_wilcoxon_p(n) > 2.0 ** (1 - n)


def test_smallest_holm_p_on_7_datasets_and_78_pairs_is_above_one():
    assert statistics.smallest_holm_p(7, 78) == pytest.approx(78 / 64)
    assert statistics.smallest_holm_p(36, 78) < 1e-8


def test_holm_cannot_reach_the_smallest_attainable_p():
    # 6 datasets, 3 methods in a fixed order: every pair has all differences of one sign, the smallest p.
    table = pd.DataFrame({"A": np.arange(6) + 3.0, "B": np.arange(6) + 2.0, "C": np.arange(6) + 1.0})
    assert statistics.wilcoxon_holm(table)["p_holm"].min() == pytest.approx(statistics.smallest_holm_p(6, 3))


def test_nemenyi_can_separate_only_when_the_cd_is_below_the_largest_rank_gap():
    # 13 methods on 3 datasets: CD = 3.313 * sqrt(13 * 14 / 18) = 10.5 < 12; on 2 datasets 12.9 > 12.
    assert statistics.nemenyi_can_separate(statistics.critical_difference(13, 3), 13)
    assert not statistics.nemenyi_can_separate(statistics.critical_difference(13, 2), 13)
    assert not statistics.nemenyi_can_separate(2.0, 3)


def test_t_interval_is_the_mean_plus_minus_t_times_the_standard_error():
    interval = statistics.t_mean_interval(TABLE)
    assert list(interval.index) == ["A", "B", "C"]
    # A: 0.90, 0.80, 0.70, 0.95: mean 0.8375, sd 0.1109, t(0.975, 3) = 3.182.
    half = 3.182446 * np.std([0.90, 0.80, 0.70, 0.95], ddof=1) / 2
    assert interval.loc["A"].tolist() == pytest.approx([0.8375 - half, 0.8375 + half])
    constant = pd.DataFrame({"A": [0.5] * 5})
    assert statistics.t_mean_interval(constant).loc["A"].tolist() == [0.5, 0.5]
