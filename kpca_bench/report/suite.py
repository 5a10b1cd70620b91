"""A suite's own tables and figures, from its datasets' records (one sub-folder each).

Written to the suite's folder, beside the per-dataset sub-folders:

* ``datasets.csv``: per dataset and method, trials done / planned / failed, mean and sd of
  AUROC, AUPRC and F1 over the trials, the dataset's rows, features and scaling, the mean
  training and test rows;
* ``ranks.csv``: per method, its average rank over the datasets (AUROC and AUPRC) and its mean
  score, each with a t interval (95 %) over the datasets; ``wilcoxon_holm.csv`` (AUROC),
  ``wilcoxon_holm_auprc.csv``: every pair of methods; ``posthoc_p_auroc.csv``, ``posthoc_p_auprc.csv``: the
  config's post-hoc p-values, methods x methods; ``win_tie_loss.csv``: each kernel-PCA variant against each
  other detector;
* ``summary.csv``: one row per dataset and method, in columns of their own (the numbers a blessed check compares);
* ``cd_auroc.png``, ``cd_auprc.png`` (critical-difference diagrams, their bars the runs of methods in rank order
  the config's post-hoc test does not separate) beside ``cd_groups_auroc.csv``, ``cd_groups_auprc.csv`` (those
  groups);
  ``rank_heatmap_auroc.png``, ``rank_heatmap_auprc.png``; ``auroc_box.png``;
* ``summary.md``: what the tests support (:func:`verdict`, first), what was run and skipped, the statistics,
  the per-dataset tables, the figures; ``headline.md``: the verdict and where the kernel-PCA variants stand;
* ``adbench_comparison.csv`` (ADBench's protocol): our detectors beside ADBench's shipped results
  (:mod:`.adbench_reference`), also in ``summary.md``.

The statistics (:mod:`.statistics`) use the datasets on which every method has finished at
least one trial; the others are named. Each dataset's score is its mean over the trials.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypedDict
from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.datasets import DATASETS
from kpca_bench.datasets.locate import data_dirs
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.report import adbench_reference, statistics
from kpca_bench.report.statistics import ALPHA, Friedman
from kpca_bench.report.suite_figures import box_plot, cd_diagram, rank_heatmap
from kpca_bench.report.tables import (
    markdown_row,
    markdown_table,
    mean_std,
    method_lines,
    not_converged_lines,
    run_dataset,
    stopped_fits,
    suite_marks,
)
from kpca_bench.experiment.config import Config
from kpca_bench.report.suite_verdict import (
    METRICS,
    POSTHOC_NAMES,
    headline,
    holm_reach,
    kernel_variants,
    standing,
    statistics_lines,
    verdict,
)
from kpca_bench.experiment.planning import planned_trials
from kpca_bench.experiment.store import write_atomic

TIE = 0.005
FIGURES = {
    "cd_auroc.png": "critical-difference diagram, AUROC",
    "cd_auprc.png": "critical-difference diagram, AUPRC",
    "rank_heatmap_auroc.png": "AUROC rank of each method on each dataset",
    "rank_heatmap_auprc.png": "AUPRC rank of each method on each dataset",
    "auroc_box.png": "AUROC per method across datasets",
}
WILCOXON_FILES = {"auroc": "wilcoxon_holm.csv", "auprc": "wilcoxon_holm_auprc.csv"}
# Where an installed package explains the comparison with ADBench's results (docs/adbench.md is not installed).
ADBENCH_COMPARISON_HELP = f"`python -m pydoc {adbench_reference.__name__}` (installed with kpca-bench)"


def method_order(config: Config) -> list[str]:
    return [m.setting_label(s) for m in config.methods for s in m.settings()]


def dataset_table(config: Config, records: dict[str, list[dict]]) -> pd.DataFrame:
    """Per dataset and method: trials done / planned / failed, mean and sd of each metric, and the dataset's
    size and scaling (:func:`dataset_size`) (long format)."""
    planned = planned_trials(config)
    members = dict(config.members())
    rows = []
    for dataset, mine in records.items():
        facts = dataset_size(members[dataset], mine) if dataset in members else {}
        frame = pd.DataFrame(mine) if mine else pd.DataFrame(columns=["method", "status"])
        for method in method_order(config):
            of_method = frame[frame["method"] == method]
            ok = of_method[of_method["status"] == "ok"]
            row = {
                "dataset": dataset,
                "method": method,
                "trials": len(ok),
                "planned": planned[method],
                "failed": int((of_method["status"] != "ok").sum()),
            }
            for metric in (*METRICS, "f1"):
                values = ok[metric].astype(float) if metric in ok else pd.Series(dtype=float)
                row[f"{metric}_mean"] = values.mean() if len(values) else np.nan
                row[f"{metric}_std"] = values.std() if len(values) > 1 else np.nan
            row["not_converged"] = stopped_fits(ok)
            if "train_capped" in ok and len(ok):
                row["n_train_mean"] = ok["n_train"].mean()
            if "n_test_inliers" in ok and len(ok):
                row["n_test_mean"] = (ok["n_test_inliers"] + ok["n_test_outliers"]).mean()
            rows.append({**row, **facts})
    return pd.DataFrame(rows)


# datasets.csv's columns that describe a dataset or a split rather than a method's numbers.
SIZE_COLUMNS = ("n_rows", "n_features", "scaling", "n_train_mean", "n_test_mean")


def dataset_size(member: Config, records: list[dict]) -> dict:
    """A dataset's rows as run and features (from its records, else the registry's shape), and its scaling."""
    first = next((r for r in records if "n_rows" in r), {})
    dataset = run_dataset(member)
    shape = getattr(DATASETS.get(dataset.name), "shape", None) or (None, None)
    return {
        "n_rows": first.get("n_rows", np.nan),
        "n_features": first.get("n_features", shape[1] or np.nan),
        "scaling": dataset.scaling,
    }


def score_table(table: pd.DataFrame, metric: str, order: list[str]) -> pd.DataFrame:
    """Datasets x methods of mean ``metric``, with only the datasets where every method has a number
    and only the methods with a number somewhere."""
    wide = table.pivot(index="dataset", columns="method", values=f"{metric}_mean")
    wide = wide[[m for m in order if m in wide and wide[m].notna().any()]]
    return wide.dropna()


def _markdown(frame: pd.DataFrame, floatfmt: str = ".3f") -> str:
    rows = (
        [format(v, floatfmt) if isinstance(v, (float, np.floating)) else str(v) for v in row]
        for _, row in frame.iterrows()
    )
    return "\n".join(markdown_table(list(frame.columns), rows))


def per_dataset_markdown(table: pd.DataFrame, metric: str, order: list[str]) -> str:
    """Datasets x methods of mean ± sd, the best mean per dataset in bold, incomplete cells marked."""
    lines = markdown_table(["dataset", *order])
    for dataset, rows in table.groupby("dataset", sort=False):
        rows = rows.set_index("method").reindex(order)
        best = rows[f"{metric}_mean"].max()
        cells = []
        for method, row in rows.iterrows():
            text = mean_std(row[f"{metric}_mean"], row[f"{metric}_std"], 3)
            if row[f"{metric}_mean"] == best:
                text = f"**{text}**"
            if row["trials"] < row["planned"]:
                text += f" ({row['trials']}/{row['planned']})"
            cells.append(text)
        lines.append(markdown_row([dataset, *cells]))
    return "\n".join(lines)


def posthoc_p_values(posthoc: str, scores: pd.DataFrame, wilcoxon: pd.DataFrame) -> pd.DataFrame:
    """The methods x methods p-values of the config's post-hoc test (``statistics.posthoc``)."""
    if posthoc == "wilcoxon_holm":
        return statistics.wilcoxon_holm_matrix(wilcoxon, list(scores.columns))
    return statistics.nemenyi(scores)


