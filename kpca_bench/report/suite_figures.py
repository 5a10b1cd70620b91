"""A suite's figures across datasets: the critical-difference diagram, the rank heatmap and the box plot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.report import statistics


def group_matrix(groups: list[list[str]], methods: list[str]) -> pd.DataFrame:
    """Methods x methods: 1 where two methods share a group, else 0. scikit-posthocs draws a bar over each
    maximal clique of the pairs at or above alpha; given this matrix, those cliques are exactly ``groups``."""
    matrix = pd.DataFrame(0.0, index=methods, columns=methods)
    for group in groups:
        matrix.loc[group, group] = 1.0
    return matrix


def cd_diagram(
    ranks: pd.Series, p_values: pd.DataFrame, styles: dict[str, dict], *, cd: float | None, title: str, path: Path
) -> list[list[float]]:
    """Demšar's diagram, drawn by scikit-posthocs: each bar joins a longest run of methods, consecutive in rank
    order, that the post-hoc test (``p_values``) does not separate at :data:`~kpca_bench.report.statistics.ALPHA`
    (:func:`~kpca_bench.report.statistics.contiguous_groups`), so that no bar passes over a method the test
    separates from one under it; ``cd`` (Nemenyi's) is drawn as a scale above the axis. Returns the average
    ranks under each bar, as drawn."""
    import scikit_posthocs

    from kpca_bench.report.plots import plt, save_figure, set_title

    fig, ax = plt.subplots(figsize=(9, 0.35 * len(ranks) + 1.6))
    drawn = scikit_posthocs.critical_difference_diagram(
        ranks,
        group_matrix(statistics.contiguous_groups(p_values, ranks), list(ranks.index)),
        alpha=statistics.ALPHA,
        ax=ax,
        label_fmt_left="{label} ({rank:.2f})",
        label_fmt_right="({rank:.2f}) {label}",
        color_palette={m: styles[m]["color"] for m in ranks.index},
    )
    for lines in drawn["crossbars"]:
        for bar in lines:
            # scikit-posthocs runs a bar through its methods in the order of a set of names, which changes from one
            # process to the next (Python salts string hashes): left to right, a table gives the same PNG bytes.
            bar.set_xdata(sorted(bar.get_xdata()))
    if cd is not None:
        # Drawn here rather than by scikit-posthocs, which prints the CD with two significant digits.
        start = ranks.min()
        ax.plot([start, start + cd], [0.5, 0.5], color="k", linewidth=2)
        ax.text(start + cd / 2, 0.65, f"CD = {cd:.2f}", ha="center", va="center")
    set_title(ax, title)
    save_figure(fig, path, whole=True)
    return [list(bar.get_xdata()) for lines in drawn["crossbars"] for bar in lines]


def rank_heatmap(scores: pd.DataFrame, ranks: pd.Series, *, label: str, title: str, path: Path) -> None:
    """Each method's rank on each dataset (1 = best), methods ordered by average rank, the rank in each cell."""
    from kpca_bench.report.plots import plt, save_figure, set_title

    per_dataset = statistics.ranks(scores)[list(ranks.index)]
    fig, ax = plt.subplots(figsize=(0.6 * len(ranks) + 3.5, 0.28 * len(per_dataset) + 2.8))
    image = ax.imshow(per_dataset.to_numpy(), cmap="RdYlGn_r", aspect="auto", vmin=1, vmax=len(ranks))
    for (row, column), value in np.ndenumerate(per_dataset.to_numpy()):
        dark = abs(value - (len(ranks) + 1) / 2) > 0.35 * len(ranks)  # the ends of the colour map
        ax.text(column, row, f"{value:g}", ha="center", va="center", fontsize=7, color="white" if dark else "black")
    ax.set_xticks(
        range(len(ranks)),
        [f"{method} ({rank:.2f})" for method, rank in ranks.items()],
        rotation=40,
        ha="right",
        fontsize=8,
    )
    ax.set_yticks(range(len(per_dataset)), per_dataset.index, fontsize=8)
    ax.set_xlabel(f"method (average {label} rank), best first")
    fig.colorbar(image, ax=ax, label=f"{label} rank on the dataset (1 = best)", shrink=0.6)
    set_title(ax, title)
    save_figure(fig, path)


def box_plot(scores: pd.DataFrame, ranks: pd.Series, styles: dict[str, dict], *, title: str, path: Path) -> None:
    from kpca_bench.report.plots import plt, save_figure, set_title

    order = list(ranks.index)
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(order) + 2), 4.6))
    ax.boxplot([scores[m].to_numpy() for m in order], tick_labels=[f"{m} ({ranks[m]:.2f})" for m in order])
    for position, method in enumerate(order, start=1):
        ax.plot(
            np.full(len(scores), position) + np.linspace(-0.15, 0.15, len(scores)),
            scores[method],
            ms=3,
            alpha=0.6,
            linestyle="none",
            color=styles[method]["color"],
            marker=styles[method]["marker"],
        )
    ax.set_ylabel("AUROC (mean over trials, one point per dataset)")
    ax.set_xlabel("method (average AUROC rank), best first")
    set_title(ax, title)
    # Anchored at their right end, long labels (a method marked not converged) do not run into their neighbours.
    plt.setp(ax.get_xticklabels(), rotation=35, ha="right", rotation_mode="anchor")
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)
