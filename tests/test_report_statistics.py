"""Statistics across datasets against values computed by hand on a small table (Demšar 2006's formulas)."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from kpca_bench.report import statistics

# 4 datasets x 3 methods, no ties: ranks A 1,2,1,1; B 2,1,3,2; C 3,3,2,3.
TABLE = pd.DataFrame({"A": [0.90, 0.80, 0.70, 0.95], "B": [0.80, 0.85, 0.60, 0.90], "C": [0.70, 0.60, 0.65, 0.50]},
                     index=["w", "x", "y", "z"])


def test_ranks_and_average_ranks():
    assert statistics.ranks(TABLE).to_numpy().tolist() == [[1, 2, 3], [2, 1, 3], [1, 3, 2], [1, 2, 3]]
    assert statistics.average_ranks(TABLE).to_dict() == {"A": 1.25, "B": 2.0, "C": 2.75}


def test_tied_scores_share_the_average_rank():
    tied = pd.DataFrame({"A": [0.9], "B": [0.9], "C": [0.5]})
    assert statistics.ranks(tied).iloc[0].tolist() == [1.5, 1.5, 3.0]


def test_friedman_statistic():
    # chi2 = 12 / (N k (k + 1)) * sum R_j^2 - 3 N (k + 1), rank sums 5, 8, 11: 12/48 * 210 - 48 = 4.5;
    # Iman-Davenport F = (N - 1) chi2 / (N (k - 1) - chi2) = 3 * 4.5 / 3.5.
    result = statistics.friedman(TABLE)
    assert result.statistic == pytest.approx(4.5)
    assert result.p_value == pytest.approx(np.exp(-4.5 / 2))  # chi-square with 2 degrees of freedom
    assert result.iman_davenport == pytest.approx(13.5 / 3.5)
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
