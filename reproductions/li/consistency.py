"""Li et al., Tables I-II: can the paper's RE and OCSVM rows come from its own protocol? A check from the records.

Three settings of the paper's grid give a score that does not depend on anything
the paper leaves open:

* the one-class SVM at the largest ``nu`` of the grid (0.99): with ``nu`` near 1
  almost every training point is a support vector with the same weight, so the
  score is the mean kernel similarity to the training points;
* the reconstruction error with ``p = 1``: ``||phi~(x)||^2`` minus one squared
  projection;
* the Mahalanobis distance with ``p = 1``: that squared projection over its
  variance (eq. 13), i.e. the test points ranked by their distance along the
  first kernel principal component.

The paper's best is the maximum AUROC over all its settings, so on the split it
was drawn from it cannot be below the *bound*: the largest AUROC of that one
setting over the paper's kernel parameters. Where the bound of every one of our
splits exceeds the paper's best, the paper's split would have to lie beyond all
of ours at a setting whose score is a plain kernel average; the row is then
taken as not coming from the stated protocol (our splits' spread stands for the
split-to-split variation the tolerance allows for elsewhere; ``beyond_tolerance``
says whether even the smallest bound clears the paper's best plus its
tolerance): the check flags the row's best directly,
and the row's other statistics, which the paper computed from the same settings,
with it (``basis``: ``direct`` or ``row``).

The same argument from below: the paper's minimum is the smallest AUROC over all
its settings, so on its split it cannot be above the *floor*, the smallest AUROC
of that one setting over the kernel parameters. Where the floor of every one of
our splits is below the paper's minimum, the check flags the minimum (``basis``
``floor``; ``beyond_tolerance``: even the largest floor is below the paper's
minimum minus its tolerance).

Our splits are random draws of the stated sizes, so a flag says that the row
cannot come from such a draw; the paper does not say its rows were drawn at
random, and rows taken in the data file's order (``dataset.draw: file_order``)
are a reading the check does not cover.

Writes ``li_consistency.csv`` (one row per dataset, method and statistic, the
columns the report reads: config, method, metric, paper, bound, tolerance,
inconsistent, basis) and ``li_consistency.md`` in the results root, from the
stored records of the headline runs only.

    python -m reproductions analyse li
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reproductions.framework.reference import paper_reference, reference_values, references_of
from kpca_bench.report.tables import markdown_table
from kpca_bench.report.sweep import METRICS, sweep_frame
from kpca_bench.experiment.planning import experiment_directory
from kpca_bench.experiment.store import ResultStore, write_table

from .tables import li_configs

COLUMNS = (
    "config",
    "method",
    "metric",
    "paper",
    "bound",
    "tolerance",
    "inconsistent",
    "beyond_tolerance",
    "basis",
    "setting",
    "bound_median",
    "bound_max",
    "floor_min",
    "floor_median",
    "floor_max",
    "splits",
)
# The setting each method is checked at: its column in auroc_by_model_param, in words.
SETTINGS = {"OCSVM": (-1, "nu = the grid's largest (0.99)"), "RE": (0, "p = 1"), "MD": (0, "p = 1")}


def at_setting(frame: pd.DataFrame, column: int) -> pd.DataFrame:
    """Per split: the largest (``bound``) and smallest (``floor``) AUROC over the kernel parameters at one setting."""
    aurocs = frame.assign(auroc=[aurocs[column] for aurocs in frame["aurocs"]])
    return aurocs.groupby("trial")["auroc"].agg(bound="max", floor="min")


def _verdict(metric: str, ref: dict, best: dict, bounds: pd.Series, floors: pd.Series) -> dict:
    """Whether the paper's ``metric`` is inconsistent: its row's best below every bound, or its minimum above every
    floor (``basis`` says which rule, ``tolerance`` is the one that rule's ``beyond_tolerance`` uses)."""
    if bounds.min() > best["value"]:
        return {
            "inconsistent": True,
            "beyond_tolerance": bool(bounds.min() > best["value"] + best["tolerance"]),
            "basis": "direct" if metric == "auroc_best" else "row",
            "tolerance": best["tolerance"],
        }
    if metric == "auroc_min" and floors.max() < ref["value"]:
        return {
            "inconsistent": True,
            "beyond_tolerance": bool(floors.max() < ref["value"] - ref["tolerance"]),
            "basis": "floor",
            "tolerance": ref["tolerance"],
        }
    return {"inconsistent": False, "beyond_tolerance": False, "basis": "", "tolerance": best["tolerance"]}


def check_rows(stem: str, method: str, splits: pd.DataFrame, refs: dict, setting: str) -> list[dict]:
    """The check's rows for one dataset and method: the best against the bounds (the row's statistics with it),
    the minimum against the floors."""
    best = refs.get((method, "auroc_best"))
    if best is None or splits.empty:
        return []
    bounds, floors = splits["bound"], splits["floor"]
    rows = []
    for metric in METRICS.values():
        ref = refs.get((method, metric))
        if ref is None:
            continue
        rows.append(
            {
                "config": stem,
                "method": method,
                "metric": metric,
                "paper": ref["value"],
                "bound": float(bounds.min()),
                **_verdict(metric, ref, best, bounds, floors),
                "setting": setting,
                "bound_median": float(bounds.median()),
                "bound_max": float(bounds.max()),
                "floor_min": float(floors.min()),
                "floor_median": float(floors.median()),
                "floor_max": float(floors.max()),
                "splits": int(bounds.size),
            }
        )
    return rows


def consistency_frame(results_root: Path, config_paths: list[Path]) -> pd.DataFrame:
    """The check for every headline Li run found under ``results_root`` (variants and runs not made are left out)."""
    references = references_of(config_paths)
    rows = []
    for config in li_configs(config_paths, references):
        reference = paper_reference(config)
        if reference.variant_of:
            continue
        directory = experiment_directory(config, results_root)
        if not ResultStore(directory).exists():
            continue
        stem = config.name  # the Li configs are named after their files
        frame = sweep_frame(config, [r for r in ResultStore(directory).load().values() if r["status"] == "ok"])
        refs = reference_values(references, paper=reference.paper, dataset=reference.dataset)
        for method, (column, setting) in SETTINGS.items():
            if frame.empty or method not in set(frame["entry"]):
                continue
            rows += check_rows(stem, method, at_setting(frame[frame["entry"] == method], column), refs, setting)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def consistency_markdown(frame: pd.DataFrame) -> str:
    """One line per dataset and method: the paper's best against our bounds, its minimum against our floors."""
    lines = [
        "# Li et al.: are the paper's rows consistent with its protocol?",
        "",
        "Generated by `python -m reproductions analyse li` from the records of the headline runs "
        "(`reproductions/li/consistency.py` says how). *bound*: per split, the largest AUROC over the "
        "paper's kernel parameters at the named setting; the paper's best cannot lie below the bound of its "
        "split. *floor*: the smallest. *inconsistent*: every split's bound is above the paper's best, so the "
        "paper's split would lie beyond all of ours and the row (its best directly, the other statistics with "
        "it) is taken as not coming from the stated protocol. *min inconsistent*: every split's floor is below the "
        "paper's minimum, which cannot lie above the floor of its split. *beyond tolerance*: even the "
        "extreme split clears the paper's value by its tolerance. Our splits are random draws of the "
        "paper's sizes, so a flag says the row cannot come from such a draw; the paper does not say its "
        "rows were drawn at random, and rows taken in the data file's order (the `*_file_order` "
        "variants) are a reading this check does not cover.",
        "",
        *markdown_table(
            [
                "config",
                "method",
                "setting",
                "paper's best",
                "bound over our splits: min / median / max",
                "best inconsistent",
                "paper's min",
                "floor: min / median / max",
                "min inconsistent",
                "splits",
            ]
        ),
    ]
    for (config, method), group in frame.groupby(["config", "method"], sort=False):
        best, low = (group[group["metric"] == m].iloc[0] for m in ("auroc_best", "auroc_min"))
        lines.append(
            f"| `{config}` | {method} | {best['setting']} | {best['paper']:.3f} | "
            f"{best['bound']:.3f} / {best['bound_median']:.3f} / {best['bound_max']:.3f} | "
            f"{_flag(best)} | {low['paper']:.3f} | "
            f"{best['floor_min']:.3f} / {best['floor_median']:.3f} / {best['floor_max']:.3f} | "
            f"{_flag(low) if low['basis'] == 'floor' else 'no'} | {best['splits']} |"
        )
    return "\n".join(lines) + "\n"


def _flag(row: pd.Series) -> str:
    if not row["inconsistent"]:
        return "no"
    return "**yes**" + (", beyond tolerance" if row["beyond_tolerance"] else "")


def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
    """``li_consistency.csv`` and ``li_consistency.md`` in ``results_root``."""
    results_root = Path(results_root)
    frame = consistency_frame(results_root, config_paths)
    return write_table(results_root, "li_consistency", frame, consistency_markdown(frame))
