"""Figures from trial records: titles stay inside the figure."""

import numpy as np
import pandas as pd

from kpca_bench.report import plots


def test_a_long_title_is_wrapped_to_the_figure_width(tmp_path, monkeypatch):
    titled = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **_: titled.append(fig))
    trials = pd.DataFrame({"method": ["KPCA"] * 3, "f1": [0.9, 0.95, 0.97]})
    plots.f1_box_plot(
        trials,
        ["KPCA"],
        title="sas_novelty_quantile_all_rows_scaling: breast_cancer_wisconsin",
        threshold="fixed outlier-score cut 0.0834",
        path=tmp_path / "f1_box.png",
    )
    fig = titled[0]
    fig.tight_layout()
    renderer = fig.canvas.get_renderer()
    title = fig.axes[0].title.get_window_extent(renderer)
    assert title.x0 >= 0 and title.x1 <= fig.bbox.width


def test_twenty_methods_differ_by_colour_and_by_marker():
    styles = plots.method_styles([f"method {i}" for i in range(20)])
    assert len({style["color"] for style in styles.values()}) == 20
    assert len({style["marker"] for style in styles.values()}) == 20
    assert plots.method_styles(["a", "b"])["b"] == styles["method 1"]  # by position, the same in every figure


def test_a_config_named_after_its_dataset_is_named_once():
    assert plots.run_title("mnist", "mnist") == "mnist"
    assert plots.run_title("das_mnist", "mnist") == "das_mnist: mnist"


def test_roc_curves_differ_by_line_style_and_give_auroc_to_three_decimals(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **_: drawn.append(fig))
    tpr = np.tile(np.linspace(0, 1, len(plots.ROC_FPR_GRID)), (2, 1))
    plots.roc_plot(
        {"SKPCA": tpr, "KPCA": tpr},
        {"SKPCA": (0.98951, 0.0012), "KPCA": (0.99049, np.nan)},
        title="mnist",
        path=tmp_path / "roc.png",
    )
    ax = drawn[0].axes[0]
    curves = [line for line in ax.get_lines() if line.get_label() != "chance"]
    assert len({(line.get_linestyle(), line.get_marker()) for line in curves}) == 2
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels[:2] == ["SKPCA (AUROC 0.990 ± 0.001)", "KPCA (AUROC 0.990 ± –)"]
    assert ax.get_title() == "mnist: ROC averaged over trials"


def drawn_figures(monkeypatch) -> list:
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **_: drawn.append(fig))
    return drawn


def legend_texts(fig) -> list[str]:
    return [text.get_text() for text in fig.axes[0].get_legend().get_texts()]


MARKS = {"Wang-Tanaka": "no components", "WT sweep (lam1=0.001)": "no components"}


def test_a_degenerate_method_is_marked_in_the_box_plot_and_the_roc_legend(tmp_path, monkeypatch):
    drawn = drawn_figures(monkeypatch)
    trials = pd.DataFrame({"method": ["KPCA", "Wang-Tanaka"] * 2, "f1": [0.9, 0.8, 0.95, 0.85]})
    plots.f1_box_plot(
        trials, ["KPCA", "Wang-Tanaka"], title="mnist", threshold="q", path=tmp_path / "a.png", marks=MARKS
    )
    assert [t.get_text() for t in drawn[0].axes[0].get_xticklabels()] == ["KPCA", "Wang-Tanaka (no components)"]
    tpr = np.tile(np.linspace(0, 1, len(plots.ROC_FPR_GRID)), (2, 1))
    plots.roc_plot(
        {"KPCA": tpr, "Wang-Tanaka": tpr},
        {"KPCA": (0.99, 0.001), "Wang-Tanaka": (0.96, 0.001)},
        title="mnist",
        path=tmp_path / "roc.png",
        marks=MARKS,
    )
    assert legend_texts(drawn[1])[:2] == [
        "KPCA (AUROC 0.990 ± 0.001)",
        "Wang-Tanaka (no components) (AUROC 0.960 ± 0.001)",
    ]


def test_the_sparsity_figure_says_which_trials_each_line_comes_from_and_circles_a_degenerate_point(
    tmp_path, monkeypatch
):
    drawn = drawn_figures(monkeypatch)
    sweep = ["WT sweep (lam1=0.0001)", "WT sweep (lam1=0.001)"]
    trials = pd.DataFrame({"method": ["KPCA"] * 3 + sweep, "trial": [0, 1, 2, 0, 0], "status": "ok"})
    curves = {"WT sweep": pd.DataFrame({"sparsity": [15.0, 0.0], "f1": [0.79, 0.86]}, index=sweep)}
    plots.sparsity_plot(
        curves, {"KPCA": 0.96}, title="mnist", threshold="q", path=tmp_path / "s.png", trials=trials, marks=MARKS
    )
    assert legend_texts(drawn[0]) == [
        "WT sweep (trial 0)",
        "WT sweep (lam1=0.001) (no components)",
        "KPCA (all coefficients non-zero, mean of 3 trials)",
    ]
    circled = [
        line for line in drawn[0].axes[0].get_lines() if line.get_label() == "WT sweep (lam1=0.001) (no components)"
    ]
    assert [(line.get_xdata()[0], line.get_ydata()[0]) for line in circled] == [(0.0, 0.86)]
