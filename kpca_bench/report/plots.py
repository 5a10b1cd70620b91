"""Figures rebuilt from trial records alone: F1 box plot, mean ROC curves, F1 vs sparsity; the style of each
method (:func:`method_styles`) and the title of a run's figures (:func:`run_title`), shared by every figure."""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from kpca_bench.metrics import ROC_FPR_GRID  # noqa: E402
from kpca_bench.report.tables import trials_used  # noqa: E402
from kpca_bench.experiment.store import atomic_output  # noqa: E402


def save_figure(fig, path, *, whole: bool = False) -> None:
    """Save as PNG atomically (:func:`~kpca_bench.experiment.store.atomic_output`), so an interrupt never leaves half an image.

    ``whole``: grow the canvas to everything drawn, for figures whose labels lie outside their axes (the
    critical-difference diagram), which ``tight_layout`` does not see."""
    fig.tight_layout()
    try:
        with atomic_output(path) as tmp:
            fig.savefig(tmp, dpi=120, format="png", bbox_inches="tight" if whole else None)
    finally:
        plt.close(fig)


# Characters of a 10-point title line per inch of figure width (DejaVu Sans averages about 6 points a character).
TITLE_CHARACTERS_PER_INCH = 12


def set_title(ax, text: str) -> None:
    """A 10-point title, each line wrapped to the figure's width so that long config names are not cut off."""
    width = int(ax.figure.get_figwidth() * TITLE_CHARACTERS_PER_INCH)
    ax.set_title("\n".join(textwrap.fill(line, width) for line in text.split("\n")), fontsize=10)


# Twenty markers: with the twenty colours below, up to 20 methods differ by colour and by marker.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p", "d", "8", "H", "1", "2", "3", "4", "+")
LINESTYLES = ("-", "--", "-.", ":")


def method_styles(methods: list[str]) -> dict[str, dict]:
    """Colour, marker and line style of each method, by its position in ``methods`` (the config's order, so a
    method looks the same in every figure of a run): tab20's ten dark colours, then its ten light ones, and
    :data:`MARKERS`; the line styles cycle every four. Up to 20 methods differ by colour and by marker; beyond,
    colours and markers repeat."""
    tab20 = matplotlib.color_sequences["tab20"]  # the colours of the colormap tab20
    colours = (*tab20[0::2], *tab20[1::2])
    return {
        method: {
            "color": colours[i % len(colours)],
            "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[i % len(LINESTYLES)],
        }
        for i, method in enumerate(methods)
    }


def run_title(config_name: str, dataset_name: str) -> str:
    """``config: dataset``, or the one name when the config is named after its dataset (not "mnist: mnist")."""
    return config_name if config_name == dataset_name else f"{config_name}: {dataset_name}"


def marked(method: str, marks: dict[str, str] | None) -> str:
    """A method's label in a figure: its name, and in brackets why its numbers mean nothing, if they do not
    (``marks``: :func:`~kpca_bench.report.tables.degenerate_marks`)."""
    mark = (marks or {}).get(method)
    return f"{method} ({mark})" if mark else method


def f1_box_plot(
    trials: pd.DataFrame, methods: list[str], *, title: str, threshold: str, path, marks: dict[str, str] | None = None
) -> None:
    """Spread of F1 over trials, one box per method (labelled :func:`marked`); dots are the trials."""
    data = [trials.loc[trials["method"] == m, "f1"].dropna().to_numpy() for m in methods]
    fig, ax = plt.subplots(figsize=(max(4.8, 1.6 + 1.3 * len(methods)), 4.4))
    ax.boxplot(data, tick_labels=[marked(m, marks) for m in methods])
    rng = np.random.default_rng(0)
    styles = method_styles(methods)
    for position, (method, values) in enumerate(zip(methods, data), start=1):
        ax.plot(
            position + rng.uniform(-0.08, 0.08, len(values)),
            values,
            ms=3,
            alpha=0.6,
            linestyle="none",
            color=styles[method]["color"],
            marker=styles[method]["marker"],
        )
    ax.set_ylabel("F1 (outliers positive)")
    set_title(ax, f"{title}: F1 over {max(len(d) for d in data)} trials\nthreshold: {threshold}")
    ax.tick_params(axis="x", labelrotation=20)
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


def roc_plot(
    roc: dict[str, np.ndarray],
    auroc: dict[str, tuple[float, float]],
    *,
    title: str,
    path,
    marks: dict[str, str] | None = None,
) -> None:
    """Mean ROC over trials per method (labelled :func:`marked`), with AUROC mean ± std (3 decimals) in the
    legend; each method its own colour, line style and markers (:func:`method_styles`), so that curves lying on
    one another stay apart."""
    fig, ax = plt.subplots(figsize=(5.2, 4.8))
    styles = method_styles(list(roc))
    for i, (method, tpr) in enumerate(roc.items()):
        mean, std = auroc[method]
        # Markers every tenth of the curve's length, shifted per method so that curves on one another show each.
        ax.plot(
            ROC_FPR_GRID,
            tpr.mean(axis=0),
            drawstyle="steps-post",
            markevery=(0.025 * i, 0.1),
            ms=5,
            fillstyle="none",
            **styles[method],
            label=f"{marked(method, marks)} (AUROC {mean:.3f} ± {'–' if np.isnan(std) else f'{std:.3f}'})",
        )
    ax.plot([0, 1], [0, 1], ":", color="grey", label="chance")
    ax.set_xlabel("false-positive rate (inliers flagged)")
    ax.set_ylabel("true-positive rate (outliers caught)")
    set_title(ax, f"{title}: ROC averaged over trials")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    save_figure(fig, path)


def sparsity_plot(
    curves: dict[str, pd.DataFrame],
    references: dict[str, float],
    *,
    title: str,
    threshold: str,
    path,
    trials: pd.DataFrame,
    marks: dict[str, str] | None = None,
) -> None:
    """Mean F1 against mean % non-zero dual coefficients across a sparsity sweep.

    ``curves`` maps a method to rows with columns sparsity, f1 (means over trials),
    indexed by the setting label, for each setting of its sparsity parameter;
    ``references`` are methods drawn as horizontal lines (dense KPCA). Each
    legend entry says which of the run's ``trials`` its points come from
    (:func:`~kpca_bench.report.tables.trials_used`); a setting with a mark
    (``marks``, by setting label) is circled and named in the legend.
    """
    fig, ax = plt.subplots(figsize=(6, 4.4))
    styles = method_styles([*curves, *references])
    for method, points in curves.items():
        points = points.sort_values("sparsity")
        ax.plot(
            points["sparsity"],
            points["f1"],
            **styles[method],
            label=f"{method} ({trials_used(trials, list(points.index))})",
        )
        flagged = points[[setting in (marks or {}) for setting in points.index]]
        for setting, point in flagged.iterrows():
            ax.plot(
                point["sparsity"],
                point["f1"],
                "o",
                ms=12,
                fillstyle="none",
                color="black",
                label=marked(setting, marks),
            )
    for method, f1 in references.items():
        ax.axhline(
            f1,
            color=styles[method]["color"],
            linestyle=styles[method]["linestyle"],
            label=f"{marked(method, marks)} (all coefficients non-zero, {trials_used(trials, [method])})",
        )
    ax.set_xlabel("sparsity: % non-zero dual coefficients per component")
    ax.set_ylabel("F1 (of the trials in the legend)")
    set_title(ax, f"{title}: F1 vs sparsity\nthreshold: {threshold}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, path)
