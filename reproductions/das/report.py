"""Das, Golatkar & Awate (2018), section V: the report pieces the generic report has no place for.

* :func:`das_box_plot` -- the F1 box plot as the paper draws it: SKPCA, KPCA and
  naive thresholding, with Wang & Tanaka's method set apart and marked, since
  the paper leaves its spread out ("very sensitive to the chosen data subset");
* :func:`write_table1` -- Table I (per-trial F1 and sparsity of SKPCA and Wang &
  Tanaka at fixed parameters) beside the paper's, from ``trials.csv``;
* :func:`threshold_table` -- F1 of the same fits under every threshold rule, from
  the records' ``f1_by_rule``: the evidence for the rule the configs use (the
  paper does not state its rule);
* :func:`write_das_report` -- ``results/das_report.md``: AUROC and sparsity,
  paper beside ours, from each run's ``summary.csv`` and
  ``reproductions/das/reference/numbers.yaml``. Only the block between the markers is
  rewritten; the prose around it (findings, causes of deviations) is kept.

The paper's numbers that ``numbers.yaml`` has no place for (Table I per trial, the
spread of SKPCA's sparsity) are read from ``das.yaml`` beside it.
Everything reads finished runs; nothing here re-runs a method::

    python -m reproductions analyse das
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.errors import ConfigError
from kpca_bench.report.plots import plt, run_title, save_figure, set_title
from kpca_bench.report.tables import degenerate_marks
from reproductions.framework.reference import (
    in_reference_order,
    paper_reference,
    read_reference_mapping,
    reference_folder,
    reference_values,
    references_of,
)
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory
from kpca_bench.experiment.runner import stored_records
from reproductions.framework.loader import trials_file
from kpca_bench.experiment.store import write_atomic

REFERENCE_FILE = "das.yaml"
METHOD_LABELS = ("SKPCA", "KPCA", "Wang-Tanaka", "Naive thresholding")
MARKED = "Wang-Tanaka"
TABLE1_COLUMNS = (("f1", "F1", 3), ("sparsity", "sparsity %", 2))
START, END = "<!-- das-report:generated:start -->", "<!-- das-report:generated:end -->"
NOT_RECORDED = "not recorded: re-run the config"
RULES = ("train_quantile", "test_prior", "test_oracle")  # the keys of a novelty record's f1_by_rule


@dataclass(frozen=True)
class PaperNumbers:
    """The paper's numbers that ``numbers.yaml`` (one mean per metric) has no place for: ``reference/das.yaml``.

    Attributes
    ----------
    sparsity_std : dataset -> standard deviation over the 10 trials of SKPCA's sparsity (%), section V's text.
    table1_dataset : the dataset Table I was measured on.
    table1_parameters : Table I's fixed parameters, as section V states them.
    table1 : method label -> ``f1`` / ``sparsity`` -> Table I's value in each trial, in the paper's row order.
    """

    sparsity_std: dict[str, float]
    table1_dataset: str
    table1_parameters: str
    table1: dict[str, dict[str, tuple[float, ...]]]


def _number(value, where: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ValueError(f"{where} must be a number, got {value!r}")
    return float(value)


def _numbers(value, where: str) -> tuple[float, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list of numbers, got {value!r}")
    return tuple(_number(v, f"{where}[{i}]") for i, v in enumerate(value))


def _keys(raw, keys: tuple[str, ...], where: str) -> dict:
    if not isinstance(raw, dict) or set(raw) != set(keys):
        found = sorted(map(str, raw)) if isinstance(raw, dict) else repr(raw)
        raise ValueError(f"{where} must have exactly the keys {', '.join(keys)}, got {found}")
    return raw


def _table1_methods(raw) -> dict[str, dict[str, tuple[float, ...]]]:
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"table1.methods must map method labels to {{f1: [...], sparsity: [...]}}, got {raw!r}")
    columns = tuple(column for column, _, _ in TABLE1_COLUMNS)
    methods = {}
    for label, values in raw.items():
        values = _keys(values, columns, f"table1.methods.{label}")
        methods[str(label)] = {
            column: _numbers(values[column], f"table1.methods.{label}.{column}") for column in columns
        }
    if len({len(values) for method in methods.values() for values in method.values()}) != 1:
        raise ValueError("table1.methods: every list must hold one value per trial (all the same length)")
    return methods


def _paper_numbers(raw: dict) -> PaperNumbers:
    """``das.yaml``'s content checked and typed; a ``ValueError`` names the first problem."""
    raw = _keys(raw, ("sparsity_std", "table1"), "the file")
    if not isinstance(raw["sparsity_std"], dict):
        raise ValueError(f"sparsity_std must map dataset names to numbers, got {raw['sparsity_std']!r}")
    table1 = _keys(raw["table1"], ("dataset", "parameters", "methods"), "table1")
    return PaperNumbers(
        sparsity_std={str(k): _number(v, f"sparsity_std.{k}") for k, v in raw["sparsity_std"].items()},
        table1_dataset=str(table1["dataset"]),
        table1_parameters=str(table1["parameters"]),
        table1=_table1_methods(table1["methods"]),
    )


