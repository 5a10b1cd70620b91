"""Tables rebuilt from trial records alone: the tidy trials table and the per-method summary."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd

from kpca_bench.datasets.labels import CONVENTION
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.protocols.base import TRIALS_DRAWN, DatasetConfig
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.planning import planned_trials


def run_dataset(config: Config) -> DatasetConfig:
    """The one dataset of a single-dataset config or of a suite's member (:meth:`Config.members`); only the
    suite's own config, which names several, has none."""
    assert config.dataset is not None, f"{config.name} names several datasets: a report reads each member's"
    return config.dataset


def markdown_row(cells) -> str:
    """One row of a Markdown table: ``| a | b |``."""
    return "| " + " | ".join(map(str, cells)) + " |"


def markdown_table(header, rows=()) -> list[str]:
    """A Markdown table's lines: its header, the rule under it, then its rows (:func:`markdown_row`)."""
    return [markdown_row(header), "|" + "---|" * len(header), *map(markdown_row, rows)]


# Columns of trials.csv, in order; parameters follow as param_<name>.
TRIAL_COLUMNS = [
    "experiment",
    "profile",
    "method",
    "entry",
    "method_name",
    "score",
    "trial",
    "status",
    "f1",
    "precision",
    "recall",
    "auroc",
    "auprc",
    "sparsity",
    "threshold_rule",
    "threshold",
    "n_train",
    "n_train_rows",
    "train_capped",
    "n_train_outliers",
    "n_test_inliers",
    "n_test_outliers",
    "gamma",
    "n_iter",
    "eigen_solver",
    "eigen_residual",
    "fit_time",
    "score_time",
    "wall_time",
    "peak_memory_mb",
    "max_memory_mb",
    "split_seed",
    "random_state",
    "dataset",
    "data_fingerprint",
    "config_hash",
    "key",
    "versions",
    "error_type",
    "error",
]
# The class of a method named by import path and its package, the warnings a cell raised (JSON).
TRIAL_COLUMNS += ["method_class", "method_package", "warnings"]
# Why a finished cell's numbers mean nothing (constant scores, overflow), empty when they do.
TRIAL_COLUMNS += ["degenerate"]
# Where a cell computed (cpu, or cuda with the GPU's model); empty in records written before it was stored.
TRIAL_COLUMNS += ["device", "gpu_model"]
# The cell whose fit a cell of a fit group scored (empty: it fitted itself).
TRIAL_COLUMNS += ["fit_shared_with"]
# A fit that stopped on its iteration limit (protocols.base.iteration_limit), and how far from its
# tolerance the last iteration was (where the method exposes it).
TRIAL_COLUMNS += ["not_converged", "relative_change"]
# Structured fields kept in trials.csv, written as JSON.
JSON_COLUMNS = ("versions", "warnings")
FITTED_ON = {
    "training": "fitted on the training rows",
    "all": "fitted on the training and test rows",
    "each": "fitted on the training rows and on the test rows apart",
}
SUMMARY_METRICS = {
    "f1": ("F1", 3),
    "auroc": ("AUROC", 3),
    "auprc": ("AUPRC", 3),
    "sparsity": ("sparsity (% non-zero)", 2),
    "fit_time": ("fit time (s)", 2),
}


def trials_frame(
    records: list[dict], method_order: list[str], columns: list[str] | None = TRIAL_COLUMNS
) -> pd.DataFrame:
    """One row per trial x method setting, sorted by method (config order) and trial.

    ``columns`` picks and orders the record fields (parameters follow as ``param_<name>``);
    None keeps every scalar field in record order.
    """
    rows = []
    for record in records:
        # Per-trial curves (ROC points, sweeps) and mappings stay in the run's records (records.parquet); the table holds scalars.
        row = {
            k: v for k, v in record.items() if k not in ("params", *JSON_COLUMNS) and not isinstance(v, (list, dict))
        }
        row.update({k: record[k] for k in JSON_COLUMNS if k in record})
        row.update({f"param_{k}": v for k, v in record["params"].items()})
        rows.append(row)
    frame = pd.DataFrame(rows)
    if columns is not None:
        frame = frame[[c for c in columns if c in frame] + sorted(c for c in frame if c.startswith("param_"))]
    frame["method"] = pd.Categorical(frame["method"], categories=method_order, ordered=True)
    return frame.sort_values(["method", "trial"]).reset_index(drop=True)