class MetricStatistics(TypedDict, total=False):
    """The statistics of one metric across the datasets (:func:`suite_statistics`); all but ``scores`` and
    ``n_datasets`` only with two datasets and two methods, ``friedman`` only with three methods."""

    scores: pd.DataFrame
    n_datasets: int
    ranks: pd.Series
    rank_interval: pd.DataFrame
    score_interval: pd.DataFrame
    cd: float
    wilcoxon: pd.DataFrame
    friedman: Friedman
    p_values: pd.DataFrame
    groups: list[list[str]]
    separated: list[tuple[str, str, float]]


def suite_statistics(config: Config, table: pd.DataFrame) -> dict:
    """Ranks and mean scores with bootstrap intervals, Friedman, CD, Wilcoxon-Holm, the groups of methods the
    config's post-hoc test does not separate, and win / tie / loss, from the per-dataset table: per metric its
    :class:`MetricStatistics`, and ``win_tie_loss``."""
    order = method_order(config)
    entries: dict[str, MetricStatistics] = {}
    for metric in METRICS:
        scores = score_table(table, metric, order)
        entry: MetricStatistics = {"scores": scores, "n_datasets": len(scores)}
        if len(scores) >= 2 and scores.shape[1] >= 2:
            entry["ranks"] = statistics.average_ranks(scores)
            entry["rank_interval"] = statistics.t_mean_interval(statistics.ranks(scores))
            entry["score_interval"] = statistics.t_mean_interval(scores)
            entry["cd"] = statistics.critical_difference(scores.shape[1], len(scores), ALPHA)
            entry["wilcoxon"] = statistics.wilcoxon_holm(scores, ALPHA)
            if scores.shape[1] >= 3:
                entry["friedman"] = statistics.friedman(scores)
            entry["p_values"] = posthoc_p_values(config.statistics.posthoc, scores, entry["wilcoxon"])
            entry["groups"] = statistics.contiguous_groups(entry["p_values"], entry["ranks"], ALPHA)
            entry["separated"] = statistics.separated_pairs(entry["p_values"], entry["ranks"], ALPHA)
        entries[metric] = entry
    result: dict[str, object] = {**entries}
    variants, detectors = kernel_variants(config)
    scores = entries["auroc"]["scores"]
    variants, detectors = [m for m in variants if m in scores], [m for m in detectors if m in scores]
    if variants and detectors and len(scores):
        result["win_tie_loss"] = statistics.win_tie_loss(scores, variants, detectors, TIE)
    return result