def load_paper_numbers(reference_dir) -> PaperNumbers:
    """``<reference_dir>/das.yaml``; a malformed file is a one-line :class:`ConfigError` naming it."""
    path = Path(reference_dir) / REFERENCE_FILE
    try:
        return _paper_numbers(read_reference_mapping(path))
    except ValueError as error:
        raise ConfigError(f"{path}: {error}") from None


def das_configs(paths: list[Path], references: list[dict]) -> list[Config]:
    """The configs among ``paths`` that name a dataset of the paper on its own data, in the paper's order of
    datasets; a run on stand-in data (``reference.stand_in``) is not the paper's experiment."""
    configs = in_reference_order([load_config(path) for path in paths], references)
    return [config for config in configs if not config.reference.stand_in]


def das_box_plot(
    trials: pd.DataFrame, *, title: str, threshold: str, path, marks: dict[str, str] | None = None
) -> None:
    """F1 over trials: SKPCA, KPCA, naive thresholding; Wang & Tanaka hatched and marked apart (section V, Figs. 1-5);
    a method with a mark (:func:`~kpca_bench.report.tables.degenerate_marks`) is labelled with it."""
    methods = [m for m in ("SKPCA", "KPCA", "Naive thresholding", MARKED) if (trials["method"] == m).any()]
    data = [trials.loc[trials["method"] == m, "f1"].dropna().to_numpy() for m in methods]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    marks = marks or {}
    labels = [(m if m != MARKED else f"{m}*") + (f"\n({marks[m]})" if m in marks else "") for m in methods]
    boxes = ax.boxplot(data, tick_labels=labels, patch_artist=True)
    for method, box in zip(methods, boxes["boxes"]):
        box.set(facecolor="white" if method != MARKED else "0.9", hatch="" if method != MARKED else "//")
    rng = np.random.default_rng(0)
    for position, values in enumerate(data, start=1):
        ax.plot(position + rng.uniform(-0.08, 0.08, len(values)), values, "o", ms=3, alpha=0.6, color="tab:blue")
    if MARKED in methods:
        ax.axvline(len(methods) - 0.5, color="grey", linestyle=":")
        ax.set_xlabel(
            '* not in the paper\'s box plot: its parameters "are very sensitive to the chosen data subset" (section V)',
            fontsize=8,
        )
    ax.set_ylabel("F1 (outliers positive)")
    set_title(ax, f"{title}: F1 over {max(len(d) for d in data)} trials\nthreshold: {threshold}")
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


def _mean_std(values) -> str:
    values = pd.Series(values, dtype=float)
    return "–" if values.empty else f"{values.mean():.3f} ± {_fmt(values.std())}"


def table1_lines(trials: pd.DataFrame, paper: PaperNumbers) -> list[str]:
    """Table I (section V) as Markdown: per trial, the paper's F1 and sparsity beside the run's, then mean ± std."""
    ok = trials[trials["status"] == "ok"]
    ours = {method: ok[ok["method"] == method].set_index("trial") for method in paper.table1}
    reasons = degenerate_flags(ok)
    flags = {method: reasons[(ok["method"] == method) & (reasons != "")] for method in paper.table1}
    header = " | ".join(
        f"{method} {name} paper | "
        + marked("ours", flags[method].str.split(":").str[0].iloc[0] if len(flags[method]) else None)
        for method in paper.table1
        for _, name, _ in TABLE1_COLUMNS
    )
    lines = [
        f"# Table I: {paper.table1_dataset}, fixed parameters, paper vs ours",
        "",
        f"{paper.table1_parameters}. Sparsity = % non-zero dual coefficients per component. Our trial t is "
        "the run's split t (the paper's splits are unknown, so rows pair trials by number only). "
        f"F1 threshold: {trials['threshold_rule'].iloc[0]}.",
        "",
        f"| trial | {header} |",
        "|" + "---|" * (1 + 2 * len(paper.table1) * len(TABLE1_COLUMNS)),
    ]
    n_trials = len(next(iter(next(iter(paper.table1.values())).values())))
    for trial in range(n_trials):
        cells = []
        for method, columns in paper.table1.items():
            for column, _, digits in TABLE1_COLUMNS:
                mine = ours[method].loc[trial, column] if trial in ours[method].index else None
                cells.append(
                    f"{columns[column][trial]:.{digits}f} | " + ("–" if mine is None else f"{mine:.{digits}f}")
                )
        lines.append(f"| {trial + 1} | " + " | ".join(cells) + " |")
    stats = [
        f"{_mean_std(columns[column])} | {_mean_std(ours[method][column].to_numpy())}"
        for method, columns in paper.table1.items()
        for column, _, _ in TABLE1_COLUMNS
    ]
    lines.append("| mean ± std | " + " | ".join(stats) + " |")
    return lines + [
        f"\n{method}, {len(flag)} of {len(ours[method])} trials: {flag.iloc[0]}; its numbers are not the method's."
        for method, flag in flags.items()
        if len(flag)
    ]


