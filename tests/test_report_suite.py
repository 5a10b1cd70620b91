"""A suite's tables and figures: the diagram's bars are the post-hoc test's groups, written beside it, and the
statistics text says what the tests can find at the suite's size. Hand-built records; no data, no run."""

from html.parser import HTMLParser
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from kpca_bench.datasets.locate import searched
from kpca_bench.report import plots, statistics, suite, suite_verdict
from kpca_bench.experiment.config_parser import parse_config


def suite_config(datasets: list[str], posthoc: str = "nemenyi"):
    return parse_config(
        {
            "name": "hand",
            "datasets": datasets,
            "protocol": "adbench",
            "trials": 1,
            "statistics": {"posthoc": posthoc},
            "methods": [
                {"name": "kpca", "label": "KPCA RE", "params": {"n_components": 2}},
                {"name": "isolation_forest", "label": "IForest"},
                {"name": "lof", "label": "LOF"},
                {"name": "knn", "label": "kNN"},
            ],
        }
    )


def records_of(auroc: pd.DataFrame) -> dict[str, list[dict]]:
    """One trial per dataset and method with the given AUROC (AUPRC = AUROC / 2)."""
    return {
        dataset: [
            {"method": method, "status": "ok", "auroc": value, "auprc": value / 2, "f1": 0.5}
            for method, value in row.items()
        ]
        for dataset, row in auroc.iterrows()
    }


# 12 datasets: KPCA RE first and IForest second on each, LOF and kNN take third and fourth in turn; no two
# differences of a pair are equal in size (scipy's exact signed-rank test, not its slow permutation test for ties).
STEP = np.arange(12) * 1e-3
SEPARATED = pd.DataFrame(
    {
        "KPCA RE": 0.9 + 3 * STEP,
        "IForest": 0.8 + np.sqrt(2) * STEP,
        "LOF": [0.6, 0.5] * 6 + np.pi * STEP,
        "kNN": [0.5, 0.6] * 6 + np.e * STEP,
    },
    index=[
        f"adbench_{name}"
        for name in (
            "wine",
            "glass",
            "wbc",
            "pima",
            "yeast",
            "wdbc",
            "wpbc",
            "thyroid",
            "vertebral",
            "hepatitis",
            "fault",
            "letter",
        )
    ],
)


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
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **_: None)
    bars = suite.cd_diagram(
        stats["ranks"],
        stats["p_values"],
        plots.method_styles(list(SEPARATED)),
        cd=stats["cd"],
        title="t",
        path=tmp_path / "cd.png",
    )
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
    assert (
        "AUROC: Nemenyi critical difference 3.317 ranks (alpha 0.05); the largest possible gap of average ranks "
        "with 4 methods is 3: **no pair can be significant at this size** by Nemenyi" in text
    )
    assert text.count("no pair can be significant at this size") == 3
    assert "Iman-Davenport F = " in text and "; 4 methods, 2 datasets" in text


def test_a_suite_large_enough_says_nothing_is_out_of_reach(separated):
    assert "no pair can be significant" not in (separated / "summary.md").read_text()


def test_holm_reach_on_7_datasets_and_78_pairs():
    text = suite_verdict.holm_reach(7, 78)
    assert "78 x 0.0156 = 1.22" in text and "no pair can be significant at this size" in text


def test_ranks_carry_bootstrap_intervals(separated):
    ranks = pd.read_csv(separated / "ranks.csv").set_index("method")
    assert ranks.loc["KPCA RE", ["rank_auroc", "rank_auroc_low", "rank_auroc_high"]].tolist() == [1, 1, 1]
    low, high = ranks.loc["LOF", ["rank_auroc_low", "rank_auroc_high"]]
    assert 3 <= low < 3.5 < high <= 4
    assert ranks.loc["LOF", "auroc_mean_low"] < 0.55 < ranks.loc["LOF", "auroc_mean_high"]
    shown = "1.00 [1.00, 1.00] | {:.3f} [{:.3f}, {:.3f}]".format(
        *ranks.loc["KPCA RE", ["auroc_mean", "auroc_mean_low", "auroc_mean_high"]]
    )
    assert shown.startswith("1.00 [1.00, 1.00] | 0.917 [0.91")
    assert f"| KPCA RE | {shown} |" in (separated / "summary.md").read_text()
    assert shown.replace(" | ", " ") in " ".join(suite.rank_table_text(ranks.reset_index()).split())


