"""Kim & Klabjan's robustness figure from the records of a ``robustness`` run.

Explained variation of the clean data (see
:func:`kpca_bench.protocols.robustness.explained_variation`) against the
Gaussian width, one panel per corruption level, one line per method entry
(mean over trials, band: ± one standard deviation). The table gives the same
means, and the difference between the first two entries paired by trial
(e.g. L1 minus L2) with the number of trials in which the first is ahead.
Written by the protocol's report hook after every run, from the records alone.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.protocols import PROTOCOLS
from kpca_bench.report.plots import method_styles, plt, save_figure
from kpca_bench.report.sweep import kernel_parameter
from kpca_bench.report.tables import entry_incomplete_note, markdown_row, markdown_table, run_dataset
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.store import write_atomic

FIGURE = "explained_variation.png"


def robustness_frame(config: Config, records: list[dict]) -> pd.DataFrame:
    """One row per (entry, trial, kernel width, corruption level): the explained variation.

    ``method`` is the setting's label (e.g. ``L1-KPCA (sigma=5)``), as in ``summary.csv``.
    """
    rows = []
    for record in records:
        if record["status"] != "ok":
            continue
        width = record["params"].get(kernel_parameter(config, record["entry"]), np.nan)
        rows += [
            {
                "entry": record["entry"],
                "method": record["method"],
                "trial": record["trial"],
                "width": width,
                "corruption": r,
                "explained_variation": ev,
            }
            for r, ev in zip(record["corruption"], record["explained_variation"])
        ]
    return pd.DataFrame(rows)


def summary_by_width(frame: pd.DataFrame, entries: list[str]) -> pd.DataFrame:
    """Mean and std per (corruption, width, entry); with two or more entries, the first minus the second, paired by trial."""
    stats = frame.groupby(["corruption", "width", "entry"])["explained_variation"].agg(["mean", "std", "count"])
    summary = stats.unstack("entry")
    # A frame with MultiIndex rows unstacks to a frame with (statistic, entry) columns.
    assert isinstance(summary, pd.DataFrame) and isinstance(summary.columns, pd.MultiIndex)
    summary.columns = [f"{entry}_{stat}" for stat, entry in summary.columns]
    if len(entries) >= 2:
        wide = frame.pivot_table(index=["corruption", "width", "trial"], columns="entry", values="explained_variation")
        difference = (wide[entries[0]] - wide[entries[1]]).groupby(["corruption", "width"])
        summary["difference_mean"] = difference.mean()
        summary["difference_std"] = difference.std()
        summary["first_ahead"] = difference.apply(lambda d: int((d > 0).sum()))
        summary["paired_trials"] = difference.count()
    return summary.reset_index()


def explained_variation_by_setting(frame: pd.DataFrame) -> pd.DataFrame:
    """Per method setting, the explained variation's mean and std over trials at each corruption level.

    Columns ``explained_variation_r<percent>_mean`` / ``_std`` (e.g. ``explained_variation_r20_mean``),
    one row per ``method`` label: the numbers a check against the paper compares, once joined to ``summary.csv``.
    """
    stats = frame.groupby(["method", "corruption"], sort=False)["explained_variation"].agg(["mean", "std"])
    table = stats.unstack("corruption")
    # A frame with MultiIndex rows unstacks to a frame with (statistic, corruption level) columns.
    assert isinstance(table, pd.DataFrame) and isinstance(table.columns, pd.MultiIndex)
    order = sorted(table.columns, key=lambda column: (column[1], column[0] != "mean"))
    table = table[order]
    table.columns = [f"explained_variation_r{100 * level:g}_{stat}" for stat, level in order]
    return table.reset_index()


def add_explained_variation_to_summary(directory: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """Join the explained variation per setting to the generic ``summary.csv`` (which has no such column);
    the joined summary."""
    path = directory / "summary.csv"
    summary = pd.read_csv(path).merge(explained_variation_by_setting(frame), on="method", how="left")
    write_atomic(path, summary.to_csv(index=False))
    return summary


def _table(summary: pd.DataFrame, entries: list[str], parameter: str) -> str:
    paired = "difference_mean" in summary
    header = ["r", parameter, *entries]
    if paired:
        header += [f"{entries[0]} − {entries[1]}", f"trials {entries[0]} ahead"]
    lines = [*markdown_table(header)]
    for _, row in summary.iterrows():
        cells = [
            f"{row['corruption']:g}",
            f"{row['width']:g}",
            *(f"{row[f'{e}_mean']:.3f} ± {np.nan_to_num(row[f'{e}_std']):.3f}" for e in entries),
        ]
        if paired:
            cells += [
                f"{row['difference_mean']:+.3f} ± {np.nan_to_num(row['difference_std']):.3f}",
                f"{int(row['first_ahead'])}/{int(row['paired_trials'])}",
            ]
        lines.append(markdown_row(cells))
    return "\n".join(lines) + "\n"


def explained_variation_figure(summary: pd.DataFrame, entries: list[str], *, parameter: str, title: str, path) -> None:
    """One panel per corruption level: explained variation vs the width (log axis), a line per entry."""
    levels = sorted(summary["corruption"].unique())
    styles = method_styles(entries)
    fig, axes = plt.subplots(1, len(levels), figsize=(3.2 * len(levels) + 0.8, 3.6), sharey=True, squeeze=False)
    for ax, level in zip(axes[0], levels):
        rows = summary[summary["corruption"] == level].sort_values("width")
        for entry in entries:
            mean, std = rows[f"{entry}_mean"], np.nan_to_num(rows[f"{entry}_std"])
            (line,) = ax.plot(rows["width"], mean, ms=3, label=entry, **styles[entry])
            ax.fill_between(rows["width"], mean - std, mean + std, color=line.get_color(), alpha=0.2, lw=0)
        ax.set_xscale("log")
        ax.set_xlabel(parameter)
        ax.set_title(f"r = {100 * level:g}% corrupted", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("explained variation of the clean data")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title, fontsize=11)
    save_figure(fig, path)


def write_robustness_report(config: Config, records: list[dict], directory) -> pd.DataFrame | None:
    """Write robustness.csv (per trial), robustness_summary.csv, robustness.md and the figure into ``directory``,
    and add the explained variation per setting to its ``summary.csv`` (returned)."""
    directory = Path(directory)
    frame = robustness_frame(config, records)
    if frame.empty:
        return None
    entries = [m.label for m in config.methods if m.label in set(frame["entry"])]
    parameter = " / ".join(sorted({kernel_parameter(config, e) or "–" for e in entries}))
    summary = summary_by_width(frame, entries)
    title = f"{config.name}: clean variation explained by components fitted on corrupted data"
    note = entry_incomplete_note(config, records)
    dataset = run_dataset(config)
    lines = [
        f"# {title}",
        "",
        *([f"**{note}.** Run the same command again to finish it.", ""] if note else []),
        f"- data: `{dataset.name}` {dataset.options}; {PROTOCOLS[config.protocol].describe(dataset, config.options)}",
        "- methods: " + "; ".join(f"{m.label} = {m.name} {m.params}" for m in config.methods),
        f"- mean ± std over {frame['trial'].nunique()} trials"
        + (f"; {entries[0]} − {entries[1]} is paired by trial" if len(entries) >= 2 else ""),
        "",
        _table(summary, entries, parameter),
        f"![{FIGURE}]({FIGURE})",
    ]
    explained_variation_figure(
        summary,
        entries,
        parameter=parameter,
        title=config.name + (f"\n{note}" if note else ""),
        path=directory / FIGURE,
    )
    write_atomic(directory / "robustness.csv", frame.to_csv(index=False))
    write_atomic(directory / "robustness_summary.csv", summary.to_csv(index=False))
    write_atomic(directory / "robustness.md", "\n".join(lines) + "\n")
    return add_explained_variation_to_summary(directory, frame)