def write_table1(directory, paper: PaperNumbers) -> Path:
    """``table1.md`` in the run's folder (the run of Table I's dataset): :func:`table1_lines` of its ``trials.csv``."""
    path = Path(directory) / "table1.md"
    write_atomic(path, "\n".join(table1_lines(pd.read_csv(trials_file(directory)), paper)) + "\n")
    return path


def marked(text: str, mark: str | None) -> str:
    """``text`` with a degenerate model's mark in brackets, or as it is."""
    return f"{text} ({mark})" if mark else text


def degenerate_flags(trials: pd.DataFrame) -> pd.Series:
    """The ``degenerate`` flag of each row of ``trials`` ("" for none, and for every row of a table without it)."""
    return trials["degenerate"].fillna("").astype(str) if "degenerate" in trials else pd.Series("", trials.index)


def _summary(directory: Path) -> pd.DataFrame | None:
    path = directory / "summary.csv"
    return pd.read_csv(path).set_index("method") if path.exists() else None


def _fmt(value, digits=3) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:.{digits}f}"


def report_tables(results, configs: list[Config], paper: PaperNumbers) -> str:
    """AUROC and SKPCA-sparsity tables, paper beside ours, for every Das config (section V, Markdown)."""
    results = Path(results)
    entries = references_of(config.source for config in configs)
    auroc = [
        "| dataset | " + " | ".join(f"{m} paper | ours" for m in METHOD_LABELS) + " | ours: order |",
        "|" + "---|" * (2 * len(METHOD_LABELS) + 2),
    ]
    sparsity = [
        "| dataset | trials | SKPCA sparsity % paper | ours (mean ± std) | naive ours | Wang-Tanaka ours | "
        "SKPCA F1 ours | KPCA F1 ours |",
        "|" + "---|" * 8,
    ]
    for config in configs:
        reference = paper_reference(config)
        dataset = reference.dataset
        refs = reference_values(entries, paper=reference.paper, dataset=dataset)
        summary = _summary(experiment_directory(config, results))

        def ours(method, column):
            return summary.loc[method, column] if summary is not None and method in summary.index else None

        marks = {} if summary is None else degenerate_marks(summary.reset_index())

        cells = []
        for method in METHOD_LABELS:
            ref = refs.get((method, "auroc_mean"))
            cells.append(
                f"{_fmt(ref['value'] if ref else None)} | "
                + marked(_fmt(ours(method, "auroc_mean")), marks.get(method))
            )
        order = (
            "not run"
            if summary is None
            else " > ".join(
                marked(m, marks.get(m)) for m in sorted(METHOD_LABELS, key=lambda m: -(ours(m, "auroc_mean") or 0.0))
            )
        )
        auroc.append(f"| {dataset} | " + " | ".join(cells) + f" | {order} |")
        ref = refs.get(("SKPCA", "sparsity_mean"))
        std = paper.sparsity_std.get(dataset)
        published = "–" if ref is None else f"{ref['value']:.2f}" + ("" if std is None else f" ± {std:.2f}")
        mine = (
            "not run"
            if ours("SKPCA", "sparsity_mean") is None
            else f"{ours('SKPCA', 'sparsity_mean'):.2f} ± {ours('SKPCA', 'sparsity_std'):.2f}"
        )
        trials = ours("SKPCA", "trials")
        sparsity.append(
            f"| {dataset} | {'–' if trials is None else int(trials)} | {published} | {mine} | "
            f"{_fmt(ours('Naive thresholding', 'sparsity_mean'), 2)} | "
            f"{marked(_fmt(ours(MARKED, 'sparsity_mean'), 2), marks.get(MARKED))} | "
            f"{_fmt(ours('SKPCA', 'f1_mean'))} | "
            f"{_fmt(ours('KPCA', 'f1_mean'))} |"
        )
    return "\n".join(
        [
            "## AUROC, mean over trials: paper vs ours",
            "",
            *auroc,
            "",
            "## Sparsity (% non-zero dual coefficients per component), mean ± std over trials",
            "",
            *sparsity,
            "",
        ]
    )