def csv_text(frame: pd.DataFrame) -> str:
    """The frame as CSV, with mappings and lists (``versions``, ``warnings``) as JSON rather than Python reprs."""
    encoded = frame.copy()
    for column in encoded.columns[encoded.dtypes.eq(object)]:
        if encoded[column].map(lambda v: isinstance(v, (dict, list))).any():
            encoded[column] = encoded[column].map(
                lambda v: json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v
            )
    return encoded.to_csv(index=False)


def summary_frame(trials: pd.DataFrame, planned: dict[str, int], metrics=SUMMARY_METRICS) -> pd.DataFrame:
    """Per method setting: trials done of those ``planned``, failures, and mean and std of each metric present.

    Every planned setting has a row, also one whose every trial failed or that has not run yet;
    only finished trials (status ok) enter the means.
    """
    ok = trials[trials["status"] == "ok"]
    metrics = [m for m in metrics if m in ok]
    # With no finished trial there is no metric column to average: every planned setting gets an empty row.
    summary = ok.groupby("method", observed=True)[metrics].agg(["mean", "std"]) if metrics else pd.DataFrame()
    summary.columns = [f"{metric}_{stat}" for metric, stat in summary.columns]
    summary = summary.reindex(list(planned))
    summary.insert(0, "trials", ok["method"].value_counts().reindex(summary.index, fill_value=0).astype(int))
    summary.insert(1, "planned", pd.Series(planned).astype(int))
    failed = trials.loc[trials["status"] != "ok", "method"].astype(str).value_counts()
    summary.insert(2, "failed", failed.reindex(summary.index, fill_value=0).astype(int))
    if "degenerate" in ok:
        flagged = ok[ok["degenerate"].notna() & (ok["degenerate"] != "")]
        summary.insert(
            3,
            "degenerate",
            flagged["method"].astype(str).value_counts().reindex(summary.index, fill_value=0).astype(int),
        )
        summary.insert(
            4,
            "degenerate_reason",
            flagged.groupby(flagged["method"].astype(str))["degenerate"].first().reindex(summary.index).fillna(""),
        )
    if "not_converged" in ok:
        stopped = ok[ok["not_converged"].notna() & (ok["not_converged"] != "")]
        at = list(summary.columns).index("failed") + 1 + 2 * ("degenerate" in summary)
        summary.insert(
            at,
            "not_converged",
            stopped["method"].astype(str).value_counts().reindex(summary.index, fill_value=0).astype(int),
        )
        summary.insert(
            at + 1,
            "not_converged_reason",
            stopped.groupby(stopped["method"].astype(str))["not_converged"]
            .agg(lambda reasons: reasons.value_counts().index[0])
            .reindex(summary.index)
            .fillna(""),
        )
    return summary.rename_axis("method").reset_index()


def degenerate_reasons(summary: pd.DataFrame) -> dict[str, str]:
    """Method -> why its numbers do not measure it (the summary's ``degenerate_reason``) and in how many of its
    trials, for the methods with a flagged trial."""
    if "degenerate" not in summary:
        return {}
    flagged = summary[summary["degenerate"] > 0]
    return {
        str(row.method): f"{row.degenerate_reason}; in {int(row.degenerate)} of {int(row.trials)} trials"
        for row in flagged.itertuples()
    }


def degenerate_marks(summary: pd.DataFrame) -> dict[str, str]:
    """Method -> the short mark of why its numbers mean nothing (its flag up to the first ":", e.g.
    "no components"), for the methods with a flagged trial; the label a figure gives them."""
    return {method: reason.split(":")[0] for method, reason in degenerate_reasons(summary).items()}


def not_converged_marks(summary: pd.DataFrame) -> dict[str, str]:
    """Method -> "not converged 5/5" (its fits that stopped on their iteration limit, of its finished trials),
    for the methods with such a fit (the summary's ``not_converged``)."""
    if "not_converged" not in summary:
        return {}
    stopped = summary[summary["not_converged"] > 0]
    return {
        str(row.method): f"not converged {int(row.not_converged)}/{int(row.trials)}" for row in stopped.itertuples()
    }