def test_ranks_1_2_9_10_with_cd_1_5_draw_two_bars(tmp_path, monkeypatch):
    # Once a matrix of ones joined all four in one bar; the Nemenyi p-values separate {A, B} from {C, D}.
    ranks = pd.Series({"A": 1.0, "B": 2.0, "C": 9.0, "D": 10.0})
    p_values = pd.DataFrame(
        [[0.0 if abs(ranks[a] - ranks[b]) > 1.5 else 1.0 for b in ranks.index] for a in ranks.index],
        index=ranks.index,
        columns=ranks.index,
    )
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **_: drawn.append(fig))
    bars = suite.cd_diagram(
        ranks, p_values, plots.method_styles(list(ranks.index)), cd=1.5, title="t", path=tmp_path / "cd.png"
    )
    assert bars == [[1.0, 2.0], [9.0, 10.0]]
    texts = {text.get_text() for text in drawn[0].axes[0].texts}
    assert {"A (1.00)", "B (2.00)", "(9.00) C", "(10.00) D", "CD = 1.50"} <= texts  # two decimals, not "(9)"
    assert bars_as_groups(bars, ranks) == [set(g) for g in statistics.contiguous_groups(p_values, ranks)]


def test_the_rank_heatmap_orders_methods_by_average_rank_and_prints_each_rank(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **_: drawn.append(fig))
    scores = SEPARATED[["kNN", "LOF", "IForest", "KPCA RE"]]
    suite.rank_heatmap(scores, statistics.average_ranks(scores), label="AUROC", title="t", path=tmp_path / "h.png")
    ax = drawn[0].axes[0]
    assert [tick.get_text() for tick in ax.get_xticklabels()] == [
        "KPCA RE (1.00)",
        "IForest (2.00)",
        "kNN (3.50)",
        "LOF (3.50)",
    ]
    cells = [text.get_text() for text in ax.texts]
    assert len(cells) == 12 * 4 and cells[:4] == ["1", "2", "4", "3"]  # the first dataset: LOF 3rd, kNN 4th


@pytest.mark.parametrize(
    "posthoc, expected",
    [
        (
            "nemenyi",
            "the Nemenyi critical difference (alpha 0.05) is 1.35 ranks, so 2 of the other 3 methods are "
            "significantly apart from KPCA RE by the Nemenyi test (alpha 0.05)",
        ),
        (
            "wilcoxon_holm",
            "all 3 other methods are significantly apart from KPCA RE by Wilcoxon's signed-rank "
            "test with Holm's correction (alpha 0.05)",
        ),
    ],
)
def test_the_headline_counts_what_the_configs_posthoc_test_separates(posthoc, expected):
    config = suite_config(list(SEPARATED.index), posthoc=posthoc)
    stats = suite.suite_statistics(config, suite.dataset_table(config, records_of(SEPARATED)))
    text = suite_verdict.headline(config, stats)
    assert expected in text
    assert ("Nemenyi" in text) == (posthoc == "nemenyi")
    assert "best" not in text


def test_where_the_test_separates_pairs_the_verdict_names_them_first():
    config = suite_config(list(SEPARATED.index), posthoc="wilcoxon_holm")
    stats = suite.suite_statistics(config, suite.dataset_table(config, records_of(SEPARATED)))
    text = suite_verdict.headline(config, stats)
    assert text.startswith("AUROC: Wilcoxon-Holm separates 5 of 6 pairs of the 4 methods on 12 datasets (Friedman p = ")
    assert "KPCA RE / IForest (p = " in text
    assert "top mean rank: KPCA RE (1.00), separated from 3 of the other 3 methods." in text


# A held-back-style suite: 7 datasets on which the 4 methods take every place in turn (a Latin square and more),
# so that Friedman finds nothing and no post-hoc test separates a pair; IForest ranks first by a hair.
HELD_BACK = pd.DataFrame(
    [
        [0.80, 0.70, 0.60, 0.50],
        [0.50, 0.80, 0.70, 0.60],
        [0.60, 0.50, 0.80, 0.70],
        [0.70, 0.60, 0.50, 0.80],
        [0.81, 0.71, 0.61, 0.51],
        [0.52, 0.62, 0.82, 0.72],
        [0.73, 0.83, 0.53, 0.63],
    ],
    columns=["KPCA RE", "IForest", "LOF", "kNN"],
    index=[f"adbench_{name}" for name in ("wine", "glass", "wbc", "pima", "yeast", "wdbc", "wpbc")],
)