def rule_f1(records) -> pd.DataFrame:
    """One row per finished record of a main method (:data:`METHOD_LABELS`) that carries ``f1_by_rule``:
    its method, trial and F1 under each rule."""
    return pd.DataFrame(
        [
            {"method": r["entry"], "trial": r["trial"], **r["f1_by_rule"]}
            for r in records
            if r.get("status") == "ok" and r.get("entry") in METHOD_LABELS and "f1_by_rule" in r
        ]
    )


def threshold_table(results, configs: list[Config]) -> str:
    """Mean F1 per threshold rule over the trials of every Das run, from its records' ``f1_by_rule``.

    The paper does not state its threshold rule (section V); the records hold the F1 of each fit under every
    rule that needs no given value, ``train_quantile`` at the config's quantile; only the records of cells the
    config plans count (a store may hold others, of entries since changed). A run none of whose records
    carries ``f1_by_rule`` (stored before it was recorded) gets a row saying so, as does a run with no records.
    """
    records = {config.name: stored_records(config, experiment_directory(config, results)) for config in configs}
    lines = [
        "## F1 under each threshold rule (same fits, mean over trials)",
        "",
        "| dataset | method | trials | quantile | " + " | ".join(RULES) + " |",
        "|" + "---|" * (4 + len(RULES)),
    ]
    for config in configs:
        frame, dataset, blank = rule_f1(records[config.name]), paper_reference(config).dataset, " |" * len(RULES)
        if frame.empty:
            lines.append(f"| {dataset} | {NOT_RECORDED if records[config.name] else 'not run'} | | |{blank}")
            continue
        means = frame.groupby("method").agg(["mean", "count"])
        summary = _summary(experiment_directory(config, results))
        marks = {} if summary is None else degenerate_marks(summary.reset_index())
        for method in (m for m in METHOD_LABELS if m in means.index):
            row = means.loc[method]
            lines.append(
                f"| {dataset} | {marked(method, marks.get(method))} | {int(row[(RULES[0], 'count')])} | "
                f"{config.threshold.quantile:g} | " + " | ".join(_fmt(row[(rule, "mean")]) for rule in RULES) + " |"
            )
    return "\n".join(lines) + "\n"


def write_das_report(results, configs: list[Config], paper: PaperNumbers, path=None) -> Path:
    """Rewrite the generated block of ``results/das_report.md``, keeping the prose outside it."""
    results = Path(results)
    path = Path(path) if path else results / "das_report.md"
    block = f"{START}\n{report_tables(results, configs, paper)}\n{threshold_table(results, configs)}{END}"
    text = (
        path.read_text()
        if path.exists()
        else f"# Das, Golatkar & Awate (2018): reproduction report\n\n{START}\n{END}\n"
    )
    text = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    write_atomic(path, text)
    return path


def finish_run(config: Config, directory: Path, paper: PaperNumbers) -> list[Path]:
    """Das figures and tables of one finished run: the marked box plot, and Table I for Table I's dataset."""
    trials = pd.read_csv(trials_file(directory))
    written = [directory / "f1_box_das.png"]
    assert config.dataset is not None  # a paper's config names one dataset
    das_box_plot(
        trials[trials["status"] == "ok"],
        title=run_title(config.name, config.dataset.name),
        threshold=config.threshold.describe(),
        path=written[0],
        marks=degenerate_marks(pd.read_csv(directory / "summary.csv")),
    )
    if paper_reference(config).dataset == paper.table1_dataset:
        written.append(write_table1(directory, paper))
    return written


def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
    """The marked box plots, Table I and ``das_report.md`` from the finished Das runs."""
    results = Path(results_root)
    configs = das_configs(config_paths, references_of(config_paths))
    paper = load_paper_numbers(reference_folder(config_paths[0]))
    written = []
    for config in configs:
        directory = experiment_directory(config, results)
        if trials_file(directory).exists():
            written += finish_run(config, directory, paper)
    return [*written, write_das_report(results, configs, paper)]