def figure_marks(summary: pd.DataFrame) -> dict[str, str]:
    """Method -> the marks a figure gives its label: why its numbers mean nothing (:func:`degenerate_marks`) and
    how many of its fits did not converge (:func:`not_converged_marks`), joined by "; "."""
    marks: dict[str, list[str]] = {}
    for found in (degenerate_marks(summary), not_converged_marks(summary)):
        for method, mark in found.items():
            marks.setdefault(method, []).append(mark)
    return {method: "; ".join(found) for method, found in marks.items()}


def not_converged_counts(trials: pd.DataFrame, methods: list[str]) -> dict[str, tuple[int, int, str]]:
    """Method -> (fits that stopped on their iteration limit, finished fits, the commonest flag) over the finished
    rows of ``trials`` (records or trials.csv rows, of one dataset or a suite's), for those of ``methods`` with
    such a fit, in the order of ``methods``."""
    if trials.empty or "not_converged" not in trials:
        return {}
    ok = trials[trials["status"] == "ok"]
    stopped = ok[ok["not_converged"].notna() & (ok["not_converged"] != "")]
    counts = {}
    for method in methods:
        mine = stopped.loc[stopped["method"].astype(str) == method, "not_converged"]
        if len(mine):
            counts[method] = (len(mine), int((ok["method"].astype(str) == method).sum()), mine.value_counts().index[0])
    return counts


def stopped_fits(rows: pd.DataFrame) -> int:
    """How many of ``rows`` (records or trials.csv rows) are flagged ``not_converged``."""
    if "not_converged" not in rows:
        return 0
    return int((rows["not_converged"].notna() & (rows["not_converged"] != "")).sum())


def suite_marks(trials: pd.DataFrame, methods: list[str]) -> dict[str, str]:
    """Method -> "not converged 70/70" over a suite's records (:func:`not_converged_counts`): what its label
    in a suite's figures and rank table carries, beside the label (:func:`~kpca_bench.report.plots.marked`)."""
    return {
        method: f"not converged {stopped}/{finished}"
        for method, (stopped, finished, _) in not_converged_counts(trials, methods).items()
    }


def not_converged_lines(trials: pd.DataFrame, methods: list[str]) -> list[str]:
    """A verdict's lines on fits that stopped on their iteration limit, one per method that has one:
    "SKPCA RE: 70 of 70 fits stopped at max_iter = 6 (not converged; its numbers are not the method's optimum)"."""
    lines = []
    for method, (stopped, finished, flag) in not_converged_counts(trials, methods).items():
        limit = flag.removesuffix(" (ConvergenceWarning)")
        lines.append(
            f"{method}: {stopped} of {finished} fits {limit} (not converged: its numbers are not "
            "those of the method's converged solution)"
        )
    return lines


def trials_used(trials: pd.DataFrame, methods: list[str]) -> str:
    """Which trials the finished rows of ``methods`` come from: "trial 0", or "mean of 10 trials" (a figure's
    statement of what its points average)."""
    done = sorted(set(trials.loc[(trials["status"] == "ok") & trials["method"].isin(methods), "trial"].astype(int)))
    if len(done) == 1:
        return f"trial {done[0]}"
    return f"mean of {len(done)} trials"


def failure_lines(trials: pd.DataFrame) -> list[str]:
    """One line per method setting and kind of failure: how many trials, and the first message of that kind."""
    failed = trials[trials["status"] != "ok"]
    # A failure's kind: its exception's type, or its status when it has none (as runner.failure_kind).
    kinds = (failed["error_type"].fillna(failed["status"]) if "error_type" in failed else failed["status"]).astype(str)
    lines = []
    for (method, kind), group in failed.groupby([failed["method"].astype(str), kinds], sort=False):
        first = group.iloc[0]
        message = first.get("error") if isinstance(first.get("error"), str) else ""
        flag = first.get("degenerate") if isinstance(first.get("degenerate"), str) else ""
        lines.append(
            f"{method}, {len(group)} trial{'s' if len(group) > 1 else ''}: {kind}"
            + (f": {message}" if message else "")
            + (f" ({flag})" if flag else "")
        )
    return lines


def completion_mark(row) -> str:
    """ "" for a method with every planned trial done, else what is missing: "6 of 10 trials, 4 failed"."""
    if row["trials"] == row["planned"]:
        return ""
    mark = f"{row['trials']} of {row['planned']} trials"
    return mark + (f", {row['failed']} failed" if row["failed"] else "")