def rank_frame(stats: dict) -> pd.DataFrame:
    """Per method: average rank and mean score per metric, each with its t interval (95 %) over the
    datasets (``_low``, ``_high``), best AUROC rank first."""
    columns = {}
    for metric, label in METRICS.items():
        entry = stats[metric]
        if "ranks" in entry:
            for name, value, interval in (
                (f"rank_{metric}", entry["ranks"], entry["rank_interval"]),
                (f"{metric}_mean", entry["scores"].mean(), entry["score_interval"]),
            ):
                columns[name] = value
                columns[f"{name}_low"], columns[f"{name}_high"] = interval["low"], interval["high"]
    frame = pd.DataFrame(columns)
    if frame.empty:
        return frame
    return frame.sort_values(frame.columns[0], kind="stable").rename_axis("method").reset_index()


def rank_display(ranks: pd.DataFrame) -> pd.DataFrame:
    """The rank table as text, each number beside its t interval (95 %): ``5.07 [4.21, 5.96]``."""
    shown: dict[str, pd.Series | list[str]] = {"method": ranks["method"]}
    for metric, label in METRICS.items():
        for name, heading, digits in ((f"rank_{metric}", f"{label} rank", 2), (f"{metric}_mean", f"mean {label}", 3)):
            if name in ranks:
                shown[f"{heading} [95% CI]"] = [
                    f"{v:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
                    for v, low, high in zip(ranks[name], ranks[f"{name}_low"], ranks[f"{name}_high"])
                ]
    return pd.DataFrame(shown)


def rank_table_text(ranks: pd.DataFrame) -> str:
    """The rank table as the terminal shows it."""
    if ranks.empty:
        return "no dataset has every method finished yet: no ranks"
    return rank_display(ranks).to_string(index=False)


