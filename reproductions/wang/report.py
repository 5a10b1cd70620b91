"""``results/wang_report.md``: Wang & Tanaka's Tables 3-5 (section 4.2) beside our runs, the sparsity definition,
the grid checks, time per cell.

Reads only what the full runs left on disk (``results/wang_<dataset>/summary.csv`` and ``trials.csv``), the grid
checks' ``results/wang_gridcheck_<dataset>/trials.csv`` (the same splits searched over wider grids,
:func:`grid_check_config`), the paper's numbers in ``reproductions/wang/reference/numbers.yaml`` and our written analysis of
the runs in ``reproductions/wang/reference/wang.yaml``::

    python -m reproductions analyse wang          # after kpca-bench run reproductions/wang/configs/wang_*.yaml
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.report.tables import markdown_table
from kpca_bench.errors import ConfigError
from reproductions.framework.reference import (
    paper_reference,
    read_reference_mapping,
    reference_folder,
    reference_values,
    references_of,
)
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory
from kpca_bench.experiment.store import write_atomic
from reproductions.framework.loader import trials_file

TABLE_PROTOCOL = "classification_cv"
ANALYSIS_FILE = "wang.yaml"
ANALYSIS_BLOCKS = ("sparsity_finding", "grid_check_intro", "grid_check_finding", "deviations")
NOT_RECORDED = "not recorded: re-run the config"
COLUMNS = ("accuracy", "precision", "recall", "f1", "sparsity")
SPARSITY = {"SVM": "sv_sparsity"}  # the paper's sparsity column per row; the kernel-PCA rows: sample_sparsity
SEARCHED = (
    "best__features__gamma",
    "best__leading__n_components",
    "best__features__n_components",
    "best__classifier__C",
    "best__classifier__gamma",
)
SHORT = {
    "best__features__gamma": "gamma_kpca",
    "best__leading__n_components": "PCs",
    "best__features__n_components": "PCs",
    "best__classifier__C": "C",
    "best__classifier__gamma": "gamma_svm",
}


def load_analysis_text(reference_dir) -> dict[str, str]:
    """The named text blocks of ``<reference_dir>/wang.yaml`` (:data:`ANALYSIS_BLOCKS`), our written
    analysis of the committed runs; a malformed file is a one-line :class:`ConfigError` naming it."""
    path = Path(reference_dir) / ANALYSIS_FILE
    raw = read_reference_mapping(path)
    if set(raw) != set(ANALYSIS_BLOCKS) or not all(isinstance(text, str) for text in raw.values()):
        raise ConfigError(
            f"{path}: must hold exactly the text blocks {', '.join(ANALYSIS_BLOCKS)}, "
            f"got {', '.join(f'{k} ({type(v).__name__})' for k, v in raw.items()) or 'none'}"
        )
    return {name: raw[name].strip() for name in ANALYSIS_BLOCKS}


def table_configs(paths: list[Path]) -> list[Path]:
    """The configs of Tables 3-5 among ``paths``: those with the ``classification_cv`` protocol and a
    ``reference`` (the grid checks have none), in their order."""
    return [
        path
        for path in paths
        if (config := load_config(path)).protocol == TABLE_PROTOCOL and config.reference is not None
    ]


def _metric(method: str, column: str) -> str:
    return SPARSITY.get(method, "sample_sparsity") if column == "sparsity" else column


def paper_table(config, summary: pd.DataFrame, references: dict) -> list[str]:
    """Markdown rows: per method, paper vs ours (mean ± std) for the five columns of the paper's table."""
    lines = ["| method | " + " | ".join(f"{c}: paper / ours" for c in COLUMNS) + " |", "|---|" + "---|" * len(COLUMNS)]
    for _, row in summary.iterrows():
        cells = []
        for column in COLUMNS:
            metric = _metric(row["method"], column)
            ref = references.get((row["method"], f"{metric}_mean"))
            ours = f"{row[f'{metric}_mean']:.4f} ± {0 if pd.isna(row[f'{metric}_std']) else row[f'{metric}_std']:.4f}"
            if ref is None:
                cells.append(f"– / {ours}")
                continue
            holds = abs(row[f"{metric}_mean"] - ref["value"]) <= ref["tolerance"]
            cells.append(f"{ref['value']:.4f} / {ours}" + ("" if holds else " **(off)**"))
        lines.append(f"| {row['method']} | " + " | ".join(cells) + " |")
    return lines


