"""Das et al., section V: can the paper's AUROCs come from its own protocol? A check from the records.

Where the text fixes the data, the sizes, the number of components, the kernel
width and the score, a method's AUROC varies only with the split and with the
choices the text leaves open. Each such choice that we could name runs as a
variant of the headline config (``configs/variants/``, ``reference.variant_of``).
So the AUROCs of every split of the headline run and of all its variants span
what the stated protocol gives under every reading we tested. A paper value
that lies below the smallest of them, or above the largest, by more than its
tolerance is reached by no split under any reading: the check flags it
``inconsistent`` (``margin``: by how much it clears the tolerance). Whether the
readings cover every open choice is a judgement the check cannot make:
``reproductions/das/reference/deviations.yaml`` names the check only under the deviations
where they do.

Writes ``das_consistency.csv`` (the columns the report reads: config, method,
metric, paper, tolerance, inconsistent) and ``das_consistency.md`` in the
results root, from the stored records of the paper's headline runs and their
variants.

    python -m reproductions analyse das
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kpca_bench.report.tables import markdown_table
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.runner import stored_records
from kpca_bench.experiment.planning import experiment_directory
from kpca_bench.experiment.store import ResultStore, write_table
from reproductions.framework.reference import paper_reference, reference_values, references_of
from reproductions.framework.loader import VARIANTS_DIR

from .report import METHOD_LABELS, das_configs

METRIC = "auroc_mean"
COLUMNS = (
    "config",
    "method",
    "metric",
    "paper",
    "tolerance",
    "inconsistent",
    "margin",
    "low",
    "median",
    "high",
    "splits",
    "readings",
)


def variants_of(headline: Config) -> list[Config]:
    """The variant configs of ``headline`` (``reference.variant_of``) beside it in ``variants/``, in file-name order."""
    assert headline.folder is not None  # a headline config is read from its file
    configs = map(load_config, sorted((headline.folder / VARIANTS_DIR).glob("*.yaml")))
    return [
        config for config in configs if config.reference is not None and config.reference.variant_of == headline.name
    ]


def split_aurocs(config: Config, results_root: Path) -> pd.DataFrame:
    """``run, method, trial, auroc`` of every finished cell of a paper method that ``config`` plans (empty if none).

    Records of cells the config no longer plans (a setting changed since) are left out.
    """
    directory = experiment_directory(config, results_root)
    records = stored_records(config, directory) if ResultStore(directory).exists() else []
    rows = [
        {"run": config.name, "method": r["entry"], "trial": r["trial"], "auroc": r["auroc"]}
        for r in records
        if r["status"] == "ok" and r["entry"] in METHOD_LABELS
    ]
    return pd.DataFrame(rows, columns=["run", "method", "trial", "auroc"])


def verdict(paper: float, tolerance: float, aurocs: pd.Series) -> dict:
    """Whether ``paper`` lies below every AUROC or above every AUROC by more than ``tolerance`` (``margin`` > 0)."""
    low, high = float(aurocs.min()), float(aurocs.max())
    margin = max(low - (paper + tolerance), (paper - tolerance) - high)
    return {
        "inconsistent": bool(margin > 0),
        "margin": margin,
        "low": low,
        "median": float(aurocs.median()),
        "high": high,
    }


def check_rows(headline: Config, aurocs: pd.DataFrame, references: list[dict]) -> list[dict]:
    """The check's rows for one headline config: one per paper method with an AUROC in the paper and in the runs."""
    reference = paper_reference(headline)
    refs = reference_values(references, paper=reference.paper, dataset=reference.dataset)
    rows = []
    for method, group in aurocs.groupby("method", sort=False):
        ref = refs.get((str(method), METRIC))
        if ref is None:
            continue
        rows.append(
            {
                "config": headline.name,
                "method": method,
                "metric": METRIC,
                "paper": ref["value"],
                "tolerance": ref["tolerance"],
                **verdict(ref["value"], ref["tolerance"], group["auroc"]),
                "splits": int(len(group)),
                "readings": ", ".join(dict.fromkeys(group["run"])),
            }
        )
    return rows


def consistency_frame(results_root: Path, config_paths: list[Path]) -> pd.DataFrame:
    """The check for every headline Das run found under ``results_root``, with the variants that ran."""
    references = references_of(config_paths)
    rows = []
    for headline in das_configs(config_paths, references):
        runs = [headline, *variants_of(headline)]
        aurocs = pd.concat([split_aurocs(config, results_root) for config in runs], ignore_index=True)
        rows += check_rows(headline, aurocs, references)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def consistency_markdown(frame: pd.DataFrame) -> str:
    """One line per dataset and method: the paper's AUROC against every split of every reading."""
    lines = [
        "# Das et al.: are the paper's AUROCs consistent with its protocol?",
        "",
        "Generated by `python -m reproductions analyse das` from the records of the headline runs and their variants "
        "(`reproductions/das/consistency.py` says how). *low / median / high*: over every split of the "
        "headline run and of every variant that ran the method (*readings*). *inconsistent*: the paper's value "
        "lies below every one of them, or above every one, by more than its tolerance (*margin*: by how much "
        "it clears the tolerance), so no split under any reading we ran comes within tolerance of it. This "
        "shows the value cannot come from the stated protocol only where the readings cover every choice the "
        "text leaves open; "
        "`reproductions/das/reference/deviations.yaml` names the check only under those deviations.",
        "",
        *markdown_table(
            [
                "config",
                "method",
                "paper",
                "tolerance",
                "ours: low / median / high",
                "inconsistent",
                "margin",
                "splits",
                "readings",
            ]
        ),
    ]
    for row in frame.itertuples():
        lines.append(
            f"| `{row.config}` | {row.method} | {row.paper:.3f} | {row.tolerance:.3f} | "
            f"{row.low:.3f} / {row.median:.3f} / {row.high:.3f} | {'**yes**' if row.inconsistent else 'no'} "
            f"| {row.margin:+.3f} | {row.splits} | {row.readings} |"
        )
    return "\n".join(lines) + "\n"


def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
    """``das_consistency.csv`` and ``das_consistency.md`` in ``results_root``."""
    results_root = Path(results_root)
    frame = consistency_frame(results_root, config_paths)
    return write_table(results_root, "das_consistency", frame, consistency_markdown(frame))