def suite_facts(
    config: Config, records: dict[str, list[dict]], skipped: list[tuple[str, str]], stats: dict, table: pd.DataFrame
) -> list[str]:
    """The facts at the top of summary.md: datasets and their sizes, one line per distinct protocol setting,
    one per distinct method setting, what no number is chosen on, the statistics' basis, hash and versions."""
    first = next((r for mine in records.values() for r in mine if "versions" in r), None)
    facts = [
        f"datasets: {len(records)} run ({size_range(table)}sizes and scaling per dataset in `datasets.csv`)"
        + (f", {len(skipped)} skipped" if skipped else ""),
        *setting_lines(config, records),
        f"{config.trials} trials (seeds) per dataset (seed {config.seed})",
        *method_lines(config),
        "no number is chosen on test labels (no grid search, no oracle threshold)"
        if all(len(m.settings()) == 1 for m in config.methods)
        else "each grid setting is its own row; none is chosen on test labels",
        f"statistics over the {stats['auroc']['n_datasets']} datasets where every method finished a trial; "
        f"a dataset's score is the mean over its trials; ties in win / tie / loss: |difference| <= {TIE}",
        f"config hash `{config.config_hash()}`"
        + (("; versions: " + ", ".join(f"{k} {v}" for k, v in first["versions"].items())) if first else ""),
    ]
    return facts


def size_range(table: pd.DataFrame) -> str:
    """``"80 to 619,326 rows, 6 to 1,555 features; "`` over the datasets of ``table``, or "" if unknown."""
    sizes = table.drop_duplicates("dataset")
    parts = [
        f"{low:,.0f} to {high:,.0f} {what}"
        for column, what in (("n_rows", "rows"), ("n_features", "features"))
        if column in sizes and sizes[column].notna().any()
        for low, high in [(sizes[column].min(), sizes[column].max())]
    ]
    return f"{', '.join(parts)}; " if parts else ""


def setting_lines(config: Config, records: dict[str, list[dict]]) -> list[str]:
    """One line per distinct (protocol description, scaling) among the datasets run; the datasets named when
    there is more than one such setting."""
    groups: dict[tuple[str, str], list[str]] = {}
    for label, member in config.members():
        if label in records:
            dataset = run_dataset(member)
            described = PROTOCOLS[config.protocol].describe(dataset, config.options)
            groups.setdefault((described, dataset.scaling), []).append(label)
    return [
        f"protocol: {config.protocol}: {described}; scaling: {scaling}"
        + ("" if len(groups) == 1 else f" ({len(labels)} datasets: {', '.join(labels)})")
        for (described, scaling), labels in groups.items()
    ]


def skipped_line(skipped: list[tuple[str, str]]) -> str:
    """The skipped datasets as one line of names plus how to get them (each reason once, names and this
    machine's data folders generalised, so that a committed summary reads the same anywhere)."""
    how = dict.fromkeys(without_data_dirs(reason.replace(name, "<name>")) for name, reason in skipped)
    return f"Skipped, files not here: {', '.join(name for name, _ in skipped)}. For each: " + "; or ".join(how) + "."


def without_data_dirs(text: str) -> str:
    """``text`` with each list of the data folders searched here (:func:`~kpca_bench.datasets.locate.searched`, the
    cache last) named as a user sets them, whether or not ``$KPCA_BENCH_DATA`` is set here:
    ``$KPCA_BENCH_DATA/<folder>, the cache (~/.cache/kpca-bench)/<folder>``."""
    *listed, cache = map(re.escape, map(str, data_dirs()))
    searched_here = "".join(rf"(?:{directory}/[^,;]+, )?" for directory in listed)
    return re.sub(
        rf"{searched_here}{cache}/(?P<folder>[^,;\s]+)",
        lambda found: f"$KPCA_BENCH_DATA/{found['folder']}, the cache (~/.cache/kpca-bench)/{found['folder']}",
        text,
    )