def sparsity_rows(summary: pd.DataFrame, references: dict) -> list[str]:
    """Both candidate definitions for every kernel-PCA row next to the paper's sparsity."""
    lines = []
    for _, row in summary.iterrows():
        ref = references.get((row["method"], f"{_metric(row['method'], 'sparsity')}_mean"))
        paper = "–" if ref is None else f"{ref['value']:.4f}"
        lines.append(
            f"| {row['method']} | {paper} | "
            f"{row['sample_sparsity_mean']:.4f} | {row['coef_sparsity_mean']:.4f} | "
            f"{row['sv_sparsity_mean']:.4f} |"
        )
    return lines


def other_class_scores(trials: pd.DataFrame) -> pd.DataFrame | None:
    """Precision, recall and F1 with the *other* class positive, per method (mean over repeats); ``None`` when the
    trials lack their test class counts ``n_test`` / ``n_test_positive`` (stored before they were recorded).

    Derived from each trial's accuracy and recall and its test class counts: with ``n_pos`` positives among
    ``n``, ``TP = recall n_pos``, ``TN = accuracy n - TP``, ``FN = n_pos - TP``; the other class's precision is
    ``TN / (TN + FN)`` and its recall ``TN / (n - n_pos)``.
    """
    counts = [column for column in ("n_test", "n_test_positive") if column in trials]
    if len(counts) < 2 or trials[counts].isna().any(axis=None):
        return None
    n, n_pos = trials["n_test"], trials["n_test_positive"]
    tp = trials["recall"] * n_pos
    tn, fn = trials["accuracy"] * n - tp, n_pos - tp
    precision, recall = tn / (tn + fn), tn / (n - n_pos)
    scores = pd.DataFrame(
        {
            "method": trials["method"],
            "precision": precision,
            "recall": recall,
            "f1": 2 * precision * recall / (precision + recall),
        }
    )
    return scores.groupby("method", observed=True, sort=False).mean()


def other_class_lines(trials: pd.DataFrame) -> list[str]:
    """Markdown list of :func:`other_class_scores`, or the note that the records lack the class counts."""
    scores = other_class_scores(trials)
    if scores is None:
        return [f"{NOT_RECORDED} (its records have no n_test_positive)"]
    return [f"- {m}: {r['precision']:.4f} / {r['recall']:.4f} / {r['f1']:.4f}" for m, r in scores.iterrows()]


def chosen_points(trials: pd.DataFrame) -> list[str]:
    """How often each candidate was chosen, per method and searched parameter."""
    lines = []
    for method, group in trials.groupby("method", observed=True, sort=False):
        parts = []
        for column in SEARCHED:
            if column in group and group[column].notna().any():
                counts = group[column].value_counts().sort_index()
                parts.append(
                    column.removeprefix("best__")
                    + " "
                    + ", ".join(f"{value:g}×{count}" for value, count in counts.items())
                )
        lines.append(f"- {method}: " + "; ".join(parts))
    return lines


def grid_check_config(path) -> Path:
    """The grid check of a config, ``wang_gridcheck_<dataset>.yaml`` beside it: its splits over wider grids."""
    path = Path(path)
    return path.with_name(path.name.replace("wang_", "wang_gridcheck_", 1))


def paired_trials(reduced: pd.DataFrame, widened: pd.DataFrame) -> pd.DataFrame:
    """The trials of every method run on both grids, one row per (method, trial), columns suffixed
    ``_reduced`` / ``_widened``. Raises if a pair was not searched on the same split."""
    merged = reduced.merge(widened, on=["method", "trial"], suffixes=("_reduced", "_widened"))
    differ = merged["split_seed_reduced"] != merged["split_seed_widened"]
    if differ.any():
        bad = ", ".join(f"{r.method} trial {r.trial}" for r in merged[differ].itertuples())
        raise ValueError(f"reduced and widened runs used different splits: {bad}")
    return merged


def _value(value) -> str:
    return f"{value:g}"


def moved_parameters(group: pd.DataFrame) -> tuple[int, str]:
    """How many trials chose a different point on the widened grid, and per parameter the moves (reduced→widened×n)."""
    differs = np.zeros(len(group), dtype=bool)
    parts = []
    for column in SEARCHED:
        before, after = f"{column}_reduced", f"{column}_widened"
        if before not in group or not group[before].notna().any():
            continue
        moved = ~np.isclose(group[before].to_numpy(float), group[after].to_numpy(float))
        differs |= moved
        if moved.any():
            moves = Counter(zip(group.loc[moved, before], group.loc[moved, after]))
            parts.append(
                f"{SHORT[column]} " + ", ".join(f"{_value(a)}→{_value(b)}×{n}" for (a, b), n in sorted(moves.items()))
            )
    return int(differs.sum()), "; ".join(parts) or "–"