def first_sentence(text: str) -> str:
    return text.strip().split(". ")[0]


class Paragraphs(HTMLParser):
    """The text of each paragraph of a page, in order."""

    def __init__(self, page: str):
        super().__init__()
        self.paragraphs: list[str] = []
        self.inside = False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "p":
            self.inside = True
            self.paragraphs.append("")

    def handle_endtag(self, tag):
        if tag == "p":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.paragraphs[-1] += data


@pytest.mark.parametrize("posthoc", ["nemenyi", "wilcoxon_holm"])
def test_where_nothing_is_significant_summary_headline_and_page_open_by_saying_so(tmp_path, posthoc):
    from kpca_bench.report.html import write_run_html

    config = suite_config(list(HELD_BACK.index), posthoc=posthoc)
    records = records_of(HELD_BACK)
    for dataset, mine in records.items():
        (tmp_path / dataset).mkdir()
    suite.write_suite_report(config, records, [], tmp_path)
    write_run_html(tmp_path, config)
    expected = "AUROC: no detectable difference among the 4 methods at this size (7 datasets; Friedman p = "
    headline = (tmp_path / "headline.md").read_text()
    assert first_sentence(headline).startswith(expected)
    assert "top mean rank, not significant: IForest (2.29)" in headline
    summary = (tmp_path / "summary.md").read_text().splitlines()
    assert summary[0] == "# hand: 7 datasets"
    assert first_sentence(summary[2]).startswith(f"**What the tests support:** {expected}")
    page = Paragraphs((tmp_path / "report.html").read_text()).paragraphs
    assert first_sentence(page[0]).startswith(f"What the tests support: {expected}")


def test_the_floor_of_the_test_joins_the_verdict_when_no_pair_can_be_significant():
    config = suite_config(list(HELD_BACK.index), posthoc="wilcoxon_holm")
    stats = suite.suite_statistics(config, suite.dataset_table(config, records_of(HELD_BACK)))
    # 7 datasets, 6 pairs: 6 x 2 / 2**7 = 0.094.
    assert "and can separate none at this size: its smallest attainable p is 0.0938)" in suite_verdict.verdict(
        stats, "wilcoxon_holm"
    )


def drawn_spans(fig) -> list[tuple[float, float]]:
    """The x extents of the diagram's bars as drawn: its horizontal lines below the axis (scikit-posthocs draws
    the bars at y = -1, -2, ...; the labels' elbows bend, and Nemenyi's CD scale is above the axis)."""
    lines = [line for line in fig.axes[0].lines if len(set(line.get_ydata())) == 1 and line.get_ydata()[0] < 0]
    return sorted((min(line.get_xdata()), max(line.get_xdata())) for line in lines)


