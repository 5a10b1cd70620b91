"""Our numbers against reference numbers: the blessed quick-profile numbers and the papers'.

A run's comparable numbers are its ``summary.csv``: one row per method label,
one numeric column per metric (``auroc_mean``, ``f1_mean``, ``sparsity_mean``,
or a protocol's own such as ``auroc_best``). The blessed numbers,
``results/reference/quick.csv``, are a long table (config, method, metric,
value, tolerance) written by ``python -m reproductions bless`` and reviewed in the diff like
code. A paper's numbers are its reproduction's ``reference/numbers.yaml``, found from the
config file's folder (:mod:`reproductions.framework.reference`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, cast

import pandas as pd

from kpca_bench.errors import KpcaBenchError
from reproductions.framework.reference import NUMBERS_FILE, load_references, reference_folder
from kpca_bench.report.tables import degenerate_reasons
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.store import write_atomic

BLESSED_FILE = Path("reference") / "quick.csv"
BLESSED_COLUMNS = ["config", "method", "metric", "value", "tolerance"]
COMPARISON_COLUMNS = ["config", "method", "metric", "reference", "ours", "delta", "tolerance", "ok"]


class NumberRow(Protocol):
    """A row (``DataFrame.itertuples``) of a table of the paper's numbers: a comparison's or a check's."""

    config: str
    method: str
    metric: str


class ComparisonRow(NumberRow, Protocol):
    """A row of a comparison (:data:`COMPARISON_COLUMNS`); ``ours`` and ``delta`` are NaN where not run."""

    reference: float
    ours: float
    delta: float
    tolerance: float


# pandas-stubs types every field of an itertuples row as any scalar; these tables' columns are known.
def number_rows(frame: pd.DataFrame) -> Iterator[NumberRow]:
    """``frame.itertuples()`` of a table with the columns config, method and metric."""
    return cast(Iterator[NumberRow], frame.itertuples())


def comparison_rows(frame: pd.DataFrame) -> Iterator[ComparisonRow]:
    """``frame.itertuples()`` of a comparison (:data:`COMPARISON_COLUMNS`, and maybe more)."""
    return cast(Iterator[ComparisonRow], frame.itertuples())


def blessed_tolerance(metric: str) -> float:
    """How far a blessed number may move before ``check`` calls it a regression.

    The same code, data and seed give the same numbers; the tolerance only
    absorbs last-bit differences between machines' BLAS builds, which can flip a
    test point or two across a threshold: 0.01 of a rate (F1, AUROC, accuracy)
    is about one decision in a hundred test points; sparsity is in percent.
    """
    return 0.5 if metric.startswith("sparsity") else 0.01


def read_summary(directory: Path) -> pd.DataFrame:
    """A run's ``summary.csv``, each row named by its ``method``; a suite's rows ``<dataset> / <method>``, the name
    its blessed numbers have."""
    path = Path(directory) / "summary.csv"
    if not path.exists():
        raise KpcaBenchError(f"{path} does not exist; run the config first (kpca-bench run)")
    summary = pd.read_csv(path)
    if "dataset" not in summary:
        return summary
    return summary.assign(method=summary["dataset"] + " / " + summary["method"]).drop(columns="dataset")


def summary_metrics(directory: Path) -> pd.DataFrame:
    """A run's summary as a long table: method, metric, value (means and protocol statistics, no spreads or times)."""
    summary = read_summary(directory)
    metrics = [
        c
        for c in summary.select_dtypes("number").columns
        if c not in ("trials", "planned", "failed") and not c.endswith("_std") and "time" not in c
    ]
    return summary.melt(id_vars="method", value_vars=metrics, var_name="metric").dropna(subset=["value"])


def blessed_rows(config_path: str, directory: Path) -> pd.DataFrame:
    rows = summary_metrics(directory).assign(config=config_path)
    rows["tolerance"] = rows["metric"].map(blessed_tolerance)
    return rows[BLESSED_COLUMNS]


def load_blessed(results_root) -> pd.DataFrame:
    path = Path(results_root) / BLESSED_FILE
    return pd.read_csv(path) if path.exists() else pd.DataFrame(columns=BLESSED_COLUMNS)


def write_blessed(results_root, rows: pd.DataFrame) -> Path:
    """Replace the blessed rows of the configs in ``rows``, keep the others."""
    path = Path(results_root) / BLESSED_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = load_blessed(results_root)
    kept = kept[~kept["config"].isin(rows["config"].unique())]
    merged = pd.concat([kept, rows], ignore_index=True).sort_values(["config", "method", "metric"])
    write_atomic(path, merged.to_csv(index=False, float_format="%.6g"))
    return path