def grid_check(reduced: pd.DataFrame, widened: pd.DataFrame, references: dict) -> pd.DataFrame:
    """Per method run on both grids, over the trials both ran: test and CV accuracy on the reduced and the
    widened grid, the paired difference, how often the chosen point differs and which parameters moved,
    and whether the paper's accuracy is within tolerance on each grid (``references`` as for
    :func:`paper_table`)."""
    rows = []
    for method, group in paired_trials(reduced, widened).groupby("method", observed=True, sort=False):
        delta = group["accuracy_widened"] - group["accuracy_reduced"]
        differs, moved = moved_parameters(group)
        ref = references.get((method, "accuracy_mean"))
        row = {
            "method": method,
            "trials": len(group),
            "reduced": group["accuracy_reduced"].mean(),
            "widened": group["accuracy_widened"].mean(),
            "delta": delta.mean(),
            "delta_min": delta.min(),
            "delta_max": delta.max(),
            "cv_reduced": group["cv_accuracy_reduced"].mean(),
            "cv_widened": group["cv_accuracy_widened"].mean(),
            "differs": differs,
            "moved": moved,
            "paper": np.nan if ref is None else ref["value"],
            "tolerance": np.nan if ref is None else ref["tolerance"],
        }
        for grid in ("reduced", "widened"):
            row[f"holds_{grid}"] = None if ref is None else bool(abs(row[grid] - ref["value"]) <= ref["tolerance"])
        rows.append(row)
    return pd.DataFrame(rows)


def _holds(value) -> str:
    return "–" if value is None else ("yes" if value else "**no**")


def grid_check_rows(dataset: str, table: pd.DataFrame) -> list[str]:
    """Markdown rows of :func:`grid_check`'s table."""
    return [
        f"| {dataset} | {r.method} | {r.trials} | {r.reduced:.4f} | {r.widened:.4f} | {r.delta:+.4f} "
        f"[{r.delta_min:+.4f}, {r.delta_max:+.4f}] | {r.cv_reduced:.4f} / {r.cv_widened:.4f} | "
        f"{r.differs} of {r.trials} | {r.moved} | "
        # pandas-stubs types an itertuples field as any scalar (Period, Interval, bytes...), wider than its own
        # pd.isna accepts; "paper" holds floats (NaN where the paper has none)
        + ("–" if pd.isna(r.paper) else f"{r.paper:.4f} ± {r.tolerance:g}")  # type: ignore[arg-type, str-bytes-safe]
        + f" | {_holds(r.holds_reduced)} / {_holds(r.holds_widened)} |"
        for r in table.itertuples()
    ]


def other_columns_rows(dataset: str, reduced: pd.DataFrame, widened: pd.DataFrame, references: dict) -> list[str]:
    """The paper's other columns (precision, recall, F1, sparsity): reduced / widened mean over the paired trials,
    **(off)** where outside the paper's tolerance."""
    lines = []
    for method, group in paired_trials(reduced, widened).groupby("method", observed=True, sort=False):
        cells = []
        for column in COLUMNS[1:]:
            metric = _metric(str(method), column)  # a method's label
            ref = references.get((method, f"{metric}_mean"))
            values = []
            for grid in ("reduced", "widened"):
                mean = group[f"{metric}_{grid}"].mean()
                off = ref is not None and abs(mean - ref["value"]) > ref["tolerance"]
                values.append(f"{mean:.4f}" + (" **(off)**" if off else ""))
            cells.append(("–" if ref is None else f"{ref['value']:.4f}") + " / " + " / ".join(values))
        lines.append(f"| {dataset} | {method} | " + " | ".join(cells) + " |")
    return lines


def dataset_section(config: Config, summary: pd.DataFrame, trials: pd.DataFrame, references: dict) -> list[str]:
    """One of Tables 3-5 (section 4.2): paper beside ours, the chosen hyper-parameters, the other-class scores."""
    source = next(iter(references.values()))["source"] if references else "no table"
    assert config.dataset is not None  # a Wang config names one dataset
    return [
        f"## {source}: {paper_reference(config).dataset} (`{config.dataset.name}`, {int(summary['trials'].max())} "
        f"repeats, {config.options.train_size} training rows)",
        "",
        *paper_table(config, summary, references),
        "",
        "Chosen hyper-parameters (value×repeats):",
        "",
        *chosen_points(trials),
        "",
        "Precision / recall / F1 with the other class positive (derived):",
        "",
        *other_class_lines(trials),
        "",
    ]


