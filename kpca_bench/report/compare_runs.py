"""``kpca-bench compare A B``: two runs' or two suites' numbers side by side, from their records alone.

Two runs: per method setting and metric, the mean over each run's finished
trials, the difference B - A, and, when both runs drew the same splits (the same
trials with the same split seeds), a paired Wilcoxon signed-rank test over those
trials. Two suites: per method and dataset present in both, the mean AUROC of
each and B - A, and per method a Wilcoxon signed-rank test over the datasets, its
p-values Holm-corrected across the methods (one test per method is a family); what
that supports comes first (:func:`suite_verdict`), with the floor of the test at
this size, and nothing is left out in silence: the methods of one suite only and the
labels whose parameters differ between the two (:func:`suite_mismatches`). Each
method's standing in each suite goes beside its test (:func:`method_standing`): its
mean rank among the methods of both, its mean AUROC, and its mean gap to ADBench's
published AUROC where the suites have that comparison.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.report.tables import markdown_row, markdown_table
from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.export import run_records, suite_members
from kpca_bench.report.statistics import ranks, smallest_holm_p, smallest_wilcoxon_p

ALPHA = 0.05

METRICS = ("auroc", "auprc", "f1", "precision", "recall", "sparsity", "accuracy", "fit_time")


def _by_method(records: list[dict]) -> dict[str, dict[int, dict]]:
    runs: dict[str, dict[int, dict]] = {}
    for record in records:
        if record.get("status") == "ok":
            runs.setdefault(record["method"], {})[record["trial"]] = record
    return runs


def compare_runs(run_a, run_b) -> list[dict]:
    """One row per (method, metric) present in both runs: mean_a, mean_b, difference, n_paired, p_value."""
    a, b = _by_method(run_records(run_a)), _by_method(run_records(run_b))
    rows = []
    for method in [m for m in a if m in b]:
        common = sorted(set(a[method]) & set(b[method]))
        paired = bool(common) and all(a[method][t].get("split_seed") == b[method][t].get("split_seed") for t in common)
        for metric in METRICS:
            values_a = [r[metric] for r in a[method].values() if _number(r.get(metric))]
            values_b = [r[metric] for r in b[method].values() if _number(r.get(metric))]
            if not values_a or not values_b:
                continue
            mean_a, mean_b = float(np.mean(values_a)), float(np.mean(values_b))
            row: dict[str, object] = {
                "method": method,
                "metric": metric,
                "mean_a": mean_a,
                "mean_b": mean_b,
                "n_a": len(values_a),
                "n_b": len(values_b),
                "difference": mean_b - mean_a,
                "n_paired": 0,
                "p_value": None,
            }
            if paired:
                pairs = [
                    (a[method][t][metric], b[method][t][metric])
                    for t in common
                    if _number(a[method][t].get(metric)) and _number(b[method][t].get(metric))
                ]
                row["n_paired"] = len(pairs)
                row["p_value"] = paired_p_value(pairs)
            rows.append(row)
    return rows


def paired_p_value(pairs: list[tuple[float, float]]) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value over paired values; 1.0 when every pair is equal, None for < 2 pairs."""
    if len(pairs) < 2:
        return None
    diffs = np.array([b - a for a, b in pairs])
    if np.all(diffs == 0):
        return 1.0
    from scipy.stats import wilcoxon

    return float(wilcoxon(diffs).pvalue)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def same_run_note(run_a: Path, run_b: Path, rows: list[dict]) -> str:
    """A sentence on whether the test is paired."""
    if not rows:
        return f"no method setting has finished trials in both {run_a} and {run_b}"
    if any(r["n_paired"] for r in rows):
        return "paired: both runs drew the same splits; p from a two-sided Wilcoxon signed-rank test over the trials"
    return "not paired: the runs drew different splits (or share no trial), so no test is made"


def both_suites(folder_a, folder_b) -> bool:
    """True for two suites' results folders, False for two runs'; a one-line error for one of each."""
    suites = [bool(suite_members(folder)) for folder in (folder_a, folder_b)]
    if suites[0] != suites[1]:
        suite, run = (folder_a, folder_b) if suites[0] else (folder_b, folder_a)
        raise KpcaBenchError(
            f"{suite} is a suite's results folder and {run} a single run's; compare two runs, "
            f"or two suites (a run of a suite's dataset is its folder, e.g. {suite}/<dataset>)"
        )
    return suites[0]


def suite_means(folder, metric: str) -> dict[tuple[str, str], float]:
    """Per (method, dataset) of a suite: the mean of ``metric`` over its finished trials."""
    means = {}
    for dataset, member in suite_members(folder).items():
        for method, trials in _by_method(run_records(member)).items():
            values = [r[metric] for r in trials.values() if _number(r.get(metric))]
            if values:
                means[(method, dataset)] = float(np.mean(values))
    return means