def incomplete_note(summary: pd.DataFrame) -> str | None:
    """One line naming the methods that are incomplete or failed, or None when every trial is done (or the
    summary, a protocol's own, counts no trials)."""
    if not {"trials", "planned", "failed"} <= set(summary.columns):
        return None
    marks = [f"{row['method']} {completion_mark(row)}" for _, row in summary.iterrows() if completion_mark(row)]
    if not marks:
        return None
    return "INCOMPLETE, not final: " + "; ".join(marks)


def entry_incomplete_note(config, records: list[dict]) -> str | None:
    """Like :func:`incomplete_note`, per method entry and counting cells, for reports with one row per entry."""
    planned = planned_trials(config)
    marks = []
    for method in config.methods:
        labels = {method.setting_label(setting) for setting in method.settings()}
        mine = [r for r in records if r["method"] in labels]
        done = sum(r["status"] == "ok" for r in mine)
        total = sum(planned[label] for label in labels)
        if done < total:
            failed = len(mine) - done
            marks.append(f"{method.label} {done} of {total} cells" + (f", {failed} failed" if failed else ""))
    return "INCOMPLETE, not final: " + "; ".join(marks) if marks else None


def mean_std(mean, std, digits: int) -> str:
    if pd.isna(mean):
        return "–"
    # A single trial has no spread: "± –", not "± 0.000".
    spread = "–" if pd.isna(std) else f"{std:.{digits}f}"
    return f"{mean:.{digits}f} ± {spread}"


def method_cell(row) -> str:
    """The method's name, marked ``(failed)``, ``(incomplete)`` or with why its numbers mean nothing."""
    marks = []
    if completion_mark(row):
        marks.append("failed" if row["trials"] == 0 else "incomplete")
    if row.get("degenerate", 0):
        marks.append(f"{row['degenerate_reason']}: {row['degenerate']} of {row['trials']} trials")
    if row.get("not_converged", 0):
        marks.append(
            f"not converged, {row['not_converged_reason'].removesuffix(' (ConvergenceWarning)')}: "
            f"{row['not_converged']} of {row['trials']} trials"
        )
    return str(row["method"]) + "".join(f" **({mark})**" for mark in marks)


def summary_table_markdown(summary: pd.DataFrame, threshold: str | None = None) -> str:
    """Mean ± std per method as a Markdown table: trials done / planned, failures, one column per metric present;
    F1's heading names its ``threshold`` rule (:meth:`~kpca_bench.protocols.base.ThresholdConfig.describe`)."""
    metrics = [m for m in SUMMARY_METRICS if f"{m}_mean" in summary]
    names = {**{m: SUMMARY_METRICS[m][0] for m in metrics}, **({"f1": f"F1 (cut: {threshold})"} if threshold else {})}
    header = ["method", "trials", "failed", *(names[m] for m in metrics)]
    lines = [*markdown_table(header)]
    for _, row in summary.iterrows():
        cells = [
            method_cell(row),
            f"{row['trials']} / {row['planned']}",
            str(row["failed"]),
            *(mean_std(row[f"{m}_mean"], row[f"{m}_std"], SUMMARY_METRICS[m][1]) for m in metrics),
        ]
        lines.append(markdown_row(cells))
    return "\n".join(lines) + "\n"


# Under a summary table with a flagged method.
DEGENERATE_NOTE = (
    "A method marked with a reason finished, but its numbers do not measure it (degenerate in "
    "trials.csv); for instance *no components*: every component of the fitted model is empty, so "
    "it explains no variance and scores a point by its distance to the kernel mean; *constant "
    "scores*: every test point got the same score."
)
# Under a summary table with a method whose fit stopped on its iteration limit.
NOT_CONVERGED_NOTE = (
    "A method marked *not converged* finished, but its fit stopped on its iteration limit "
    "(`max_iter` or the like) before its tolerance was met, with a ConvergenceWarning "
    "(not_converged, n_iter and relative_change in trials.csv): its numbers are those of the "
    "unconverged model, not of the method's converged solution."
)


