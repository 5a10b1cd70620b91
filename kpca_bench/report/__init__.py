"""Tables and figures of an experiment, rebuilt from its trial records (never by re-running)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.datasets import Provenance
from kpca_bench.report import classification, components, robustness, sweep
from kpca_bench.report.plots import f1_box_plot, roc_plot, run_title, sparsity_plot
from kpca_bench.report.tables import (
    csv_text,
    f1_cut_lines,
    failure_lines,
    figure_marks,
    incomplete_note,
    run_dataset,
    run_facts,
    TRIAL_COLUMNS,
    summary_frame,
    summary_markdown,
    trials_frame,
)
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.runner import RunOutcome, first_error_kept
from kpca_bench.experiment.planning import planned_trials
from kpca_bench.experiment.store import write_atomic

# Tables and figures of a protocol's own records, written after the generic ones; each returns the summary it
# writes in place of the generic summary.csv (the protocols of PROTOCOL_SUMMARIES), or None.
PROTOCOL_REPORTS = {
    "novelty_sweep": sweep.write_sweep_report,
    "robustness": robustness.write_robustness_report,
    "classification": classification.report_classification,
    "classification_cv": classification.report_classification_cv,
    "toy_components": components.write_components_report,
}
PROTOCOL_SUMMARIES = ("novelty_sweep", "robustness", "classification", "classification_cv")
# The protocols whose own report writes trials.csv with every field of the records (report/classification.py).
EVERY_FIELD_TRIALS = ("classification", "classification_cv")


if TYPE_CHECKING:  # at run time the suite module is imported late: it imports this package
    from kpca_bench.report.suite import SuiteTables


@dataclass(frozen=True)
class Tables:
    """What a run's report shows, as DataFrames: ``trials`` (one row per cell and trial; a suite's with a
    ``dataset`` column), ``summary`` (as ``summary.csv``), and for a suite ``datasets`` (one row per dataset and
    method), ``ranks`` (average ranks, ``ranks.csv``) and ``statistics`` (the pairwise Wilcoxon–Holm tests of
    AUROC, ``wilcoxon_holm.csv``; empty when there are too few datasets) and ``verdict`` (``headline.md``'s text:
    what the tests support, first)."""

    trials: pd.DataFrame
    summary: pd.DataFrame
    datasets: pd.DataFrame | None = None
    ranks: pd.DataFrame | None = None
    statistics: pd.DataFrame | None = None
    verdict: str | None = None

    @classmethod
    def of_suite(cls, trials: pd.DataFrame, suite: SuiteTables | None) -> Tables:
        """A suite's tables: every dataset's ``trials`` and its tables across datasets (none: no finished cell)."""
        if suite is None:
            return cls(trials, pd.DataFrame())
        return cls(
            trials,
            suite.summary,
            datasets=suite.datasets,
            ranks=suite.ranks,
            statistics=suite.statistics,
            verdict=suite.verdict,
        )


def _single_setting_labels(config: Config) -> list[str]:
    return [m.label for m in config.methods if len(m.settings()) == 1]


def _sparsity_sweeps(config: Config) -> dict[str, list[str]]:
    """Entries that sweep their method's sparsity parameter, with their setting labels."""
    sweeps = {}
    for method in config.methods:
        knob = method.spec().sparsity_param
        if knob is not None and len(method.grid.get(knob, [])) > 1:
            sweeps[method.label] = [method.setting_label(s) for s in method.settings()]
    return sweeps


def method_order(config: Config) -> list[str]:
    """Every setting label of the config's entries, in config order: the order of the tables' rows."""
    return [m.setting_label(s) for m in config.methods for s in m.settings()]


def run_tables(config: Config, records: list[dict]) -> Tables:
    """The trials and the generic summary of a run's records (what :func:`write_report` writes), computed only."""
    if not records:
        return Tables(pd.DataFrame(), pd.DataFrame())
    trials = trials_frame(records, method_order(config))
    return Tables(trials, summary_frame(trials, planned_trials(config)))


def trials_text(config: Config, records: list[dict]) -> str:
    """``trials.csv`` as :func:`write_tables` writes it from a run's records: the generic columns, or every field
    where the protocol's own report writes it so (:data:`EVERY_FIELD_TRIALS`)."""
    every = config.protocol in EVERY_FIELD_TRIALS and any(r["status"] == "ok" for r in records)
    return csv_text(trials_frame(records, method_order(config), columns=None if every else TRIAL_COLUMNS))


