"""Our detectors beside ADBench's own per-seed unsupervised results, per dataset, by AUROC and AUPRC.

The reference is shipped with the package (``adbench_results/``, provenance in its ``SOURCE.md``):
verbatim copies of ``result/AUCROC_DB_test_Tabular_None_None_unsupervise.csv`` and
``result/AUCPR_DB_test_Tabular_None_None_unsupervise.csv`` of ``Minqi824/ADBench`` at commit
6a9c8b0724c006cb9ea7c98c1acdf3ccebccd8da. Their index is ``(dataset, labelled-anomaly share, seed)``
under ADBench's dataset names of the time (``Pima_withoutdupl_35``); the unsupervised results are the
rows of share 0.0 (3 seeds, PyOD's detectors with their defaults), numbers for 28 datasets.

A detector of a config is compared when its class is one of ADBench's columns (:data:`COLUMNS`:
PyOD's classes by import path, scikit-learn's and kpca-bench's equivalents by registry name). The
comparison gives each detector's gap (ours minus ADBench's mean over seeds) with the config's parameters
and, where the same suite was also run with PyOD's defaults (:data:`PYOD_DEFAULTS_SUFFIX`), with those,
and how much of the gap the defaults account for. It names no other cause: none is measured here.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import pandas as pd

from kpca_bench.report.tables import markdown_row, markdown_table

# Our metric -> ADBench's name for it in its result files.
ADBENCH_METRICS = {"auroc": "AUCROC", "auprc": "AUCPR"}
LABELS = {"auroc": "AUROC", "auprc": "AUPRC"}
COMMIT = "6a9c8b0724c006cb9ea7c98c1acdf3ccebccd8da"
# A suite's run with PyOD's defaults is the results folder of the same name with this suffix, beside it
# (configs/adbench_classical_pyod_defaults.yaml for configs/adbench_classical.yaml).
PYOD_DEFAULTS_SUFFIX = "_pyod_defaults"


def file_name(metric: str) -> str:
    return f"{ADBENCH_METRICS[metric]}_DB_test_Tabular_None_None_unsupervise.csv"


def source(metric: str) -> str:
    return f"Minqi824/ADBench @ {COMMIT[:12]}, result/{file_name(metric)} (share of labelled anomalies 0.0)"


# ADBench's dataset names of the time -> our registry names (every name of its file with a counterpart
# among the 47; Parkinson, HeartDisease, Arrhythmia, abalone, concrete, comm.and.crime and imgseg have none).
NAMES = {
    "Pima_withoutdupl_35": "adbench_pima",
    "Hepatitis_withoutdupl_16": "adbench_hepatitis",
    "glass_withoutduplicates_normalized": "adbench_glass",
    "Lymphography_withoutdupl_idf": "adbench_lymphography",
    "WBC_withoutdupl_v10": "adbench_wbc",
    "Ionosphere_withoutdupl_norm": "adbench_ionosphere",
    "WPBC_withoutdupl_norm": "adbench_wpbc",
    "breastw": "adbench_breastw",
    "WDBC_withoutdupl_v10": "adbench_wdbc",
    "wine": "adbench_wine",
    "vertebral": "adbench_vertebral",
    "letter": "adbench_letter",
    "fault.diff": "adbench_fault",
    "yeast.diff": "adbench_yeast",
    "InternetAds_withoutdupl_norm_19": "adbench_internetads",
    "Cardiotocography_withoutdupl_22": "adbench_cardiotocography",
    "Stamps_withoutdupl_09": "adbench_stamps",
    "vowels": "adbench_vowels",
    "cardio": "adbench_cardio",
    "musk": "adbench_musk",
    "Waveform_withoutdupl_v10": "adbench_waveform",
    "speech": "adbench_speech",
    "thyroid": "adbench_thyroid",
    "SpamBase_withoutdupl_40": "adbench_spambase",
    "Wilt_withoutdupl_05": "adbench_wilt",
    "optdigits": "adbench_optdigits",
    "PageBlocks_withoutdupl_09": "adbench_pageblocks",
    "satimage-2": "adbench_satimage_2",
    "satellite": "adbench_satellite",
    "landsat.diff": "adbench_landsat",
    "pendigits": "adbench_pendigits",
    "annthyroid": "adbench_annthyroid",
    "mnist": "adbench_mnist",
    "smtp": "adbench_smtp",
    "http": "adbench_http",
    "cover": "adbench_cover",
    "skin.diff": "adbench_skin",
    "shuttle": "adbench_shuttle",
    "ALOI_withoutdupl": "adbench_aloi",
    "magic.gamma.diff": "adbench_magic_gamma",
    "mammography": "adbench_mammography",
}
# (top-level package, class name) of a detector -> ADBench's column for it.
PYOD_COLUMNS = (
    "IForest",
    "OCSVM",
    "CBLOF",
    "COF",
    "COPOD",
    "ECOD",
    "FeatureBagging",
    "HBOS",
    "KNN",
    "LODA",
    "LOF",
    "PCA",
    "SOD",
    "DAGMM",
)
COLUMNS = {
    **{("pyod", name): name for name in PYOD_COLUMNS},
    ("pyod", "SO_GAAL"): "SOGAAL",
    ("sklearn", "IsolationForest"): "IForest",
    ("sklearn", "OneClassSVM"): "OCSVM",
    ("sklearn", "LocalOutlierFactor"): "LOF",
    ("kpca_bench", "KNNDetector"): "KNN",
    ("kpca_bench", "PCADetector"): "PCA",
}


def column_of(estimator_class: type) -> str | None:
    """ADBench's column for a detector class (PyOD's ``ECOD`` -> ``ECOD``, scikit-learn's
    ``IsolationForest`` -> ``IForest``), or None when ADBench ran no such detector."""
    return COLUMNS.get((estimator_class.__module__.split(".")[0], estimator_class.__name__))


def load_reference(metric: str = "auroc", path=None) -> pd.DataFrame:
    """ADBench's unsupervised results as a long table: metric, adbench_name, dataset (our name), seed,
    column (ADBench's detector), value. ``path``: another file of the same layout (default: the shipped one)."""
    file = (
        Path(path) if path is not None else resources.files("kpca_bench.report") / "adbench_results" / file_name(metric)
    )
    with file.open() as handle:
        raw = pd.read_csv(handle, index_col=0)
    raw.index = pd.MultiIndex.from_tuples(
        [ast.literal_eval(key) for key in raw.index], names=["adbench_name", "share", "seed"]
    )
    long = (
        raw.xs(0.0, level="share")
        .reset_index()
        .melt(id_vars=["adbench_name", "seed"], var_name="column", value_name="value")
    )
    long["dataset"] = long["adbench_name"].map(NAMES)
    long.insert(0, "metric", metric)
    return long.dropna(subset=["dataset", "value"]).reset_index(drop=True)


def load_references() -> pd.DataFrame:
    """The shipped results of both metrics (AUROC, AUPRC), stacked."""
    return pd.concat([load_reference(metric) for metric in ADBENCH_METRICS], ignore_index=True)


def _our_means(table: pd.DataFrame, metrics: list[str], columns: dict[str, str], name: str) -> pd.DataFrame:
    """``<metric>_mean`` of a ``datasets.csv`` table, long: metric, dataset, method, column, ``name``, seeds."""
    mine = table[table["method"].isin(list(columns))]
    return (
        mine.melt(
            id_vars=["dataset", "method", "trials"],
            value_vars=[f"{m}_mean" for m in metrics],
            var_name="metric",
            value_name=name,
        )
        .assign(metric=lambda d: d["metric"].str.removesuffix("_mean"), column=lambda d: d["method"].map(columns))
        .rename(columns={"trials": f"{name}_seeds"})
    )


def comparison(
    reference: pd.DataFrame, ours: pd.DataFrame, columns: dict[str, str], pyod_defaults: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per metric, dataset and detector: ADBench's mean over seeds, ours, their difference.

    ``ours`` (and ``pyod_defaults``, the same suite run with PyOD's defaults) are ``datasets.csv``
    tables; ``columns`` maps our detector labels to ADBench's columns. With ``pyod_defaults``:
    ``ours_pyod_defaults``, its ``difference_pyod_defaults`` and ``explained_by_defaults``, how much
    nearer ADBench's number the defaults bring ours (|difference| - |difference_pyod_defaults|;
    negative: farther). Datasets without a reference number have no row (:func:`unreferenced`).
    """
    theirs = (
        reference.groupby(["metric", "dataset", "column"])["value"]
        .agg(["mean", "count"])
        .rename(columns={"mean": "adbench", "count": "adbench_seeds"})
        .reset_index()
    )
    metrics = [m for m in LABELS if m in set(theirs["metric"])]
    table = theirs.merge(_our_means(ours, metrics, columns, "ours"), on=["metric", "dataset", "column"]).dropna(
        subset=["ours"]
    )
    table["difference"] = table["ours"] - table["adbench"]
    wanted = ["metric", "dataset", "method", "column", "adbench", "adbench_seeds", "ours", "ours_seeds", "difference"]
    if pyod_defaults is not None:
        defaults = _our_means(pyod_defaults, metrics, columns, "ours_pyod_defaults").drop(columns="column")
        table = table.merge(defaults, on=["metric", "dataset", "method"], how="left")
        table["difference_pyod_defaults"] = table["ours_pyod_defaults"] - table["adbench"]
        table["explained_by_defaults"] = table["difference"].abs() - table["difference_pyod_defaults"].abs()
        wanted += [
            "ours_pyod_defaults",
            "ours_pyod_defaults_seeds",
            "difference_pyod_defaults",
            "explained_by_defaults",
        ]
    table["metric"] = pd.Categorical(table["metric"], categories=list(LABELS), ordered=True)
    table = table.sort_values(["metric", "dataset", "method"]).reset_index(drop=True)
    table["metric"] = table["metric"].astype(str)
    return table[wanted]


def unreferenced(reference: pd.DataFrame, datasets) -> list[str]:
    """Those of ``datasets`` for which ADBench's file has no unsupervised number."""
    have = set(reference["dataset"])
    return [name for name in datasets if name not in have]


def gap_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric and detector: datasets compared, mean and mean absolute difference, and with PyOD's
    defaults (where run) the same and the mean of ``explained_by_defaults``."""
    aggregations = {
        "datasets": ("difference", "size"),
        "mean_difference": ("difference", "mean"),
        "mean_abs_difference": ("difference", lambda d: d.abs().mean()),
    }
    if "difference_pyod_defaults" in table:
        aggregations.update(
            datasets_pyod_defaults=("difference_pyod_defaults", "count"),
            mean_abs_difference_pyod_defaults=("difference_pyod_defaults", lambda d: d.abs().mean()),
            mean_explained_by_defaults=("explained_by_defaults", "mean"),
        )
    return table.groupby(["metric", "method"], sort=False).agg(**aggregations).reset_index()


def comparison_markdown(table: pd.DataFrame, missing: Sequence[str] = ()) -> str:
    """Per metric: the gap per detector (with the config's parameters and, where run, PyOD's defaults),
    then datasets x detectors of "ours / ADBench (difference)"; ``missing``: datasets without a reference."""
    lines = []
    if missing:
        lines += [f"No unsupervised number in ADBench's file for: {', '.join(missing)}.", ""]
    if table.empty:
        return "\n".join(lines + ["No detector and dataset in common with ADBench's stored results.", ""])
    methods = list(dict.fromkeys(table["method"]))
    summary = gap_summary(table)
    for metric in [m for m in LABELS if m in set(table["metric"])]:
        part, gaps = table[table["metric"] == metric], summary[summary["metric"] == metric]
        lines += [
            f"Mean {LABELS[metric]} over seeds, ours vs ADBench's own unsupervised run ({source(metric)}).",
            "",
            *_gap_lines(gaps),
            "",
            "Per dataset, with the config's parameters: ours / ADBench (difference).",
            "",
            *markdown_table(["dataset", *methods]),
        ]
        for dataset, rows in part.groupby("dataset"):
            rows = rows.set_index("method")
            cells = [
                f"{rows.loc[m, 'ours']:.3f} / {rows.loc[m, 'adbench']:.3f} ({rows.loc[m, 'difference']:+.3f})"
                if m in rows.index
                else "–"
                for m in methods
            ]
            lines.append(markdown_row([dataset, *cells]))
        lines.append("")
    return "\n".join(lines)


def _gap_lines(gaps: pd.DataFrame) -> list[str]:
    with_defaults = "mean_abs_difference_pyod_defaults" in gaps
    header = "| detector | datasets | mean difference | mean abs. difference |"
    if with_defaults:
        header += " mean abs. difference, PyOD's defaults (datasets) | explained by the defaults |"
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for row in gaps.itertuples():
        line = f"| {row.method} | {row.datasets} | {row.mean_difference:+.3f} | {row.mean_abs_difference:.3f} |"
        if with_defaults:
            line += (
                " – | – |"
                if row.datasets_pyod_defaults == 0
                else f" {row.mean_abs_difference_pyod_defaults:.3f} ({row.datasets_pyod_defaults}) |"
                f" {row.mean_explained_by_defaults:+.3f} |"
            )
        lines.append(line)
    if with_defaults and (gaps["datasets_pyod_defaults"] == 0).any():
        lines += [
            "",
            "–: no run of this detector with PyOD's defaults; the defaults variant runs only the detectors "
            "whose parameters here differ from PyOD's defaults, so for the others the gap above is already "
            "the gap with PyOD's defaults.",
        ]
    return lines
