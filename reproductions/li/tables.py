"""Li et al., Tables I and II side by side with ours, from the runs' ``sweep_statistics.csv``.

The runs are those of the configs of :data:`reproductions.li.REPRODUCTION` that name
Li et al. in ``reference``, in the paper's table order (Table I: the numerical
datasets, Table II: the categorical ones). For every dataset, method and
statistic: the paper's value, ours on split 0, the median and range of ours over
the splits, and their differences from the paper, flagged beyond the tolerance
of the paper's numbers (``reproductions/li/reference/numbers.yaml``).

    python -m reproductions analyse li
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reproductions.framework.reference import in_reference_order, paper_reference, reference_values, references_of
from kpca_bench.report.tables import markdown_table
from kpca_bench.report.sweep import METRICS
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory
from kpca_bench.experiment.store import write_table

COLUMNS = (
    "table",
    "dataset",
    "method",
    "statistic",
    "paper",
    "ours_split0",
    "ours_median",
    "ours_min",
    "ours_max",
    "splits",
    "tolerance",
)


def li_configs(paths: list[Path], references: list[dict]) -> list[Config]:
    """The configs among ``paths`` that name the paper's numbers (``reference``), in the paper's table order
    (:func:`~reproductions.framework.reference.in_reference_order`: Table I before Table II)."""
    return in_reference_order([load_config(path) for path in paths], references)


def comparison_row(config: Config, entry: str, statistic: str, group: pd.DataFrame, ref: dict | None) -> dict:
    """The paper's number (None: NaN) and ours on split 0 and over the splits, for one method and statistic."""
    split0 = group.loc[group["trial"] == group["trial"].min(), "auroc"].iloc[0]
    return {
        "table": ref["source"] if ref else "",
        "dataset": paper_reference(config).dataset,
        "method": entry,
        "statistic": statistic,
        "paper": ref["value"] if ref else float("nan"),
        "ours_split0": split0,
        "ours_median": group["auroc"].median(),
        "ours_min": group["auroc"].min(),
        "ours_max": group["auroc"].max(),
        "splits": group["trial"].nunique(),
        "tolerance": ref["tolerance"] if ref else float("nan"),
    }


def comparison_frame(results: Path, config_paths: list[Path]) -> pd.DataFrame:
    """One row per (dataset, method, statistic) with the paper's number and ours; configs not run are left out."""
    references = references_of(config_paths)
    rows = []
    for config in li_configs(config_paths, references):
        path = experiment_directory(config, results) / "sweep_statistics.csv"
        if not path.exists():
            continue
        reference = paper_reference(config)
        refs = reference_values(references, paper=reference.paper, dataset=reference.dataset)
        stats = pd.read_csv(path)
        for (entry, statistic), group in stats.groupby(["entry", "statistic"], sort=False):
            entry, statistic = str(entry), str(statistic)  # read as text from sweep_statistics.csv
            rows.append(comparison_row(config, entry, statistic, group, refs.get((entry, METRICS[statistic]))))
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame["delta_split0"] = frame["ours_split0"] - frame["paper"]
    frame["delta_median"] = frame["ours_median"] - frame["paper"]
    return frame


def comparison_markdown(frame: pd.DataFrame) -> str:
    """The frame as a Markdown table; † marks a difference from the paper beyond its tolerance."""
    lines = [
        *markdown_table(
            [
                "table",
                "dataset",
                "method",
                "statistic",
                "paper",
                "ours (split 0)",
                "Δ split 0",
                "ours over splits: median [min, max]",
                "Δ median",
            ]
        ),
    ]
    for _, r in frame.iterrows():
        flags = [" †" if abs(delta) > r["tolerance"] else "" for delta in (r["delta_split0"], r["delta_median"])]
        lines.append(
            f"| {r['table']} | {r['dataset']} | {r['method']} | {r['statistic']} | {r['paper']:.4f} | "
            f"{r['ours_split0']:.4f} | {r['delta_split0']:+.3f}{flags[0]} | {r['ours_median']:.3f} "
            f"[{r['ours_min']:.3f}, {r['ours_max']:.3f}] | {r['delta_median']:+.3f}{flags[1]} |"
        )
    return "\n".join(lines) + "\n"


def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
    """``li_tables.csv`` and ``li_tables.md`` in ``results_root``, from the sweep statistics of Li's runs."""
    results_root = Path(results_root)
    frame = comparison_frame(results_root, config_paths)
    header = (
        "# Li et al., Tables I-II: paper vs kpca-bench\n\n"
        "Generated by `python -m reproductions analyse li`. Statistics of the AUROC over all "
        "(kernel parameter, model parameter) settings of a split; † = split 0 differs from the paper by more "
        "than the tolerance in reproductions/li/reference/numbers.yaml (Δ split 0), or the median over the splits does "
        "(Δ median). Analysis: results/li_summary.md.\n\n"
    )
    return write_table(results_root, "li_tables", frame, header + comparison_markdown(frame))
