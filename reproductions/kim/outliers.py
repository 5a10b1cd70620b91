"""Kim & Klabjan's outlier-detection table: AUROC per method and dataset, from the runs of several configs.

A config names one dataset, so the table gathers the runs of the ``unsupervised``
configs of :data:`reproductions.kim.REPRODUCTION` (``reproductions/kim/configs/kim_outliers_*.yaml``),
rows in :data:`ROW_ORDER`: for each, the AUROC mean ± std of every method
(its ``summary.csv``) and the sample it was measured on (``n``, outliers and
dimension, from its records). A config that has not been run, e.g.
because its data file is missing, stays in the table as "not run". The best
mean of each row is in bold. A second table pairs L1-norm KPCA (``l1_kpca``)
with L2-norm KPCA (``kpca``) of the same score in the same trial (same sample),
from the runs' ``trials.csv``: the mean AUROC difference and in how many
trials L1 is ahead.

    python -m reproductions analyse kim

writes ``<results>/kim_outliers/summary.csv``, ``paired_l1_l2.csv`` and ``summary.md``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory
from kpca_bench.experiment.store import ResultStore, write_atomic
from reproductions.framework.loader import trials_file

TABLE_DIR = "kim_outliers"
PROTOCOL = "unsupervised"
# The table's row order, by config name; the paper's other outlier configs follow in file-name order.
ROW_ORDER = tuple(
    f"kim_outliers_{name}"
    for name in ("satimage2", "breast_cancer", "ionosphere", "thyroid", "internet_ads", "mnist", "eth80")
)


def outlier_configs(paths: list[Path]) -> list[Path]:
    """The configs among ``paths`` with the ``unsupervised`` protocol, in :data:`ROW_ORDER`."""
    configs = {path: load_config(path) for path in paths}
    position = {name: row for row, name in enumerate(ROW_ORDER)}
    return sorted(
        (path for path, config in configs.items() if config.protocol == PROTOCOL),
        key=lambda path: position.get(configs[path].name, len(ROW_ORDER)),
    )


def outlier_table(config_paths: list[Path], results_root) -> pd.DataFrame:
    """One row per config and method: dataset, n, outliers, dimension, trials, AUROC mean and std.

    A config without results gives one row with method None.
    """
    rows = []
    for path in config_paths:
        config = load_config(path)
        assert config.dataset is not None  # Kim et al.'s configs name one dataset each
        directory = experiment_directory(config, results_root)
        ok = [r for r in ResultStore(directory).load().values() if r["status"] == "ok"]
        if not ok or not (directory / "summary.csv").exists():
            rows.append({"config": Path(path).name, "dataset": config.dataset.name, "method": None})
            continue
        sample = {"n": ok[0]["n_train"], "outliers": ok[0]["n_test_outliers"], "dimension": ok[0]["n_features"]}
        summary = pd.read_csv(directory / "summary.csv")
        rows += [
            {
                "config": Path(path).name,
                "dataset": config.dataset.name,
                **sample,
                "method": row["method"],
                "trials": row["trials"],
                "auroc_mean": row["auroc_mean"],
                "auroc_std": row["auroc_std"],
            }
            for _, row in summary.iterrows()
        ]
    return pd.DataFrame(rows)


def paired_l1_l2(config_paths: list[Path], results_root) -> pd.DataFrame:
    """Per config and score: AUROC of ``l1_kpca`` minus ``kpca`` paired by trial (mean, std, trials L1 ahead)."""
    rows = []
    for path in config_paths:
        config = load_config(path)
        assert config.dataset is not None  # Kim et al.'s configs name one dataset each
        trials_path = trials_file(experiment_directory(config, results_root))
        if not trials_path.exists():
            continue
        trials = pd.read_csv(trials_path)
        trials = trials[(trials["status"] == "ok") & trials["method_name"].isin(["l1_kpca", "kpca"])]
        # An entry without a score is scored by the reconstruction error (MethodSpec.build).
        trials = trials.assign(score=trials["score"].astype(object).fillna("reconstruction_error"))
        wide = trials.pivot_table(index=["score", "trial"], columns="method_name", values="auroc")
        if not {"l1_kpca", "kpca"} <= set(wide.columns):
            continue
        for score, difference in (wide["l1_kpca"] - wide["kpca"]).dropna().groupby("score"):
            rows.append(
                {
                    "dataset": config.dataset.name,
                    "score": score,
                    "difference_mean": difference.mean(),
                    "difference_std": difference.std(),
                    "l1_ahead": int((difference > 0).sum()),
                    "trials": len(difference),
                }
            )
    return pd.DataFrame(rows)


def paired_markdown(paired: pd.DataFrame) -> str:
    lines = ["| dataset | score | L1 − L2 AUROC | trials L1 ahead |", "|---|---|---|---|"]
    lines += [
        f"| {r['dataset']} | {r['score']} | {r['difference_mean']:+.3f} ± {r['difference_std']:.3f} | "
        f"{r['l1_ahead']}/{r['trials']} |"
        for _, r in paired.iterrows()
    ]
    return "\n".join(lines) + "\n"


def table_markdown(table: pd.DataFrame) -> str:
    """Datasets as rows, methods as columns (first-seen order), ``mean ± std``; the best mean per row in bold."""
    methods = list(dict.fromkeys(table["method"].dropna()))
    header = ["dataset", "n", "outliers", "dimension", *methods]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (config, dataset), group in table.groupby(["config", "dataset"], sort=False):
        dataset = str(dataset)  # a dataset's name (outlier_table)
        if group["method"].isna().all():
            lines.append("| " + " | ".join([dataset, *["–"] * 3, *["not run"] * len(methods)]) + " |")
            continue
        by_method = group.set_index("method")
        best = by_method["auroc_mean"].max()
        first = group.iloc[0]
        cells = [dataset, f"{int(first['n'])}", f"{int(first['outliers'])}", f"{int(first['dimension'])}"]
        for method in methods:
            if method not in by_method.index:
                cells.append("–")
                continue
            mean, std = by_method.loc[method, "auroc_mean"], by_method.loc[method, "auroc_std"]
            text = f"{mean:.3f} ± {0.0 if pd.isna(std) else std:.3f}"
            cells.append(f"**{text}**" if mean == best else text)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_outlier_table(config_paths: list[Path], results_root) -> Path:
    """Write ``summary.csv``, ``paired_l1_l2.csv`` and ``summary.md`` into ``<results_root>/kim_outliers/``; return the Markdown path."""
    table = outlier_table(config_paths, results_root)
    directory = Path(results_root) / TABLE_DIR
    directory.mkdir(parents=True, exist_ok=True)
    trials = sorted({int(t) for t in table.get("trials", pd.Series(dtype=float)).dropna()})
    lines = [
        "# Kim & Klabjan, outlier detection (unsupervised): AUROC per method and dataset",
        "",
        "- built by `python -m reproductions analyse kim` from the runs of "
        + ", ".join(f"`{Path(p).name}`" for p in config_paths),
        "- every method is fitted on the whole contaminated sample and scores it (protocol `unsupervised`); "
        "n = sample size per trial, outliers = how many of them are outliers",
        f"- mean ± std over trials ({', '.join(map(str, trials)) or 'none'}); the best mean of each row is in bold",
        "",
        table_markdown(table),
    ]
    paired = paired_l1_l2(config_paths, results_root)
    if not paired.empty:
        lines += [
            "## L1-norm minus L2-norm KPCA, paired by trial (same sample, same score)",
            "",
            paired_markdown(paired),
        ]
        write_atomic(directory / "paired_l1_l2.csv", paired.to_csv(index=False))
    write_atomic(directory / "summary.csv", table.to_csv(index=False))
    path = directory / "summary.md"
    write_atomic(path, "\n".join(lines))
    return path


def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
    """The outlier table over the paper's unsupervised configs (:func:`outlier_configs`)."""
    return [write_outlier_table(outlier_configs(config_paths), results_root)]
