"""Tables and figures of the ``classification`` and ``classification_cv`` protocols, from their records.

They replace the generic outlier tables (whose F1 / threshold columns do not apply) with
``trials.csv``, ``summary.csv`` (``accuracy_mean``, ``error_mean``, ... per method), ``summary.md``
and a box plot of the per-trial metric.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.report.plots import method_styles, plt, save_figure, set_title
from kpca_bench.report.tables import (
    csv_text,
    incomplete_note,
    markdown_row,
    markdown_table,
    mean_std,
    method_cell,
    run_dataset,
    run_facts,
    summary_frame,
    trials_frame,
)
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.planning import planned_trials
from kpca_bench.experiment.store import write_atomic

METRICS = {
    "accuracy": ("accuracy", 4),
    "error": ("misclassification rate", 4),
    "fit_time": ("feature fit time (s)", 2),
    "classifier_fit_time": ("classifier fit time (s)", 2),
}
FIGURE = "error_box.png"
CV_METRICS = {
    "accuracy": ("accuracy", 4),
    "precision": ("precision", 4),
    "recall": ("recall", 4),
    "f1": ("F1", 4),
    "sample_sparsity": ("unused samples", 4),
    "coef_sparsity": ("zero coefficients", 4),
    "sv_sparsity": ("non-SV samples", 4),
    "n_components": ("PCs chosen", 1),
    "fit_time": ("search time (s)", 1),
}
CV_FIGURE = "accuracy_box.png"


def _markdown(config: Config, summary: pd.DataFrame, metrics: dict, facts: list[str], figure: str) -> str:
    """The summary page: facts, then mean ± std per method."""
    header = ["method", "trials", "failed", *(label for label, _ in metrics.values())]
    note = incomplete_note(summary)
    lines = [
        f"# {config.name}: {run_dataset(config).name}",
        "",
        *[f"- {fact}" for fact in facts],
        "",
        *([f"**{note}.** Run the same command again to finish it.", ""] if note else []),
        "Mean ± standard deviation over the finished trials (trials: done / planned).",
        "",
        *markdown_table(header),
    ]
    for _, row in summary.iterrows():
        cells = [method_cell(row), f"{row['trials']} / {row['planned']}", str(row["failed"])]
        for metric, (_, digits) in metrics.items():
            cells.append(mean_std(row[f"{metric}_mean"], row[f"{metric}_std"], digits))
        lines.append(markdown_row(cells))
    return "\n".join(lines + ["", f"![{figure}]({figure})", ""])


def metric_box_plot(
    trials: pd.DataFrame, methods: list[str], title: str, path: Path, *, column: str, ylabel: str
) -> None:
    """One box per method of a per-trial metric, every trial drawn as a dot."""
    data = [trials.loc[(trials["method"] == m) & (trials["status"] == "ok"), column].to_numpy() for m in methods]
    fig, ax = plt.subplots(figsize=(max(4.8, 1.6 + 1.4 * len(methods)), 4.4))
    ax.boxplot(data, tick_labels=methods)
    styles = method_styles(methods)
    for position, (method, values) in enumerate(zip(methods, data), start=1):
        ax.plot(
            np.full(len(values), position),
            values,
            ms=3,
            alpha=0.6,
            linestyle="none",
            color=styles[method]["color"],
            marker=styles[method]["marker"],
        )
    ax.set_ylabel(ylabel)
    set_title(ax, f"{title}: {ylabel} over {max(len(d) for d in data)} trials")
    ax.tick_params(axis="x", labelrotation=15)
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


def _write(
    config: Config, records: list[dict], directory, metrics: dict, figure: str, column: str, ylabel: str
) -> pd.DataFrame | None:
    directory = Path(directory)
    order = [m.setting_label(s) for m in config.methods for s in m.settings()]
    trials = trials_frame(records, order, columns=None)
    if not (trials["status"] == "ok").any():
        return None
    summary = summary_frame(trials, planned_trials(config), metrics)
    facts = run_facts(config, records[0].get("versions", {}))
    note = incomplete_note(summary)
    title = f"{config.name}: {run_dataset(config).name}" + (f"\n{note}" if note else "")
    metric_box_plot(
        trials,
        list(summary.loc[summary["trials"] > 0, "method"].astype(str)),
        title,
        directory / figure,
        column=column,
        ylabel=ylabel,
    )
    write_atomic(directory / "trials.csv", csv_text(trials))
    write_atomic(directory / "summary.csv", summary.to_csv(index=False))
    write_atomic(directory / "summary.md", _markdown(config, summary, metrics, facts, figure))
    return summary


def report_classification(config: Config, records: list[dict], directory) -> pd.DataFrame | None:
    """Accuracy and misclassification tables and the error box plot;
    the summary."""
    return _write(config, records, directory, METRICS, FIGURE, "error", "test misclassification rate")


def report_classification_cv(config: Config, records: list[dict], directory) -> pd.DataFrame | None:
    """Accuracy, precision, recall, F1, sparsity and chosen PCs, and the accuracy box plot;
    the summary."""
    return _write(config, records, directory, CV_METRICS, CV_FIGURE, "accuracy", "test accuracy")