@pytest.mark.parametrize(
    ("ranks", "separated", "spans"),
    [
        # Holm's not-separated set {A, B, D} would have drawn a bar from 1 to 4 over C, which Holm separates from A.
        ({"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0}, [("A", "C")], [(1.0, 2.0), (2.0, 4.0)]),
        # The 36-set suite's AUROC case in small: the top method separated from one in the middle (SKPCA RE, 7.79).
        (
            {"L1-KPCA RE": 5.06, "IForest": 5.67, "KPCA MD": 7.61, "SKPCA RE": 7.79, "OCSVM": 7.88, "LOF": 8.69},
            [("L1-KPCA RE", "SKPCA RE"), ("L1-KPCA RE", "LOF")],
            [(5.06, 7.61), (5.67, 8.69)],
        ),
    ],
)
def test_no_drawn_bar_passes_over_a_method_the_test_separates_from_one_under_it(
    tmp_path, monkeypatch, ranks, separated, spans
):
    ranks = pd.Series(ranks)
    p_values = pd.DataFrame(0.5, index=ranks.index, columns=ranks.index)
    for a, b in separated:
        p_values.loc[a, b] = p_values.loc[b, a] = 0.018
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **_: drawn.append(fig))
    suite.cd_diagram(
        ranks, p_values, plots.method_styles(list(ranks.index)), cd=None, title="t", path=tmp_path / "cd.png"
    )
    assert drawn_spans(drawn[0]) == spans
    for low, high in drawn_spans(drawn[0]):
        under = ranks[(ranks >= low) & (ranks <= high)].index
        assert (p_values.loc[under, under] >= 0.05).all().all()


def test_every_metrics_post_hoc_p_values_are_written(separated):
    for metric in ("auroc", "auprc"):
        matrix = pd.read_csv(separated / f"posthoc_p_{metric}.csv", index_col="method")
        assert list(matrix.index) == list(matrix.columns) == ["KPCA RE", "IForest", "LOF", "kNN"]
        assert (matrix.to_numpy() == matrix.to_numpy().T).all()
    pairs = pd.read_csv(separated / "wilcoxon_holm_auprc.csv")
    assert len(pairs) == 6 and {"p_value", "p_holm", "significant"} <= set(pairs.columns)


@pytest.mark.parametrize("data", [["mine"], ["mine", "theirs"], []], ids=["one", "two", "unset"])
def test_the_skipped_line_names_no_folder_of_this_machine_and_reads_the_same_with_data_folders_or_none(
    tmp_path, monkeypatch, data
):
    monkeypatch.setenv("KPCA_BENCH_DATA", os.pathsep.join(str(tmp_path / name) for name in data))
    monkeypatch.setenv("KPCA_BENCH_CACHE", str(tmp_path / "cache"))
    line = suite.skipped_line([("adbench_x", f"its files are not in {searched('adbench_x')}; fetch it")])
    assert line == (
        "Skipped, files not here: adbench_x. For each: its files are not in $KPCA_BENCH_DATA/<name>, "
        "the cache (~/.cache/kpca-bench)/<name>; fetch it."
    )


@pytest.mark.slow  # reads the committed 36-set suite's records (about 10 s)
def test_the_committed_adbench_suite_under_wilcoxon_holm_draws_no_bar_over_a_separated_method(tmp_path, monkeypatch):
    from dataclasses import replace
    from pathlib import Path

    from kpca_bench.experiment.runner import stored_records
    from kpca_bench.experiment.store import ResultStore
    from kpca_bench.report.rebuild import config_of_run

    root = Path(__file__).parents[1]
    directory = root / "results" / "adbench_classical"
    config = config_of_run(directory, [root / "configs"], print)
    config = replace(config, statistics=replace(config.statistics, posthoc="wilcoxon_holm"))
    records = {
        label: stored_records(member, directory / label)
        for label, member in config.members()
        if ResultStore(directory / label).exists()
    }
    stats = suite.suite_statistics(config, suite.dataset_table(config, records))
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **_: drawn.append(fig))
    for metric in suite_verdict.METRICS:
        entry = stats[metric]
        ranks, p_values = entry["ranks"], entry["p_values"]
        suite.cd_diagram(
            ranks, p_values, plots.method_styles(list(ranks.index)), cd=None, title="t", path=tmp_path / "cd.png"
        )
        spans = drawn_spans(drawn[-1])
        assert spans
        for low, high in spans:
            under = ranks[(ranks >= low) & (ranks <= high)].index
            assert (p_values.loc[under, under] >= 0.05).all().all(), (metric, low, high)
            # Here Holm separates SKPCA RE from L1-KPCA RE, and the old clique-based bar ran over SKPCA RE.
            assert not {"L1-KPCA RE", "SKPCA RE"} <= set(under) or p_values.loc["L1-KPCA RE", "SKPCA RE"] >= 0.05


def test_the_adbench_comparison_points_to_help_that_an_installed_package_has():
    """Not docs/adbench.md, which a pip install does not have: a command that prints the comparison's description."""
    assert "docs/" not in suite.ADBENCH_COMPARISON_HELP
    python, *arguments = suite.ADBENCH_COMPARISON_HELP.split("`")[1].split()
    assert python == "python"
    shown = subprocess.run([sys.executable, *arguments], capture_output=True, text=True, check=True).stdout
    assert "ADBench's own per-seed unsupervised results" in shown and "names no other cause" in shown