def compare_suites(suite_a, suite_b, metric: str = "auroc") -> tuple[list[dict], list[dict]]:
    """Two suites, paired by dataset.

    Returns
    -------
    rows : per method and dataset with ``metric`` in both: method, dataset, mean_a, mean_b, difference (B - A).
    tests : per method: n_datasets, mean_difference, the two-sided Wilcoxon signed-rank p-value over
        the datasets (:func:`paired_p_value`: None for fewer than 2 datasets) and ``p_holm``, that p-value
        Holm-corrected over the methods tested (None where untested).
    """
    a, b = suite_means(suite_a, metric), suite_means(suite_b, metric)
    methods, datasets = dict.fromkeys(method for method, _ in a), sorted({dataset for _, dataset in a})
    shared = [
        (method, dataset)
        for method in methods
        for dataset in datasets
        if (method, dataset) in a and (method, dataset) in b
    ]
    rows = [
        {
            "method": method,
            "dataset": dataset,
            "mean_a": a[(method, dataset)],
            "mean_b": b[(method, dataset)],
            "difference": b[(method, dataset)] - a[(method, dataset)],
        }
        for method, dataset in shared
    ]
    tests = []
    for method in dict.fromkeys(method for method, _ in shared):
        pairs = [(a[key], b[key]) for key in shared if key[0] == method]
        tests.append(
            {
                "method": method,
                "n_datasets": len(pairs),
                "mean_difference": float(np.mean([b - a for a, b in pairs])),
                "p_value": paired_p_value(pairs),
            }
        )
    return rows, with_holm(tests)


ADBENCH_COMPARISON = "adbench_comparison.csv"


def method_standing(suite_a, suite_b, rows: list[dict], metric: str = "auroc") -> pd.DataFrame:
    """Per method compared (``rows`` of :func:`compare_suites`), where it stands in each suite.

    Over the datasets on which every compared method has ``metric`` in both suites: ``rank_a``/``rank_b``, its
    mean rank among those methods in that suite (1 = highest; ties within the suite statistics' tolerance share
    the average rank), ``mean_a``/``mean_b`` and ``difference`` (B - A) of its mean ``metric``; and
    ``gap_a``/``gap_b``, its mean difference to ADBench's published value (ours - ADBench) over the datasets
    of that suite's ``adbench_comparison.csv`` (NaN where a suite has none, or none for the method), with
    ``gap_datasets`` the fewer of the two counts. ``datasets``: how many datasets the ranks and means span.
    """
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame()
    methods = list(dict.fromkeys(frame["method"]))
    wide = {
        side: frame.pivot(index="dataset", columns="method", values=f"mean_{side}")[methods].dropna()
        for side in ("a", "b")
    }
    shared = wide["a"].index.intersection(wide["b"].index)
    standing = pd.DataFrame({"method": methods, "datasets": len(shared)})
    for side, folder in (("a", suite_a), ("b", suite_b)):
        table = wide[side].loc[shared]
        standing[f"rank_{side}"] = ranks(table).mean().reindex(methods).to_numpy()
        standing[f"mean_{side}"] = table.mean().reindex(methods).to_numpy()
        gaps = adbench_gaps(folder, metric)
        standing[f"gap_{side}"] = [gaps.get(method, (np.nan, 0))[0] for method in methods]
        standing[f"gap_n_{side}"] = [gaps.get(method, (np.nan, 0))[1] for method in methods]
    standing["difference"] = standing["mean_b"] - standing["mean_a"]
    standing["gap_datasets"] = standing[["gap_n_a", "gap_n_b"]].min(axis=1)
    return standing.drop(columns=["gap_n_a", "gap_n_b"])


def write_standing(standing: pd.DataFrame, path: Path, suite_a, suite_b) -> Path:
    """Write :func:`method_standing`'s frame as CSV, or as a Markdown table (A and B named) if ``path`` ends in .md."""
    path = Path(path)
    if path.suffix != ".md":
        standing.to_csv(path, index=False, float_format="%.6g")
        return path
    names = {"a": Path(suite_a).name, "b": Path(suite_b).name}
    header = [
        "method",
        f"rank ({names['a']})",
        f"rank ({names['b']})",
        f"mean AUROC ({names['a']})",
        f"mean AUROC ({names['b']})",
        "B - A",
        f"ADBench gap ({names['a']})",
        f"ADBench gap ({names['b']})",
    ]
    lines = [*markdown_table(header)]
    # The gaps as floats (NaN where a suite has no ADBench comparison), for the NaN test and the format.
    gap_pairs = standing.reindex(columns=["gap_a", "gap_b"]).to_numpy(dtype=float)
    for row, gaps in zip(standing.itertuples(), gap_pairs):
        cells = [
            f"{row.rank_a:.2f}",
            f"{row.rank_b:.2f}",
            f"{row.mean_a:.3f}",
            f"{row.mean_b:.3f}",
            f"{row.difference:+.3f}",
            *("–" if gap != gap else f"{gap:+.3f}" for gap in gaps),
        ]
        lines.append(markdown_row([row.method, *cells]))
    path.write_text("\n".join(lines) + "\n")
    return path


