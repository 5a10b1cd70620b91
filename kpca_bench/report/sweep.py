"""Tables and figures of a ``novelty_sweep`` run, as Li et al. present them (Tables I-II, Figs. 4-11).

Writes ``sweep_summary.md``, ``sweep_statistics.csv`` (every statistic per split),
``sweep_max_auroc.png`` and ``summary.csv`` (per method entry, the statistics'
medians over the splits, replacing the generic per-setting summary).

For each split and method entry, the AUROCs of all settings (kernel parameter x
model parameter) form one distribution (Li et al., section IV.B.2; with the
protocol option ``statistics: kernel_max``, the best AUROC over the model
parameter per kernel parameter, the values of Figs. 4-11); the table gives its
best value, minimum, 25th percentile, median and 75th percentile, for
split 0 and as a spread over all splits. The figure
pair plots the best AUROC over the model parameter against the kernel
parameter, and a box plot of those maxima.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.protocols.base import TRIALS_DRAWN
from kpca_bench.protocols.novelty import DRAW_NOTES
from kpca_bench.report.plots import method_styles, plt, save_figure
from kpca_bench.report.tables import entry_incomplete_note, markdown_row, markdown_table, run_dataset
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.store import write_atomic

STATISTICS = {
    "best": lambda a: np.max(a),
    "min": lambda a: np.min(a),
    "25%": lambda a: np.percentile(a, 25),
    "median": lambda a: np.median(a),
    "75%": lambda a: np.percentile(a, 75),
}
# The summary's column name of each statistic.
METRICS = {"best": "auroc_best", "min": "auroc_min", "25%": "auroc_q25", "median": "auroc_median", "75%": "auroc_q75"}
FIGURE = "sweep_max_auroc.png"
OVER_TEXT = {"settings": "all settings", "kernel_max": "the kernel parameter of the best over the model parameter"}


def kernel_parameter(config: Config, entry: str) -> str | None:
    """The parameter an entry's grid sweeps (its first key with more than one value)."""
    return next(m for m in config.methods if m.label == entry).swept_parameter()


def _axis_label(config: Config, entry: str) -> str:
    """The swept parameter's name, with the Hamming kernel's lambda named as such."""
    method = next(m for m in config.methods if m.label == entry)
    key = kernel_parameter(config, entry) or "–"
    return "lambda (gamma)" if key == "gamma" and str(method.params.get("kernel", "")).startswith("hamming") else key


CONSTANT = "constant scores"


def sweep_frame(config: Config, records: list[dict]) -> pd.DataFrame:
    """One row per finished cell: entry, trial, kernel parameter value, max AUROC, all AUROCs, and whether every
    model parameter of the cell gave constant scores (its record's flag)."""
    rows = []
    for r in records:
        if r["status"] != "ok":
            continue
        key = kernel_parameter(config, r["entry"])
        rows.append(
            {
                "entry": r["entry"],
                "trial": r["trial"],
                "kernel_param": r["params"].get(key, np.nan),
                "max_auroc": r["auroc"],
                "aurocs": np.asarray(r["auroc_by_model_param"]),
                "constant": CONSTANT in (r.get("degenerate") or ""),
            }
        )
    return pd.DataFrame(rows)


def _pooled(group: pd.DataFrame, over: str) -> np.ndarray:
    return group["max_auroc"].to_numpy() if over == "kernel_max" else np.concatenate(group["aurocs"].to_list())


# The statistics that are one cell's value: reached by constant-score cells alone when the other cells miss it.
ATTAINED = ("best", "min")


