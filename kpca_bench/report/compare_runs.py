"""``kpca-bench compare A B``: two runs' or two suites' numbers side by side, from their records alone.

Two runs: per method setting and metric, the mean over each run's finished
trials, the difference B - A, and, when both runs drew the same splits (the same
trials with the same split seeds), a paired Wilcoxon signed-rank test over those
trials. Two suites: per method and dataset present in both, the mean AUROC of
each and B - A, and per method a Wilcoxon signed-rank test over the datasets, its
p-values Holm-corrected across the methods (one test per method is a family); what
that supports comes first (:func:`suite_verdict`), with the floor of the test at
this size, and nothing is left out in silence: the methods of one suite only and the
labels whose parameters differ between the two (:func:`suite_mismatches`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.export import run_records, suite_members
from kpca_bench.report.statistics import smallest_holm_p, smallest_wilcoxon_p

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
            row = {"method": method, "metric": metric, "mean_a": float(np.mean(values_a)),
                   "mean_b": float(np.mean(values_b)), "n_a": len(values_a), "n_b": len(values_b)}
            row["difference"] = row["mean_b"] - row["mean_a"]
            row["n_paired"], row["p_value"] = 0, None
            if paired:
                pairs = [(a[method][t][metric], b[method][t][metric]) for t in common
                         if _number(a[method][t].get(metric)) and _number(b[method][t].get(metric))]
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
        raise KpcaBenchError(f"{suite} is a suite's results folder and {run} a single run's; compare two runs, "
                             f"or two suites (a run of a suite's dataset is its folder, e.g. {suite}/<dataset>)")
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
    rows = [{"method": method, "dataset": dataset, "mean_a": a[(method, dataset)], "mean_b": b[(method, dataset)],
             "difference": b[(method, dataset)] - a[(method, dataset)]}
            for method in methods for dataset in datasets if (method, dataset) in a and (method, dataset) in b]
    tests = []
    for method in dict.fromkeys(row["method"] for row in rows):
        pairs = [(row["mean_a"], row["mean_b"]) for row in rows if row["method"] == method]
        tests.append({"method": method, "n_datasets": len(pairs),
                      "mean_difference": float(np.mean([b - a for a, b in pairs])), "p_value": paired_p_value(pairs)})
    return rows, with_holm(tests)


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
    return Mismatches([m for m in a if m not in b], [m for m in b if m not in a],
                      [(m, sorted(a[m]), sorted(b[m])) for m in a if m in b and a[m] != b[m]])


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
    floor_text = (f"the smallest attainable at this size is {len(tested)} x {smallest_wilcoxon_p(most):.3g} = "
                  f"{floor:.3g} ({len(tested)} methods tested, at most {most} datasets)")
    differ = [test for test in tested if test["p_holm"] < ALPHA]
    if not differ:
        smallest = min(test["p_holm"] for test in tested)
        reach = "; no method can differ at this size" if floor >= ALPHA else ""
        return (f"{metric}, B against A: no detectable difference for any of the {len(tested)} methods at this size "
                f"(smallest Holm p = {smallest:.3g}; {floor_text}{reach}).")
    shown = ", ".join(f"{test['method']} (mean B - A {test['mean_difference']:+.4f}, Holm p = {test['p_holm']:.3g})"
                      for test in sorted(differ, key=lambda test: test["p_holm"]))
    return (f"{metric}, B against A: {len(differ)} of {len(tested)} methods differ at alpha {ALPHA} after Holm's "
            f"correction: {shown} ({floor_text}).")