# F1 at the config's cut below this share of F1 at the test-prior cut (as many points flagged as there are test
# outliers) is low because of the cut, not the ranking: the line under the summary says so.
F1_CUT_SHARE = 0.5
F1_CUT_NOTE = (
    f"F1 is scored at one cut of the outlier score (its rule beside F1), AUROC over every cut. Where a "
    f"method's mean F1 is below {F1_CUT_SHARE:g} of its mean F1 at the test-prior cut (as many test points "
    "flagged as there are test outliers; an oracle, it uses the test labels), the cut flags too few or too "
    "many points for its ranking: F1 there says more about the threshold rule than about the method."
)


def f1_cut_lines(records: list[dict], methods: list[str]) -> list[str]:
    """One line per method of ``methods`` whose mean F1 at the config's cut is below :data:`F1_CUT_SHARE` of its
    mean F1 at the test-prior cut (``f1_by_rule`` of its finished records): both F1s, its mean recall and AUROC."""
    frame = pd.DataFrame(
        [
            {
                "method": r["method"],
                "f1": r["f1"],
                "recall": r.get("recall"),
                "auroc": r.get("auroc"),
                "prior": r["f1_by_rule"].get("test_prior"),
            }
            for r in records
            if r.get("status") == "ok"
            and isinstance(r.get("f1_by_rule"), dict)
            and r.get("threshold_rule") not in ("test_prior", "test_oracle")
        ]
    )
    if frame.empty:
        return []
    means = frame.groupby("method").mean(numeric_only=True)
    low = means[means["f1"] < F1_CUT_SHARE * means["prior"]]
    return [
        f"{method}: F1 {row.f1:.3f} at the config's cut, {row.prior:.3f} at the test-prior cut (recall "
        f"{row.recall:.3f} at the config's cut; AUROC {row.auroc:.3f})"
        for method, row in low.reindex([m for m in methods if m in low.index]).iterrows()
    ]


def summary_markdown(
    summary: pd.DataFrame,
    *,
    title: str,
    facts: list[str],
    figures: list[str],
    failures: Sequence[str] = (),
    threshold: str | None = None,
    f1_notes: Sequence[str] = (),
) -> str:
    """The summary as a Markdown page: facts about the run, a warning if it is incomplete, the table (F1 headed
    by its ``threshold`` rule), why F1 is low where it is (``f1_notes``, :func:`f1_cut_lines`), the failures
    (:func:`failure_lines`), the figures."""
    note = incomplete_note(summary)
    warning = (
        [
            f"**{note}.** Run the same command again to finish it; failed cells say why in trials.csv "
            "(status, error_type, error).",
            "",
        ]
        if note
        else []
    )
    lines = [
        f"# {title}",
        "",
        *[f"- {fact}" for fact in facts],
        "",
        *warning,
        "Mean ± standard deviation over the finished trials (trials: done / planned).",
        "",
        summary_table_markdown(summary, threshold),
    ]
    if f1_notes:
        lines += [F1_CUT_NOTE, "", *[f"- {line}" for line in f1_notes], ""]
    if degenerate_marks(summary):
        lines += [DEGENERATE_NOTE, ""]
    if not_converged_marks(summary):
        lines += [NOT_CONVERGED_NOTE, ""]
    if failures:
        lines += ["Failures (the first message of each kind):", "", *[f"- {line}" for line in failures], ""]
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
    scaling = f"; scaling: {d.scaling}" + (f" ({FITTED_ON[d.scaling_rows]})" if d.scaling != "none" else "")
    protocol = PROTOCOLS[config.protocol]
    facts = [
        data + scaling,
        f"protocol: {config.protocol}: {protocol.describe(d, config.options)}, "
        f"{TRIALS_DRAWN[d.draw].format(trials=config.trials)} (seed {config.seed})",
    ]
    if config.reference is not None:
        facts.append(f"paper: {config.reference.paper}, {config.reference.dataset}")
    facts += method_lines(config)
    facts.append(
        f"config hash `{config.config_hash()}`; versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())
    )
    return facts


def method_lines(config) -> list[str]:
    """One line per distinct method setting (name and parameters), naming the entries that share it."""
    groups: dict[str, list[str]] = {}
    for method in config.methods:
        setting = f"{method.name} {method.params}" + (f" grid {method.grid}" if method.grid else "")
        groups.setdefault(setting, []).append(method.label + (f" (scored by {method.score})" if method.score else ""))
    return [f"method {setting}: {', '.join(labels)}" for setting, labels in groups.items()]
