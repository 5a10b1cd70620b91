"""A suite's tables and figures: the diagram's bars are the post-hoc test's groups, written beside it, and the
statistics text says what the tests can find at the suite's size. Hand-built records; no data, no run."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from kpca_bench.report import plots, statistics, suite
from kpca_bench.experiment.config import parse_config


def suite_config(datasets: list[str], posthoc: str = "nemenyi"):
    return parse_config({"name": "hand", "datasets": datasets, "protocol": "adbench", "trials": 1,
                         "statistics": {"posthoc": posthoc},
                         "methods": [{"name": "kpca", "label": "KPCA RE", "params": {"n_components": 2}},
                                     {"name": "isolation_forest", "label": "IForest"},
                                     {"name": "lof", "label": "LOF"}, {"name": "knn", "label": "kNN"}]})


def records_of(auroc: pd.DataFrame) -> dict[str, list[dict]]:
    """One trial per dataset and method with the given AUROC (AUPRC = AUROC / 2)."""
    return {dataset: [{"method": method, "status": "ok", "auroc": value, "auprc": value / 2, "f1": 0.5}
                      for method, value in row.items()] for dataset, row in auroc.iterrows()}


# 12 datasets: KPCA RE first and IForest second on each, LOF and kNN take third and fourth in turn; no two
# differences of a pair are equal in size (scipy's exact signed-rank test, not its slow permutation test for ties).
STEP = np.arange(12) * 1e-3
SEPARATED = pd.DataFrame({"KPCA RE": 0.9 + 3 * STEP, "IForest": 0.8 + np.sqrt(2) * STEP,
                          "LOF": [0.6, 0.5] * 6 + np.pi * STEP, "kNN": [0.5, 0.6] * 6 + np.e * STEP},
                         index=[f"adbench_{name}" for name in ("wine", "glass", "wbc", "pima", "yeast", "wdbc", "wpbc",
                                                               "thyroid", "vertebral", "hepatitis", "fault", "letter")])


def bars_as_groups(bars: list[list[float]], ranks: pd.Series) -> list[set[str]]:
    return sorted(({m for m in ranks.index if ranks[m] in bar} for bar in bars), key=sorted)


@pytest.fixture(scope="module")
def separated(tmp_path_factory):
    """The suite report of :data:`SEPARATED`, written once for the tests that read it."""
    folder = tmp_path_factory.mktemp("separated")
    suite.write_suite_report(suite_config(list(SEPARATED.index)), records_of(SEPARATED), [], folder)
    return folder


def test_the_diagram_draws_the_groups_written_beside_it(separated, tmp_path, monkeypatch):
    written = pd.read_csv(separated / "cd_groups_auroc.csv")
    groups = [set(written.loc[written[column], "method"]) for column in written.columns[2:]]
    # Average ranks 1, 2, 3.5, 3.5 and CD = 2.569 * sqrt(20 / 72) = 1.35: IForest and LOF are 1.5 apart.
    assert written["rank"].tolist() == [1, 2, 3.5, 3.5]
    assert groups == [{"KPCA RE", "IForest"}, {"LOF", "kNN"}]
    config = suite_config(list(SEPARATED.index))
    stats = suite.suite_statistics(config, suite.dataset_table(config, records_of(SEPARATED)))["auroc"]
    monkeypatch.setattr(plots, "save_figure", lambda fig, path: None)
    bars = suite.cd_diagram(stats["ranks"], stats["p_values"], plots.method_styles(list(SEPARATED)), cd=stats["cd"],
                            title="t", path=tmp_path / "cd.png")
    assert bars_as_groups(bars, stats["ranks"]) == sorted(groups, key=sorted)
    assert (separated / "rank_heatmap_auroc.png").exists() and (separated / "rank_heatmap_auprc.png").exists()


def test_wilcoxon_holm_groups_come_from_the_adjusted_p_values(tmp_path):
    config = suite_config(list(SEPARATED.index), posthoc="wilcoxon_holm")
    stats = suite.suite_statistics(config, suite.dataset_table(config, records_of(SEPARATED)))["auroc"]
    # Every dataset ranks KPCA RE over IForest over both others: p = 2 / 2**12 each, times 6, 5, 4, ... by Holm;
    # LOF and kNN split 6 / 6, p = 1 (not separated).
    assert stats["p_values"].loc["KPCA RE", "IForest"] < 0.05
    assert stats["groups"] == [["KPCA RE"], ["IForest"], ["LOF", "kNN"]]


@pytest.mark.slow  # a whole suite report, figures included
def test_a_suite_too_small_for_any_significant_pair_says_so(tmp_path):
    two = SEPARATED.iloc[:2]
    suite.write_suite_report(suite_config(list(two.index)), records_of(two), [], tmp_path)
    text = (tmp_path / "summary.md").read_text()
    # 2 datasets, 6 pairs: 6 x 2 / 2**2 = 3; CD = 2.569 * sqrt(20 / 12) = 3.32 > 3, the largest gap with 4 methods.
    assert "With 2 datasets and 6 pairs, the smallest attainable Holm-adjusted p is 6 x 0.5 = 3 " in text
    assert "AUROC: Nemenyi critical difference 3.317 ranks (alpha 0.05); the largest possible gap of average ranks " \
           "with 4 methods is 3: **no pair can be significant at this size** by Nemenyi" in text
    assert text.count("no pair can be significant at this size") == 3


def test_a_suite_large_enough_says_nothing_is_out_of_reach(separated):
    assert "no pair can be significant" not in (separated / "summary.md").read_text()


def test_holm_reach_on_7_datasets_and_78_pairs():
    text = suite.holm_reach(7, 78)
    assert "78 x 0.0156 = 1.22" in text and "no pair can be significant at this size" in text


def test_ranks_carry_bootstrap_intervals(separated):
    ranks = pd.read_csv(separated / "ranks.csv").set_index("method")
    assert ranks.loc["KPCA RE", ["rank_auroc", "rank_auroc_low", "rank_auroc_high"]].tolist() == [1, 1, 1]
    low, high = ranks.loc["LOF", ["rank_auroc_low", "rank_auroc_high"]]
    assert 3 <= low < 3.5 < high <= 4
    assert ranks.loc["LOF", "auroc_mean_low"] < 0.55 < ranks.loc["LOF", "auroc_mean_high"]
    shown = "1.00 [1.00, 1.00] | {:.3f} [{:.3f}, {:.3f}]".format(*ranks.loc["KPCA RE", ["auroc_mean", "auroc_mean_low",
                                                                                      "auroc_mean_high"]])
    assert shown.startswith("1.00 [1.00, 1.00] | 0.917 [0.91")
    assert f"| KPCA RE | {shown} |" in (separated / "summary.md").read_text()
    assert shown.replace(" | ", " ") in " ".join(suite.rank_table_text(ranks.reset_index()).split())


def test_ranks_1_2_9_10_with_cd_1_5_draw_two_bars(tmp_path, monkeypatch):
    # The case of issue 29: a matrix of ones joined all four; the Nemenyi p-values separate {A, B} from {C, D}.
    ranks = pd.Series({"A": 1.0, "B": 2.0, "C": 9.0, "D": 10.0})
    p_values = pd.DataFrame([[0.0 if abs(ranks[a] - ranks[b]) > 1.5 else 1.0 for b in ranks.index] for a in ranks.index],
                            index=ranks.index, columns=ranks.index)
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path: drawn.append(fig))
    bars = suite.cd_diagram(ranks, p_values, plots.method_styles(list(ranks.index)), cd=1.5, title="t",
                            path=tmp_path / "cd.png")
    assert bars == [[1.0, 2.0], [9.0, 10.0]]
    texts = {text.get_text() for text in drawn[0].axes[0].texts}
    assert {"A (1.00)", "B (2.00)", "(9.00) C", "(10.00) D", "CD = 1.50"} <= texts  # two decimals, not "(9)"
    assert bars_as_groups(bars, ranks) == [set(g) for g in statistics.not_separated_groups(p_values, ranks)]


def test_the_rank_heatmap_orders_methods_by_average_rank_and_prints_each_rank(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path: drawn.append(fig))
    scores = SEPARATED[["kNN", "LOF", "IForest", "KPCA RE"]]
    suite.rank_heatmap(scores, statistics.average_ranks(scores), label="AUROC", title="t", path=tmp_path / "h.png")
    ax = drawn[0].axes[0]
    assert [tick.get_text() for tick in ax.get_xticklabels()] == ["KPCA RE (1.00)", "IForest (2.00)", "kNN (3.50)",
                                                                  "LOF (3.50)"]
    cells = [text.get_text() for text in ax.texts]
    assert len(cells) == 12 * 4 and cells[:4] == ["1", "2", "4", "3"]  # the first dataset: LOF 3rd, kNN 4th


@pytest.mark.parametrize("posthoc, expected", [
    ("nemenyi", "the Nemenyi critical difference (alpha 0.05) is 1.35 ranks, so 1 of the other 3 methods are not "
                "significantly apart from KPCA RE by the Nemenyi test (alpha 0.05)"),
    ("wilcoxon_holm", "0 of the other 3 methods are not significantly apart from KPCA RE by Wilcoxon's signed-rank "
                      "test with Holm's correction (alpha 0.05)"),
])
def test_the_headline_counts_what_the_configs_posthoc_test_separates(posthoc, expected):
    config = suite_config(list(SEPARATED.index), posthoc=posthoc)
    stats = suite.suite_statistics(config, suite.dataset_table(config, records_of(SEPARATED)))
    text = suite.headline(config, stats)
    assert expected in text
    assert ("Nemenyi" in text) == (posthoc == "nemenyi")


def test_the_skipped_line_names_no_folder_of_this_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(tmp_path / "mine"))
    monkeypatch.setenv("KPCA_BENCH_CACHE", str(tmp_path / "cache"))
    reason = f"its files are not in {tmp_path / 'mine' / 'x'}, {tmp_path / 'cache' / 'x'}; fetch it"
    line = suite.skipped_line([("adbench_x", reason.replace("/x", "/adbench_x"))])
    assert str(tmp_path) not in line
    assert "$KPCA_BENCH_DATA/<name>, the cache (~/.cache/kpca-bench)/<name>" in line


def test_the_adbench_comparison_points_to_help_that_an_installed_package_has():
    """Not docs/adbench.md, which a pip install does not have: a command that prints the comparison's description."""
    assert "docs/" not in suite.ADBENCH_COMPARISON_HELP
    python, *arguments = suite.ADBENCH_COMPARISON_HELP.split("`")[1].split()
    assert python == "python"
    shown = subprocess.run([sys.executable, *arguments], capture_output=True, text=True, check=True).stdout
    assert "ADBench's own per-seed unsupervised results" in shown and "names no other cause" in shown