def related_lines(config: Config, labels: list[str]) -> list[str]:
    """Those of ``labels`` (the datasets in the statistics) that share their source
    (:func:`~kpca_bench.datasets.descriptions.related_present`): a paragraph naming each group, or nothing when no
    two are related."""
    from kpca_bench.datasets.descriptions import related_present

    names = {run_dataset(member).name: label for label, member in config.members() if label in labels}
    groups = related_present(names)
    if not groups:
        return []
    listed = "; ".join(f"{{{', '.join(names[name] for name in members)}}} ({group.name})" for group, members in groups)
    counted = (
        f"{len(groups)} groups of this suite's datasets share their source"
        if len(groups) > 1
        else "one group of this suite's datasets shares its source"
    )
    return [
        f"**Related datasets:** {counted}: {listed}. "
        "They are not independent observations, so the tests across datasets below, which count each dataset "
        "as one, overstate the evidence; the groups and their sources: `kpca-bench datasets show NAME`.",
        "",
    ]


def suite_records(records: dict[str, list[dict]]) -> pd.DataFrame:
    """Every dataset's records in one frame."""
    return pd.DataFrame([record for mine in records.values() for record in mine])


def flag_lines(config: Config, records: dict[str, list[dict]]) -> list[str]:
    """The verdict's lines on flagged fits, after its first sentence: per method, its fits that stopped on their
    iteration limit (:func:`~kpca_bench.report.tables.not_converged_lines`)."""
    return not_converged_lines(suite_records(records), method_order(config))


def flagged_labels(config: Config, records: dict[str, list[dict]]) -> dict[str, str]:
    """Method -> its label in the suite's figures and rank table: its name, with how many of its fits did not
    converge where some did not (:func:`~kpca_bench.report.tables.suite_marks`)."""
    from kpca_bench.report.plots import marked

    order = method_order(config)
    marks = suite_marks(suite_records(records), order)
    return {method: marked(method, marks) for method in order}


def incomplete_line(table: pd.DataFrame) -> str | None:
    """ "INCOMPLETE, not final: ..." naming the datasets with missing or failed trials (:func:`incomplete_datasets`),
    or None: the headline's and the figure titles' warning."""
    incomplete = incomplete_datasets(table)
    return f"INCOMPLETE, not final: {'; '.join(incomplete)}" if incomplete else None


def incomplete_datasets(table: pd.DataFrame) -> list[str]:
    marks = []
    for dataset, rows in table.groupby("dataset", sort=False):
        short = rows[rows["trials"] < rows["planned"]]
        if len(short):
            marks.append(
                f"{dataset} ("
                + ", ".join(
                    f"{r.method} {r.trials}/{r.planned}" + (f", {r.failed} failed" if r.failed else "")
                    for r in short.itertuples()
                )
                + ")"
            )
    return marks


def adbench_comparison(config: Config, table: pd.DataFrame, directory: Path) -> tuple[pd.DataFrame, list[str]] | None:
    """Our detectors beside ADBench's shipped results, for a run of ADBench's protocol with at least one
    detector ADBench ran (:func:`adbench_reference.column_of`); and the datasets without a reference number.
    The same suite run with PyOD's defaults, if its folder is beside this one, adds its gaps."""
    if config.protocol != "adbench":
        return None
    columns = {
        m.setting_label(s): column
        for m in config.methods
        if (column := adbench_reference.column_of(m.spec().estimator)) is not None
        for s in m.settings()
    }
    if not columns:
        return None
    defaults_table = directory.parent / f"{config.name}{adbench_reference.PYOD_DEFAULTS_SUFFIX}" / "datasets.csv"
    defaults = pd.read_csv(defaults_table) if defaults_table.exists() else None
    reference = adbench_reference.load_references()
    return (
        adbench_reference.comparison(reference, table, columns, defaults),
        adbench_reference.unreferenced(reference, table["dataset"].unique()),
    )


@dataclass(frozen=True)
class SuiteTables:
    """A suite's tables as written: ``datasets.csv``, ``summary.csv``, ``ranks.csv`` and ``wilcoxon_holm.csv``
    (``statistics``; empty when the datasets are too few for the test), the figure names, and ``headline.md``'s
    text (``verdict``: what the tests support first, :func:`headline`)."""

    datasets: pd.DataFrame
    summary: pd.DataFrame
    ranks: pd.DataFrame
    statistics: pd.DataFrame
    figures: list[str]
    verdict: str