def statistics_frame(frame: pd.DataFrame, over: str = "settings") -> pd.DataFrame:
    """The statistics of the AUROC per entry and trial (long format), ``over`` all settings or the
    per-kernel-parameter maxima (``kernel_max``, the protocol option ``statistics``).

    ``constant_cells``: the entry's cells (kernel parameter values) of the trial whose every model parameter gave
    constant scores (their records' flag); ``constant_only``: the statistic is reached by such cells alone (the best
    or the minimum of the other cells differs from it, or every cell is constant): a number that says nothing of the
    method.
    """
    if "constant" not in frame:
        frame = frame.assign(constant=False)
    rows = []
    for (entry, trial), group in frame.groupby(["entry", "trial"], sort=False):
        pooled, ranking = _pooled(group, over), group[~group["constant"]]
        others = _pooled(ranking, over) if len(ranking) else None
        for name, f in STATISTICS.items():
            value = float(f(pooled))
            alone = others is None or (name in ATTAINED and float(f(others)) != value)
            rows.append(
                {
                    "entry": entry,
                    "trial": trial,
                    "statistic": name,
                    "auroc": value,
                    "n_settings": len(pooled),
                    "constant_cells": int(group["constant"].sum()),
                    "constant_only": bool(alone),
                }
            )
    return pd.DataFrame(rows)


def entry_summary(stats: pd.DataFrame, entries: list[str]) -> pd.DataFrame:
    """One row per method entry: each statistic's median over the splits (columns :data:`METRICS`).

    This replaces the generic per-setting ``summary.csv``.
    """
    table = stats.groupby(["entry", "statistic"], sort=False)["auroc"].median().unstack("statistic")
    table = table.loc[entries, list(STATISTICS)].rename(columns=METRICS)
    table.insert(0, "trials", stats.groupby("entry")["trial"].nunique().loc[entries])
    return table.rename_axis("method").reset_index()


def _split0_table(stats: pd.DataFrame, entries: list[str]) -> str:
    lines = markdown_table(["statistic", *entries])
    first = stats[stats["trial"] == stats["trial"].min()].set_index(["statistic", "entry"])
    split0 = first["auroc"]
    split0_flags = first["constant_only"] if "constant_only" in first else {}
    for statistic in STATISTICS:
        cells = [statistic]
        for entry in entries:
            flag = f" **({CONSTANT})**" if split0_flags.get((statistic, entry), False) else ""
            cells.append(f"{split0.get((statistic, entry), np.nan):.4f}{flag}")
        lines.append(markdown_row(cells))
    return "\n".join(lines) + "\n"


def _spread_table(stats: pd.DataFrame, entries: list[str]) -> str:
    lines = markdown_table(["statistic", *entries])
    for statistic in STATISTICS:
        cells = [statistic]
        for entry in entries:
            values = stats.loc[(stats["statistic"] == statistic) & (stats["entry"] == entry), "auroc"]
            cells.append(f"{values.median():.3f} [{values.min():.3f}, {values.max():.3f}]" if len(values) else "–")
        lines.append(markdown_row(cells))
    return "\n".join(lines) + "\n"


def constant_lines(frame: pd.DataFrame, stats: pd.DataFrame, entries: list[str]) -> list[str]:
    """The lines naming, per entry, its cells with constant scores (``frame``'s flag) and the statistics
    (``stats``) they alone reach."""
    lines = []
    for entry in entries:
        cells = frame[frame["entry"] == entry].groupby("trial")["constant"].agg(["sum", "size"])
        if not cells["sum"].any():
            continue
        rows = stats[(stats["entry"] == entry) & stats["constant_only"]]
        alone = rows.groupby("statistic", sort=False)["trial"].nunique()
        reached = "; ".join(
            f"its {name} comes from them alone in {count} of {len(cells)} splits" for name, count in alone.items()
        )
        lines.append(
            f"- **{entry}: {CONSTANT}** (every model parameter gave all test points one score: AUROC 0.5) "
            f"at {cells['sum'].min()}-{cells['sum'].max()} of {cells['size'].max()} kernel parameter values "
            f"per split" + (f"; {reached}" if reached else "")
        )
    return lines