def adbench_gaps(folder, metric: str) -> dict[str, tuple[float, int]]:
    """Per method: the mean of ``ours - ADBench`` over the datasets of the suite's ADBench comparison, and their
    number; empty where the suite has no such comparison."""
    path = Path(folder) / ADBENCH_COMPARISON
    if not path.is_file():
        return {}
    table = pd.read_csv(path)
    table = table[(table["metric"] == metric) & table["difference"].notna()]
    return {
        method: (float(group["difference"].mean()), int(group["dataset"].nunique()))
        for method, group in table.groupby("method", sort=False)
    }


def with_holm(tests: list[dict]) -> list[dict]:
    """``tests`` with ``p_holm``: the p-values that exist, Holm-corrected together (statsmodels)."""
    from statsmodels.stats.multitest import multipletests

    tested = [test["p_value"] for test in tests if test["p_value"] is not None]
    adjusted = iter(multipletests(tested, method="holm")[1] if tested else [])
    return [{**test, "p_holm": None if test["p_value"] is None else float(next(adjusted))} for test in tests]


@dataclass(frozen=True)
class Mismatches:
    """What two suites do not share: the methods with finished trials in one only, and the labels present in both
    whose parameters differ (label, A's parameter sets, B's), each set as JSON text."""

    only_a: list[str]
    only_b: list[str]
    collisions: list[tuple[str, list[str], list[str]]]


def suite_parameters(folder) -> dict[str, set[str]]:
    """Per method label of a suite: the distinct parameter sets (JSON text) of its finished trials."""
    found: dict[str, set[str]] = {}
    for member in suite_members(folder).values():
        for method, trials in _by_method(run_records(member)).items():
            found.setdefault(method, set()).update(json.dumps(r.get("params"), sort_keys=True) for r in trials.values())
    return found


def suite_mismatches(suite_a, suite_b) -> Mismatches:
    """The methods of one suite only, and the shared labels whose parameters differ (:class:`Mismatches`)."""
    a, b = suite_parameters(suite_a), suite_parameters(suite_b)
    return Mismatches(
        [m for m in a if m not in b],
        [m for m in b if m not in a],
        [(m, sorted(a[m]), sorted(b[m])) for m in a if m in b and a[m] != b[m]],
    )


def holm_floor(tests: list[dict]) -> float | None:
    """The smallest Holm-adjusted p the per-method tests can reach: the number of tests times the smallest
    signed-rank p on the most datasets any method has (not capped at 1); None without a test."""
    tested = [test["n_datasets"] for test in tests if test["p_value"] is not None]
    return smallest_holm_p(max(tested), len(tested)) if tested else None


def suite_verdict(tests: list[dict], metric: str = "AUROC") -> str:
    """What the per-method tests support, first: the methods whose ``metric`` differs between the suites at
    :data:`ALPHA` after Holm's correction, or that none does, with the smallest Holm p found and the floor."""
    tested = [test for test in tests if test["p_holm"] is not None]
    if not tested:
        return f"{metric}, B against A: no method has two datasets in both suites, so no test is made."
    floor, most = holm_floor(tests), max(test["n_datasets"] for test in tested)
    assert floor is not None, "a test with a Holm p has a p-value (with_holm)"
    floor_text = (
        f"the smallest attainable at this size is {len(tested)} x {smallest_wilcoxon_p(most):.3g} = "
        f"{floor:.3g} ({len(tested)} methods tested, at most {most} datasets)"
    )
    differ = [test for test in tested if test["p_holm"] < ALPHA]
    if not differ:
        smallest = min(test["p_holm"] for test in tested)
        reach = "; no method can differ at this size" if floor >= ALPHA else ""
        return (
            f"{metric}, B against A: no detectable difference for any of the {len(tested)} methods at this size "
            f"(smallest Holm p = {smallest:.3g}; {floor_text}{reach})."
        )
    shown = ", ".join(
        f"{test['method']} (mean B - A {test['mean_difference']:+.4f}, Holm p = {test['p_holm']:.3g})"
        for test in sorted(differ, key=lambda test: test["p_holm"])
    )
    return (
        f"{metric}, B against A: {len(differ)} of {len(tested)} methods differ at alpha {ALPHA} after Holm's "
        f"correction: {shown} ({floor_text})."
    )