def write_suite_report(
    config: Config, records: dict[str, list[dict]], skipped: list[tuple[str, str]], directory: Path
) -> SuiteTables | None:
    """Write the suite's tables, figures and summary.md to ``directory`` and return them (None: no finished cell)."""
    directory = Path(directory)
    table = dataset_table(config, records)
    if table.empty:
        return None
    from kpca_bench.report.plots import method_styles

    stats = suite_statistics(config, table)
    shown = flagged_labels(config, records)
    styles = {shown[method]: style for method, style in method_styles(method_order(config)).items()}
    incomplete = f"\n{note}" if (note := incomplete_line(table)) else ""
    figures = []
    for metric, label in METRICS.items():
        entry = stats[metric]
        if "ranks" in entry:
            nemenyi = config.statistics.posthoc == "nemenyi"
            cd_diagram(
                entry["ranks"].rename(shown),
                entry["p_values"].rename(index=shown, columns=shown),
                styles,
                cd=entry["cd"] if nemenyi else None,
                path=directory / f"cd_{metric}.png",
                title=f"{config.name}: average {label} rank over {entry['n_datasets']} datasets; each bar joins "
                f"consecutive methods no two of which {POSTHOC_NAMES[config.statistics.posthoc]} "
                f"separates (alpha {ALPHA})" + (f", CD = {entry['cd']:.2f}" if nemenyi else "") + incomplete,
            )
            write_atomic(
                directory / f"cd_groups_{metric}.csv",
                statistics.group_table(entry["groups"], entry["ranks"]).to_csv(index=False),
            )
            write_atomic(directory / f"posthoc_p_{metric}.csv", entry["p_values"].rename_axis("method").to_csv())
            write_atomic(directory / WILCOXON_FILES[metric], entry["wilcoxon"].to_csv(index=False))
            rank_heatmap(
                entry["scores"].rename(columns=shown),
                entry["ranks"].rename(shown),
                label=label,
                path=directory / f"rank_heatmap_{metric}.png",
                title=f"{config.name}: {label} rank of each method on each of {entry['n_datasets']} datasets"
                + incomplete,
            )
            figures += [f"cd_{metric}.png", f"rank_heatmap_{metric}.png"]
    if "ranks" in stats["auroc"]:
        box_plot(
            stats["auroc"]["scores"].rename(columns=shown),
            stats["auroc"]["ranks"].rename(shown),
            styles,
            path=directory / "auroc_box.png",
            title=f"{config.name}: AUROC per method over {stats['auroc']['n_datasets']} datasets" + incomplete,
        )
        figures.append("auroc_box.png")
    tables = tables_of(config, records, table, stats, figures)
    write_atomic(directory / "datasets.csv", table.to_csv(index=False))
    write_atomic(directory / "ranks.csv", tables.ranks.to_csv(index=False))
    if "win_tie_loss" in stats:
        write_atomic(directory / "win_tie_loss.csv", stats["win_tie_loss"].rename_axis("method").to_csv())
    write_atomic(directory / "summary.csv", tables.summary.to_csv(index=False))
    text = summary_markdown(config, records, skipped, table, stats, tables.ranks, figures)
    compared = adbench_comparison(config, table, directory)
    if compared is not None:
        write_atomic(directory / "adbench_comparison.csv", compared[0].to_csv(index=False))
        text += (
            "\n## Against ADBench's own results\n\n"
            + adbench_reference.comparison_markdown(*compared)
            + "\nEvery number per metric, dataset and detector: `adbench_comparison.csv`; what the comparison "
            f"does and does not show: {ADBENCH_COMPARISON_HELP}.\n"
        )
    write_atomic(directory / "summary.md", text)
    write_atomic(directory / "headline.md", tables.verdict + "\n")
    return tables


def suite_tables(config: Config, records: dict[str, list[dict]]) -> SuiteTables | None:
    """A suite's tables as :func:`write_suite_report` writes them, without the figures, computed only (None: no
    finished cell)."""
    table = dataset_table(config, records)
    if table.empty:
        return None
    return tables_of(config, records, table, suite_statistics(config, table), [])