def write_report(config: Config, records: list[dict], directory: Path, provenance: Provenance) -> Tables:
    """Write trials.csv, summary.csv, summary.md and the figures; return the trials and the summary."""
    if not records:
        return Tables(pd.DataFrame(), pd.DataFrame())
    directory = Path(directory)
    order = method_order(config)
    tables = run_tables(config, records)
    trials, summary = tables.trials, tables.summary
    threshold = config.threshold.describe()
    title = run_title(config.name, run_dataset(config).name)
    note = incomplete_note(summary)
    figure_title = title + (f"\n{note}" if note else "")
    figures = []
    marks = figure_marks(summary)
    ok = [r for r in records if r["status"] == "ok"]
    single = [label for label in _single_setting_labels(config) if any(r["method"] == label for r in ok)]
    if "box" in config.output.figures and single:
        f1_box_plot(trials, single, title=figure_title, threshold=threshold, path=directory / "f1_box.png", marks=marks)
        figures.append("f1_box.png")
    if "roc" in config.output.figures and single:
        roc = {m: np.array([r["roc_tpr"] for r in ok if r["method"] == m]) for m in single}
        stats = summary.set_index("method")
        auroc = {m: (stats.loc[m, "auroc_mean"], stats.loc[m, "auroc_std"]) for m in single}
        roc_plot(roc, auroc, title=figure_title, path=directory / "roc.png", marks=marks)
        figures.append("roc.png")
    sweeps = _sparsity_sweeps(config)
    if "sparsity" in config.output.figures and sweeps:
        stats = summary.set_index("method")
        curves = {
            entry: stats.loc[[s for s in labels if s in stats.index], ["sparsity_mean", "f1_mean"]].rename(
                columns={"sparsity_mean": "sparsity", "f1_mean": "f1"}
            )
            for entry, labels in sweeps.items()
        }
        references = {
            m: stats.loc[m, "f1_mean"]
            for m in single
            if m in stats.index and stats.loc[m].get("sparsity_mean") == 100.0
        }
        sparsity_plot(
            curves,
            references,
            title=figure_title,
            threshold=threshold,
            path=directory / "f1_vs_sparsity.png",
            trials=trials,
            marks=marks,
        )
        figures.append("f1_vs_sparsity.png")
    write_atomic(directory / "trials.csv", csv_text(trials))
    write_atomic(directory / "summary.csv", summary.to_csv(index=False))
    write_atomic(
        directory / "summary.md",
        summary_markdown(
            summary,
            title=title,
            facts=_facts(config, provenance, trials),
            figures=figures,
            failures=failure_lines(trials),
            threshold=threshold,
            f1_notes=f1_cut_lines(records, order),
        ),
    )
    return Tables(trials, summary)


def _facts(config: Config, provenance: Provenance, trials) -> list[str]:
    facts = run_facts(config, trials["versions"].iloc[0], source=provenance.source)
    if provenance.notes:
        facts.insert(1, f"data: {provenance.notes}")
    facts.insert(-1, f"F1 threshold: {config.threshold.describe()}")
    if config.threshold.is_oracle:
        facts.insert(-1, "**F1 here is an oracle figure**: its threshold was chosen with the test labels")
    return facts


def write_tables(config: Config, records: list[dict], directory: Path, provenance: Provenance) -> Tables:
    """Every table and figure of a run: the generic ones, then the protocol's own (:data:`PROTOCOL_REPORTS`);
    the trials and the summary as ``summary.csv`` holds it (a protocol's own, where it writes one)."""
    tables = write_report(config, records, directory, provenance)
    protocol_report = PROTOCOL_REPORTS.get(config.protocol)
    # A protocol's own tables summarise finished cells: with none, the generic tables list the failures.
    if protocol_report is not None and any(r["status"] == "ok" for r in records):
        summary = protocol_report(config, records, directory)
        if summary is not None:
            return Tables(tables.trials, summary)
    return tables


def write_outcome_report(config: Config, outcome: RunOutcome, html: bool = True) -> Tables:
    """Every table and figure of a finished, failed or stopped run, written from its outcome: each dataset's
    (:func:`write_tables`), then a suite's own across its datasets (:mod:`.suite`), then with ``html`` the page
    of them all (:func:`~kpca_bench.report.html.write_run_html`); the tables as DataFrames.

    If an error stopped the run, one in writing the tables is dropped (:func:`first_error_kept`)."""
    from kpca_bench.report.html import SUMMARY_FILE, write_run_html
    from kpca_bench.report.suite import write_suite_report

    per_member, suite = {}, None
    with first_error_kept(outcome.stopped_by is not None):
        for member in outcome.members:
            if member.provenance is not None:
                per_member[member.label] = write_tables(
                    member.config, member.records, member.directory, member.provenance
                )
        if outcome.is_suite and outcome.members:
            suite = write_suite_report(
                config, {m.label: m.records for m in outcome.members}, outcome.skipped, outcome.directory
            )
        if html and (outcome.directory / SUMMARY_FILE).is_file():
            write_run_html(outcome.directory, config)
    if not outcome.is_suite:
        return per_member.get(config.name, Tables(pd.DataFrame(), pd.DataFrame()))
    trials = (
        pd.concat([tables.trials.assign(dataset=label) for label, tables in per_member.items()], ignore_index=True)
        if per_member
        else pd.DataFrame()
    )
    return Tables.of_suite(trials, suite)
