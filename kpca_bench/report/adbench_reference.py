"""Our detectors beside ADBench's own per-seed unsupervised results, per dataset, by AUROC and AUPRC.

The references are extracts of ``result/AUCROC_DB_test_Tabular_None_None_unsupervise.csv`` and
``result/AUCPR_DB_test_Tabular_None_None_unsupervise.csv`` of ``Minqi824/ADBench`` at commit 6a9c8b0724c0
(``results/reference/adbench_unsupervised_aucroc.csv``, ``results/reference/adbench_unsupervised_aucpr.csv``):
their rows with labelled-anomaly share 0.0 for the datasets both have, every column as in the files.
Their index is ``(dataset, share, seed)`` under ADBench's older dataset names (``Pima_withoutdupl_35``).
ADBench ran 3 seeds with PyOD's defaults; the comparison is of means over seeds, one row per metric,
dataset and detector.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd

# Our metric -> ADBench's name for it in its result files.
ADBENCH_METRICS = {"auroc": "AUCROC", "auprc": "AUCPR"}
LABELS = {"auroc": "AUROC", "auprc": "AUPRC"}
REFERENCE_FILES = {"auroc": Path("reference") / "adbench_unsupervised_aucroc.csv",
                   "auprc": Path("reference") / "adbench_unsupervised_aucpr.csv"}


def source(metric: str) -> str:
    return (f"Minqi824/ADBench @ 6a9c8b0724c0, result/{ADBENCH_METRICS[metric]}_DB_test_Tabular_None_None_"
            "unsupervise.csv (share of labelled anomalies 0.0)")


# ADBench's older names -> our registry names.
NAMES = {
    "Pima_withoutdupl_35": "adbench_pima", "Hepatitis_withoutdupl_16": "adbench_hepatitis",
    "glass_withoutduplicates_normalized": "adbench_glass", "Lymphography_withoutdupl_idf": "adbench_lymphography",
    "WBC_withoutdupl_v10": "adbench_wbc", "Ionosphere_withoutdupl_norm": "adbench_ionosphere",
    "WPBC_withoutdupl_norm": "adbench_wpbc", "breastw": "adbench_breastw", "WDBC_withoutdupl_v10": "adbench_wdbc",
    "wine": "adbench_wine", "vertebral": "adbench_vertebral", "letter": "adbench_letter",
    "fault.diff": "adbench_fault", "InternetAds_withoutdupl_norm_19": "adbench_internetads",
    "Cardiotocography_withoutdupl_22": "adbench_cardiotocography", "Stamps_withoutdupl_09": "adbench_stamps",
    "vowels": "adbench_vowels", "cardio": "adbench_cardio", "musk": "adbench_musk",
    "Waveform_withoutdupl_v10": "adbench_waveform", "speech": "adbench_speech",
}
# ADBench's column -> the label of our detector in configs/adbench_classical.yaml.
DETECTORS = {"IForest": "IForest", "OCSVM": "OCSVM", "KNN": "kNN", "LOF": "LOF", "PCA": "PCA"}
# Why numbers can differ, per detector (library defaults) and per dataset size (ADBench's duplication).
DEFAULTS = {
    "OCSVM": "PyOD's OCSVM uses gamma 'auto' (1 / features), ours 'scale'; ours fits on 2,000 capped rows",
    "PCA": "PyOD's PCA scores by all components weighted by eigenvalue, ours by the reconstruction error "
           "outside 90 % of the variance",
    "LOF": "PyOD's LOF scores test points in novelty mode as ours, 20 neighbours both",
    "KNN": "same rule (distance to the 5th neighbour)",
    "IForest": "same defaults (100 trees, 256 samples); different random trees",
}
SMALL = 1000


def load_reference(results_root, metric: str = "auroc") -> pd.DataFrame:
    """One reference extract as a long table: dataset (our name), seed, detector (our label), metric, value."""
    raw = pd.read_csv(Path(results_root) / REFERENCE_FILES[metric], index_col=0)
    index = [ast.literal_eval(key) for key in raw.index]
    raw.index = pd.MultiIndex.from_tuples(index, names=["adbench_name", "share", "seed"])
    raw = raw.xs(0.0, level="share")[list(DETECTORS)].rename(columns=DETECTORS)
    long = raw.reset_index().melt(id_vars=["adbench_name", "seed"], var_name="method", value_name="value")
    long["dataset"] = long["adbench_name"].map(NAMES)
    long.insert(0, "metric", metric)
    return long.dropna(subset=["dataset", "value"])


def load_references(results_root) -> pd.DataFrame:
    """Every reference extract present under ``results_root`` (AUROC, AUPRC), stacked."""
    frames = [load_reference(results_root, metric) for metric, path in REFERENCE_FILES.items()
              if (Path(results_root) / path).exists()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def likely_cause(method: str, rows: int | None, difference: float) -> str:
    """The most likely reasons for a difference, from what is known to differ (not measured)."""
    causes = []
    if abs(difference) > 0.05:
        causes.append("data version: ADBench's file of the time (older DAMI / ODDS variant) vs the 47-dataset release")
    if rows is not None and rows < SMALL:
        causes.append(f"split: ADBench duplicated this {rows}-row dataset to 1,000 rows before splitting "
                      "(test rows can copy training rows)")
    adbench_name = {label: name for name, label in DETECTORS.items()}[method]
    causes.append(DEFAULTS[adbench_name])
    causes.append("seeds: 3 (ADBench) vs 5 (ours)")
    return "; ".join(causes)


def comparison(reference: pd.DataFrame, ours: pd.DataFrame, rows: dict[str, int] | None = None) -> pd.DataFrame:
    """Per metric, dataset and detector: ADBench's mean, ours (``<metric>_mean`` of ``datasets.csv``),
    difference, cause. ``reference`` is ``load_reference``/``load_references``; its metrics set the rows."""
    theirs = (reference.groupby(["metric", "dataset", "method"])["value"].agg(["mean", "count"])
              .rename(columns={"mean": "adbench", "count": "adbench_seeds"}).reset_index())
    metrics = [m for m in LABELS if m in set(theirs["metric"])]
    mine = (ours.melt(id_vars=["dataset", "method", "trials"], value_vars=[f"{m}_mean" for m in metrics],
                      var_name="metric", value_name="ours")
            .assign(metric=lambda d: d["metric"].str.removesuffix("_mean"))
            .rename(columns={"trials": "our_seeds"}))
    table = theirs.merge(mine, on=["metric", "dataset", "method"], how="inner").dropna(subset=["ours"])
    table["difference"] = table["ours"] - table["adbench"]
    rows = rows or {}
    table["likely_cause"] = [likely_cause(r.method, rows.get(r.dataset), r.difference) for r in table.itertuples()]
    table["metric"] = pd.Categorical(table["metric"], categories=list(LABELS), ordered=True)
    table = table.sort_values(["metric", "dataset", "method"]).reset_index(drop=True)
    table["metric"] = table["metric"].astype(str)
    return table[["metric", "dataset", "method", "adbench", "adbench_seeds", "ours", "our_seeds", "difference",
                  "likely_cause"]]


def comparison_markdown(table: pd.DataFrame) -> str:
    """Per metric: datasets x detectors of "ours / ADBench (difference)", then the mean absolute difference
    per detector."""
    if table.empty:
        return "No dataset in common with ADBench's stored results.\n"
    methods = [m for m in DETECTORS.values() if m in set(table["method"])]
    lines = []
    for metric in [m for m in LABELS if m in set(table["metric"])]:
        part = table[table["metric"] == metric]
        lines += [f"Mean {LABELS[metric]} over seeds, ours vs ADBench's own unsupervised run ({source(metric)}); "
                  "cells: ours / ADBench (difference).", "", "| dataset | " + " | ".join(methods) + " |",
                  "|" + "---|" * (len(methods) + 1)]
        for dataset, rows in part.groupby("dataset"):
            rows = rows.set_index("method")
            cells = [f"{rows.loc[m, 'ours']:.3f} / {rows.loc[m, 'adbench']:.3f} ({rows.loc[m, 'difference']:+.3f})"
                     if m in rows.index else "–" for m in methods]
            lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
        summary = part.groupby("method")["difference"].agg(lambda d: d.abs().mean()).reindex(methods)
        lines += ["| mean abs. difference | " + " | ".join(f"{v:.3f}" for v in summary) + " |", ""]
    return "\n".join(lines)