def build_report(results_root, configs: list[Path], analysis: dict[str, str]) -> str:
    """``wang_report.md``: Tables 3-5 of the configs, the sparsity definitions, time per cell and the grid checks,
    with our written ``analysis`` (:func:`load_analysis_text`) between them."""
    results_root = Path(results_root)
    entries = references_of(configs)
    out = [
        "# Wang & Tanaka (2019), section 4.2: SVM on sparse kernel principal components",
        "",
        "Generated by `python -m reproductions analyse wang` from the full runs of "
        + ", ".join(f"`reproductions/wang/configs/{Path(c).name}`" for c in configs)
        + ", their grid checks "
        "(`reproductions/wang/configs/wang_gridcheck_*.yaml`), `reproductions/wang/reference/numbers.yaml` and our written analysis in "
        "`reproductions/wang/reference/wang.yaml`. "
        "Each cell: the paper's mean / ours (mean ± std over our repeats); **(off)** = outside the "
        "tolerance of numbers.yaml (2 x the paper's std / sqrt(10), floor 0.02).",
        "",
    ]
    sparsity, timing, checks, others = [], [], [], []
    for path in configs:
        config = load_config(path)
        reference = paper_reference(config)
        directory = experiment_directory(config, results_root)
        if not (directory / "summary.csv").exists():
            out += [f"## {reference.dataset}", "", f"not run: no {directory}/summary.csv", ""]
            continue
        summary = pd.read_csv(directory / "summary.csv")
        trials = pd.read_csv(trials_file(directory))
        trials["method"] = pd.Categorical(trials["method"], categories=list(summary["method"]), ordered=True)
        references = reference_values(entries, paper=reference.paper, dataset=reference.dataset)
        out += dataset_section(config, summary, trials, references)
        sparsity += [f"| **{reference.dataset}** | | | | |", *sparsity_rows(summary, references)]
        per_method = trials.groupby("method", observed=True)["wall_time"].agg(["median", "sum"])
        timing += [
            f"| {reference.dataset} | {m} | {r['median']:.1f} | {r['sum'] / 60:.1f} |" for m, r in per_method.iterrows()
        ]
        check = trials_file(experiment_directory(load_config(grid_check_config(path)), results_root))
        if not check.exists():
            checks.append(f"| {reference.dataset} | not run: no {check} | | | | | | | | | |")
            continue
        widened = pd.read_csv(check)
        widened = widened[widened["status"] == "ok"]
        checks += grid_check_rows(reference.dataset, grid_check(trials, widened, references))
        others += other_columns_rows(reference.dataset, trials, widened, references)
    out += [
        '## What the paper\'s "sparsity" is',
        "",
        "Candidates, each a share of the training rows: *unused samples* (all-zero rows of the dual "
        "coefficients of the chosen leading PCs), *zero coefficients* (share of zero entries), and for the "
        "SVM *non-SV samples* (training rows that are not support vectors).",
        "",
        *markdown_table(["method", "paper sparsity", "unused samples", "zero coefficients", "non-SV samples"]),
        *sparsity,
        "",
        analysis["sparsity_finding"],
        "",
        "## Time per cell (one repeat of one method: the whole CV search, refit and test)",
        "",
        "Wall seconds, from the records' `wall_time`.",
        "",
        *markdown_table(["dataset", "method", "median per repeat (s)", "total (min)"]),
        *timing,
        "",
        "## Do the reduced grids change the result?",
        "",
        analysis["grid_check_intro"],
        "",
        *markdown_table(
            [
                "dataset",
                "method",
                "trials",
                "accuracy reduced",
                "accuracy widened",
                "delta [min, max]",
                "CV accuracy reduced / widened",
                "chosen point differs",
                "parameters moved (reduced→widened×trials)",
                "paper ± tolerance",
                "within tolerance: reduced / widened",
            ]
        ),
        *checks,
        "",
        "The paper's other columns over the same trials (paper / reduced / widened):",
        "",
        "| dataset | method | " + " | ".join(COLUMNS[1:]) + " |",
        "|---|---|" + "---|" * (len(COLUMNS) - 1),
        *others,
        "",
        analysis["grid_check_finding"],
        "",
        "## Deviations and their causes",
        "",
        analysis["deviations"],
    ]
    return "\n".join(out)


def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
    """``<results_root>/wang_report.md`` from the runs of :func:`table_configs` and their grid checks."""
    path = Path(results_root) / "wang_report.md"
    text = build_report(
        results_root, table_configs(config_paths), load_analysis_text(reference_folder(config_paths[0]))
    )
    write_atomic(path, text + "\n")
    return [path]