def tables_of(
    config: Config, records: dict[str, list[dict]], table: pd.DataFrame, stats: dict, figures: list[str]
) -> SuiteTables:
    """The suite's tables from its table of datasets and methods and its statistics."""
    verdict = "\n\n".join(
        filter(None, [incomplete_line(table), headline(config, stats, flags=flag_lines(config, records))])
    )
    return SuiteTables(
        table,
        table.drop(columns=list(SIZE_COLUMNS), errors="ignore"),
        rank_frame(stats),
        stats["auroc"].get("wilcoxon", pd.DataFrame()),
        figures,
        verdict,
    )


def summary_markdown(config, records, skipped, table, stats, ranks, figures) -> str:
    order = method_order(config)
    incomplete = incomplete_datasets(table)
    lines = [f"# {config.name}: {len(records)} datasets", ""]
    if text := verdict(stats, config.statistics.posthoc):
        lines += [f"**What the tests support:** {text}", ""]
    if flags := flag_lines(config, records):
        lines += ["**Fits that did not converge:**", "", *[f"- {line}" for line in flags], ""]
    lines += [*[f"- {fact}" for fact in suite_facts(config, records, skipped, stats, table)], ""]
    if incomplete:
        lines += [
            f"**INCOMPLETE, not final: {'; '.join(incomplete)}.** Run the same command again to run what is "
            "missing and retry what failed (each failure's error: the dataset's `trials.csv`).",
            "",
        ]
    if skipped:
        lines += [skipped_line(skipped), ""]
    lines += related_lines(config, list(stats["auroc"]["scores"].index))
    if text := standing(config, stats):
        lines += ["## Where kernel PCA stands", "", text, ""]
    lines += [
        "## Average ranks",
        "",
        "Rank 1 = best on a dataset; averaged over the datasets (lower is better); "
        "in brackets a 95 % t interval over the datasets (`ranks.csv`; its coverage, measured by simulation: "
        "docs/statistics.md).",
        "",
    ]
    if not ranks.empty:
        marks = flagged_labels(config, records)
        lines += [_markdown(rank_display(ranks.assign(method=ranks["method"].map(marks)))), ""]
    for metric, label in METRICS.items():
        lines += statistics_lines(stats[metric], metric, label, config.statistics.posthoc)
    lines += [""] + [f"![{FIGURES[name]}]({name})" for name in figures] + [""]
    if "wilcoxon" in stats["auroc"]:
        wilcoxon = stats["auroc"]["wilcoxon"]
        shown = wilcoxon.assign(
            **{"wins / losses of a": wilcoxon["wins_a"].astype(str) + " / " + wilcoxon["losses_a"].astype(str)}
        )
        shown = shown[
            ["method_a", "method_b", "wins / losses of a", "median_difference", "p_value", "p_holm", "significant"]
        ]
        lines += [
            "## Pairwise Wilcoxon signed-rank tests, Holm-adjusted (AUROC)",
            "",
            holm_reach(stats["auroc"]["n_datasets"], len(wilcoxon)),
            "",
            f"{int(wilcoxon['significant'].sum())} of {len(wilcoxon)} pairs differ at alpha {ALPHA} after "
            "Holm's correction (all pairs in `wilcoxon_holm.csv`; AUPRC's in `wilcoxon_holm_auprc.csv`). "
            "Significant pairs:",
            "",
        ]
        significant = shown[shown["significant"]]
        lines += [_markdown(significant, ".3g") if len(significant) else "none", ""]
    if "win_tie_loss" in stats:
        wtl = stats["win_tie_loss"].rename_axis("kernel-PCA variant").reset_index()
        lines += [
            "## Win / tie / loss of each kernel-PCA variant against each detector (AUROC)",
            "",
            f"Wins / ties / losses over the datasets; a tie is a difference of at most {TIE}.",
            "",
            _markdown(wtl),
            "",
        ]
    for metric, label in METRICS.items():
        lines += [
            f"## {label} per dataset",
            "",
            "Mean ± sd over the trials; the best per dataset in bold; (done/planned) where trials are missing.",
            "",
            per_dataset_markdown(table, metric, order),
            "",
        ]
    return "\n".join(lines)