def _compare(reference: pd.DataFrame, ours: pd.DataFrame) -> pd.DataFrame:
    """Join reference rows (config, method, metric, reference, tolerance) with ours on method and metric."""
    table = reference.merge(ours.rename(columns={"value": "ours"}), on=["method", "metric"], how="left")
    table["delta"] = table["ours"] - table["reference"]
    table["ok"] = table["delta"].abs() <= table["tolerance"]
    return table[COMPARISON_COLUMNS]


def compare_with_blessed(results_root, config_path: str, directory: Path) -> pd.DataFrame:
    blessed = load_blessed(results_root)
    blessed = blessed[blessed["config"] == config_path]
    if blessed.empty:
        raise KpcaBenchError(
            f"{config_path} has no blessed numbers in {Path(results_root) / BLESSED_FILE}; "
            f"run 'python -m reproductions bless {config_path}' and review the diff"
        )
    return _compare(blessed.rename(columns={"value": "reference"}), summary_metrics(directory))


def compare_with_papers(config_path: str, config: Config, directory: Path) -> pd.DataFrame:
    if config.reference is None:
        raise KpcaBenchError(f"{config_path} names no paper numbers; add reference: {{paper: ..., dataset: ...}}")
    folder = reference_folder(config_path)
    if folder is None:
        raise KpcaBenchError(
            f"{config_path} is in no reproduction, so it has no paper numbers; a paper's config "
            "belongs in reproductions/<paper>/configs/, beside its reference/numbers.yaml"
        )
    entries = [
        e
        for e in load_references(folder)
        if e["paper"] == config.reference.paper and e["dataset"] == config.reference.dataset
    ]
    if not entries:
        raise KpcaBenchError(
            f"{folder / NUMBERS_FILE} has no entries for paper "
            f"{config.reference.paper!r}, dataset {config.reference.dataset!r} ({config_path})"
        )
    reference = pd.DataFrame(entries).rename(columns={"value": "reference"}).assign(config=config_path)
    table = _compare(reference[["config", "method", "metric", "reference", "tolerance"]], summary_metrics(directory))
    reasons = degenerate_reasons(read_summary(directory))
    constant = constant_statistics(directory)
    return table.assign(
        degenerate=[
            reasons.get(method, "") or constant.get((method, metric), "")
            for method, metric in zip(table["method"], table["metric"])
        ]
    )


def constant_statistics(directory: Path) -> dict[tuple[str, str], str]:
    """(entry, metric) -> why a sweep's table number says nothing of the method: the statistic is reached by
    constant-score cells alone (``sweep_statistics.csv``'s ``constant_only``) in more than half the trials, so the
    median over the trials the table shows is such a value; empty for a run that is no sweep."""
    from kpca_bench.report.sweep import METRICS

    path = Path(directory) / "sweep_statistics.csv"
    stats = pd.read_csv(path) if path.exists() else pd.DataFrame()
    if "constant_only" not in stats:
        return {}
    flagged = stats.assign(alone=stats["constant_only"].astype(str) == "True").groupby(["entry", "statistic"])["alone"]
    return {
        (entry, METRICS[statistic]): f"constant scores: its {statistic} comes from constant-score cells alone in "
        f"{int(count)} of {int(total)} trials"
        for (entry, statistic), count, total in zip(flagged.sum().index, flagged.sum(), flagged.size())
        if count > total / 2
    }


def degenerate_line(comparison: pd.DataFrame) -> str | None:
    """The line under a paper's numbers naming those that rest on a degenerate model, or None when none does."""
    if "degenerate" not in comparison:
        return None
    rows = comparison[comparison["degenerate"].fillna("").astype(bool) & comparison["ours"].notna()]
    if rows.empty:
        return None
    numbers = [
        f"`{Path(row.config).stem}` {row.method} {row.metric} {row.ours:.3f} ({row.degenerate})"
        for row in rows.itertuples()
    ]
    return (
        "Numbers that rest on a degenerate model (not the method's, whatever their delta): " + "; ".join(numbers) + "."
    )


def compare_run(results_root, config_path: str, config: Config, directory: Path) -> pd.DataFrame:
    """Compare a finished run with the reference of its profile: blessed numbers (quick) or papers (full)."""
    if config.profile == "quick":
        return compare_with_blessed(results_root, config_path, directory)
    return compare_with_papers(config_path, config, directory)


def format_comparison(table: pd.DataFrame) -> str:
    """A plain-text table, failures last so they are what a reader sees at the bottom of a log."""
    table = table.sort_values("ok", kind="stable", ascending=False)
    shown = table.assign(ok=table["ok"].map({True: "ok", False: "FAIL"}))
    return shown.to_string(index=False, float_format=lambda v: f"{v:.4f}", na_rep="missing")
