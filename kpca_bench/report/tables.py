"""Tables rebuilt from trial records alone: the tidy trials table and the per-method summary."""

from __future__ import annotations

import pandas as pd

from kpca_bench.datasets.labels import CONVENTION
from kpca_bench.protocols import PROTOCOLS

# Columns of trials.csv, in order; parameters follow as param_<name>.
TRIAL_COLUMNS = [
    "experiment", "profile", "method", "entry", "method_name", "score", "trial", "status", "f1", "precision", "recall",
    "auroc", "sparsity", "threshold_rule", "threshold", "n_train", "n_test_inliers", "n_test_outliers",
    "gamma", "n_iter", "fit_time", "score_time", "wall_time", "peak_memory_mb", "max_memory_mb", "split_seed",
    "random_state", "dataset", "data_fingerprint", "config_hash", "key", "versions",
]
SUMMARY_METRICS = {"f1": ("F1", 3), "auroc": ("AUROC", 3), "sparsity": ("sparsity (% non-zero)", 2),
                   "fit_time": ("fit time (s)", 2)}


def trials_frame(records: list[dict], method_order: list[str], columns: list[str] | None = TRIAL_COLUMNS) -> pd.DataFrame:
    """One row per trial x method setting, sorted by method (config order) and trial.

    ``columns`` picks and orders the record fields (parameters follow as ``param_<name>``);
    None keeps every scalar field in record order.
    """
    rows = []
    for record in records:
        # Per-trial curves (ROC points, sweeps) and mappings stay in records.jsonl; the table holds scalars.
        row = {k: v for k, v in record.items() if k not in ("params", "versions") and not isinstance(v, (list, dict))}
        row["versions"] = record.get("versions")
        row.update({f"param_{k}": v for k, v in record["params"].items()})
        rows.append(row)
    frame = pd.DataFrame(rows)
    if columns is not None:
        frame = frame[[c for c in columns if c in frame] + sorted(c for c in frame if c.startswith("param_"))]
    frame["method"] = pd.Categorical(frame["method"], categories=method_order, ordered=True)
    return frame.sort_values(["method", "trial"]).reset_index(drop=True)


def summary_frame(trials: pd.DataFrame, metrics=SUMMARY_METRICS) -> pd.DataFrame:
    """Mean and standard deviation over trials of each metric present, per method setting."""
    ok = trials[trials["status"] == "ok"]
    metrics = [m for m in metrics if m in ok]
    grouped = ok.groupby("method", observed=True)[metrics]
    summary = grouped.agg(["mean", "std"])
    summary.columns = [f"{metric}_{stat}" for metric, stat in summary.columns]
    summary.insert(0, "trials", grouped.size())
    return summary.reset_index()


def _mean_std(mean, std, digits: int) -> str:
    if pd.isna(mean):
        return "–"
    return f"{mean:.{digits}f} ± {0.0 if pd.isna(std) else std:.{digits}f}"


def summary_table_markdown(summary: pd.DataFrame) -> str:
    """Mean ± std per method as a Markdown table, one column per metric present."""
    metrics = [m for m in SUMMARY_METRICS if f"{m}_mean" in summary]
    header = ["method", "trials", *(SUMMARY_METRICS[m][0] for m in metrics)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, row in summary.iterrows():
        cells = [str(row["method"]), str(row["trials"]),
                 *(_mean_std(row[f"{m}_mean"], row[f"{m}_std"], SUMMARY_METRICS[m][1]) for m in metrics)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def summary_markdown(summary: pd.DataFrame, *, title: str, facts: list[str], figures: list[str]) -> str:
    """The summary as a Markdown page: facts about the run, the table, the figures."""
    lines = [f"# {title}", "", *[f"- {fact}" for fact in facts], "", "Mean ± standard deviation over trials.", "",
             summary_table_markdown(summary)]
    lines += [f"![{name}]({name})" for name in figures]
    return "\n".join(lines) + "\n"


def run_facts(config, versions: dict, *, source: str | None = None) -> list[str]:
    """The summary page's facts about a run: data, protocol, paper, config hash and versions."""
    d = config.dataset
    data = f"dataset: `{d.name}`" + (f" ({source})" if source else "")
    if d.inliers or d.outliers:
        data += f"; inlier classes {list(d.inliers)}, outlier classes {list(d.outliers)}"
    if d.default_classes:
        data += f" ({CONVENTION})"
    scaling = f"; scaling: {d.scaling}" + (" (fitted on the training rows)" if d.scaling != "none" else "")
    protocol = PROTOCOLS[config.protocol]
    facts = [data + scaling,
             f"protocol: {config.protocol}: {protocol.describe(d, config.options)}, drawn anew in each of "
             f"{config.trials} trials (seed {config.seed})"]
    if config.reference is not None:
        facts.append(f"paper: {config.reference.paper}, {config.reference.dataset}")
    facts.append(f"config hash `{config.config_hash()}`; versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    return facts
