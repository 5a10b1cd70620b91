"""The line a single run ends with on the terminal: its methods with the highest means of the main metric, an
order that no test across methods backs (a suite ends with its verdict, :func:`kpca_bench.report.suite_verdict.verdict`).

Built from the table :func:`kpca_bench.run` returns (``Results.summary``).
"""

from __future__ import annotations

import pandas as pd

# The main metric is the first of these the summary holds; each is better when higher.
MAIN_METRICS = {"auroc": "AUROC", "accuracy": "accuracy", "auprc": "AUPRC", "f1": "F1"}
TOP = 3


def main_metric(summary: pd.DataFrame) -> str | None:
    """The metric a headline ranks by: AUROC where the run has it, else the first the protocol reports."""
    return next(
        (metric for metric in MAIN_METRICS if f"{metric}_mean" in summary and summary[f"{metric}_mean"].notna().any()),
        None,
    )


def run_headline(summary: pd.DataFrame) -> str | None:
    """``highest mean AUROC (an order, not a test): A 0.912, B 0.871, C 0.850`` (mean over finished trials); None
    without a metric."""
    metric = main_metric(summary)
    if metric is None:
        return None
    best = summary.dropna(subset=[f"{metric}_mean"]).sort_values(f"{metric}_mean", ascending=False, kind="stable")
    shown = ", ".join(f"{row['method']} {row[f'{metric}_mean']:.3f}" for _, row in best.head(TOP).iterrows())
    return f"highest mean {MAIN_METRICS[metric]} (an order, not a test): {shown}"