def max_auroc_figure(frame: pd.DataFrame, entries: list[str], *, parameter: str, title: str, path) -> None:
    """Left: best AUROC over the model parameter vs the kernel parameter (split 0; band: range over splits).
    Right: box plot of split 0's maxima (Li et al., Figs. 4-11)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4), gridspec_kw={"width_ratios": [2.2, 1]})
    first = frame["trial"].min()
    styles = method_styles(entries)
    boxes = []
    for entry in entries:
        rows = frame[frame["entry"] == entry]
        spread = rows.groupby("kernel_param")["max_auroc"].agg(["min", "max"])
        split0 = rows[rows["trial"] == first].sort_values("kernel_param")
        flat = split0[split0["constant"]] if "constant" in split0 else split0.iloc[:0]
        label = entry + (f" (x: {CONSTANT}, {len(flat)} values)" if len(flat) else "")
        (line,) = left.plot(
            split0["kernel_param"], split0["max_auroc"], label=label, markevery=0.1, ms=4, **styles[entry]
        )
        if len(flat):
            left.plot(flat["kernel_param"], flat["max_auroc"], "x", color=line.get_color(), ms=5)
        left.fill_between(spread.index, spread["min"], spread["max"], color=line.get_color(), alpha=0.15, lw=0)
        boxes.append(split0["max_auroc"].to_numpy())
    n_trials = frame["trial"].nunique()
    left.set_xlabel(parameter)
    left.set_ylabel("max AUROC over the model parameter")
    left.set_title(f"split {first} (line); range over {n_trials} splits (band)", fontsize=10)
    left.legend(fontsize=8)
    left.grid(alpha=0.3)
    right.boxplot(boxes, tick_labels=entries)
    right.set_title(f"split {first}: box plot of the maxima", fontsize=10)
    right.grid(axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=11)
    save_figure(fig, path)


def write_sweep_report(config: Config, records: list[dict], directory) -> pd.DataFrame | None:
    """Write sweep_statistics.csv, sweep_summary.md, the figure pair and the summary per entry (summary.csv, returned)
    into ``directory``."""
    directory = Path(directory)
    frame = sweep_frame(config, records)
    if frame.empty:
        return None
    entries = [m.label for m in config.methods if m.label in set(frame["entry"])]
    over = config.options.statistics
    stats = statistics_frame(frame, over)
    parameters = sorted({_axis_label(config, e) for e in entries})
    dataset = run_dataset(config)
    title = f"{config.name}: {dataset.name}"
    note = entry_incomplete_note(config, records)
    max_auroc_figure(
        frame,
        entries,
        parameter=" / ".join(parameters),
        title=title + (f"\n{note}" if note else ""),
        path=directory / FIGURE,
    )
    lines = [
        f"# {title}",
        "",
        *([f"**{note}.** Run the same command again to finish it.", ""] if note else []),
        f"- protocol: {config.protocol}: train on {dataset.train_inliers} inliers {list(dataset.inliers)}, test on "
        f"{dataset.test_inliers} inliers + {dataset.test_outliers} outliers {list(dataset.outliers)}{DRAW_NOTES[dataset.draw]}; "
        f"{TRIALS_DRAWN[dataset.draw].format(trials=frame['trial'].nunique())} (seed {config.seed}); scaling: {dataset.scaling}",
        f"- kernel parameter ({', '.join(parameters)}): {frame['kernel_param'].nunique()} values; model parameter: "
        "p = 1 .. P (P = components with a positive eigenvalue) for KPCA, the protocol's nu list for OCSVM",
        f"- settings per split and method: {', '.join(f'{e} {n}' for e, n in stats.groupby('entry', sort=False)['n_settings'].first().items())}",
        *([f"- reproduces: {config.reference.paper}, {config.reference.dataset}"] if config.reference else []),
        "",
        f"## AUROC over {OVER_TEXT[over]}, split {frame['trial'].min()} (Li et al., Tables I-II layout)",
        "",
        _split0_table(stats, entries),
        f"## The same statistics over the {frame['trial'].nunique()} splits: median [min, max]",
        "",
        _spread_table(stats, entries),
        *(
            [
                "Cells whose numbers say nothing of the method (the records' flag; the claims count no win over a "
                "statistic they alone reach):",
                "",
                *flagged,
                "",
            ]
            if (flagged := constant_lines(frame, stats, entries))
            else []
        ),
        f"![{FIGURE}]({FIGURE})",
    ]
    write_atomic(directory / "sweep_statistics.csv", stats.to_csv(index=False))
    summary = entry_summary(stats, entries)
    write_atomic(directory / "summary.csv", summary.to_csv(index=False))
    write_atomic(directory / "sweep_summary.md", "\n".join(lines) + "\n")
    return summary
