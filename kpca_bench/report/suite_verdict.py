"""What a suite's statistics let it say: the verdict that leads its summary and the terminal's last lines, the
headline, where kernel PCA stands, and the lines of each metric's tests (Friedman, the critical difference, the
post-hoc groups, what Holm's correction can reach at this size)."""

from __future__ import annotations

from collections.abc import Sequence

from kpca_bench.experiment.config import Config
from kpca_bench.report import statistics
from kpca_bench.report.statistics import ALPHA

METRICS = {"auroc": "AUROC", "auprc": "AUPRC"}


POSTHOC_NAMES = {"nemenyi": "the Nemenyi test", "wilcoxon_holm": "Wilcoxon's signed-rank test with Holm's correction"}


def kernel_variants(config: Config) -> tuple[list[str], list[str]]:
    """Labels of the kernel-PCA variants and of the other detectors."""
    variants: list[str] = []
    detectors: list[str] = []
    for method in config.methods:
        labels = [method.setting_label(s) for s in method.settings()]
        (variants if method.spec().subspace else detectors).extend(labels)
    return variants, detectors


# Separated pairs named in a verdict; the rest are in the p-value files.
PAIRS_SHOWN = 5


POSTHOC_SHORT = {"nemenyi": "Nemenyi", "wilcoxon_holm": "Wilcoxon-Holm"}


def verdict(stats: dict, posthoc: str) -> str:
    """What the tests support, one sentence per metric (:func:`metric_verdict`): the first words of every
    suite verdict (terminal, ``headline.md``, ``summary.md``, the HTML page, ``Results.verdict``)."""
    return " ".join(
        text for metric, label in METRICS.items() if (text := metric_verdict(stats[metric], metric, label, posthoc))
    )


def metric_verdict(entry: dict, metric: str, label: str, posthoc: str) -> str:
    """One metric's verdict: "no detectable difference among the k methods at this size" with Friedman's p, or
    the pairs the post-hoc test separates; then the top mean rank, qualified by what the test says of it."""
    if "ranks" not in entry:
        return ""
    pairs, k = entry["separated"], len(entry["ranks"])
    friedman = f"Friedman p = {entry['friedman'].p_value:.3g}; " if "friedman" in entry else ""
    if pairs:
        shown = ", ".join(f"{a} / {b} (p = {p:.3g})" for a, b, p in pairs[:PAIRS_SHOWN])
        more = f" and {len(pairs) - PAIRS_SHOWN} more" if len(pairs) > PAIRS_SHOWN else ""
        lead = (
            f"{label}: {POSTHOC_SHORT[posthoc]} separates {len(pairs)} of {k * (k - 1) // 2} pairs of the {k} "
            f"methods on {entry['n_datasets']} datasets ({friedman}alpha {ALPHA}; better mean rank first): "
            f"{shown}{more} (all p-values: `posthoc_p_{metric}.csv`)"
        )
    elif "friedman" in entry and entry["friedman"].p_value < ALPHA:
        lead = (
            f"{label}: Friedman finds that the {k} methods do not all rank alike on {entry['n_datasets']} "
            f"datasets ({friedman.removesuffix('; ')}), but {POSTHOC_SHORT[posthoc]} separates no pair "
            f"(alpha {ALPHA})"
        )
    else:
        lead = (
            f"{label}: no detectable difference among the {k} methods at this size ({entry['n_datasets']} "
            f"datasets; {friedman}{POSTHOC_SHORT[posthoc]} separates no pair at alpha {ALPHA}"
            f"{out_of_reach(entry, posthoc)})"
        )
    return f"{lead}; {top_rank(entry)}."


def out_of_reach(entry: dict, posthoc: str) -> str:
    """``", and can separate none at this size: ..."`` when the post-hoc test's floor is above alpha, else ""."""
    k, n = len(entry["ranks"]), entry["n_datasets"]
    if posthoc == "nemenyi" and not statistics.nemenyi_can_separate(entry["cd"], k):
        return f", and can separate none at this size: its critical difference {entry['cd']:.2f} > {k - 1}"
    smallest = statistics.smallest_holm_p(n, k * (k - 1) // 2)
    if posthoc == "wilcoxon_holm" and smallest >= ALPHA:
        return f", and can separate none at this size: its smallest attainable p is {smallest:.3g}"
    return ""


def top_rank(entry: dict) -> str:
    """The method(s) of top mean rank, named with what the post-hoc test says of them: ``"top mean rank, not
    significant: A (5.14)"`` when the test separates them from no other method."""
    ranks, pairs = entry["ranks"], entry["separated"]
    top = [m for m in ranks.index if ranks[m] == ranks.iloc[0]]
    below = sorted({b for a, b, _ in pairs if a in top}, key=list(ranks.index).index)
    named = f"{', '.join(top)} ({ranks.iloc[0]:.2f})"
    if not below:
        return f"top mean rank, not significant: {named}"
    return f"top mean rank: {named}, separated from {len(below)} of the other {len(ranks) - len(top)} methods"


def headline(config: Config, stats: dict, flags: Sequence[str] = ()) -> str:
    """The suite's verdict (:func:`verdict`) first, then ``flags`` (lines a reader must see before any rank, such
    as fits that did not converge), then where the kernel-PCA variants stand (:func:`standing`)."""
    flags = [flag.rstrip(".") + "." for flag in flags]
    return " ".join(
        text for text in (verdict(stats, config.statistics.posthoc), *flags, standing(config, stats)) if text
    )


def standing(config: Config, stats: dict) -> str:
    """Where the kernel-PCA variants stand by mean AUROC rank, in numbers, with what the post-hoc test says."""
    entry = stats["auroc"]
    if "ranks" not in entry:
        return ""
    ranks, scores = entry["ranks"], entry["scores"]
    variants, detectors = kernel_variants(config)
    variants = [m for m in ranks.index if m in variants]
    detectors = [m for m in ranks.index if m in detectors]
    if not variants:
        return ""
    position = {m: i + 1 for i, m in enumerate(ranks.index)}
    parts = [
        f"Of the kernel-PCA variants, {variants[0]} has the top mean AUROC rank (rank {ranks[variants[0]]:.2f}, "
        f"{position[variants[0]]} of {len(ranks)}; mean AUROC {scores[variants[0]].mean():.3f})"
    ]
    if detectors:
        best = detectors[0]
        parts.append(f"of the other detectors, {best} (rank {ranks[best]:.2f}, mean AUROC {scores[best].mean():.3f})")
    if "p_values" in entry:
        parts.append(not_separated_from(variants[0], entry, config.statistics.posthoc))
    wilcoxon = entry.get("wilcoxon")
    if wilcoxon is not None and variants and detectors:
        pair = wilcoxon[
            ((wilcoxon["method_a"] == variants[0]) & (wilcoxon["method_b"] == detectors[0]))
            | ((wilcoxon["method_a"] == detectors[0]) & (wilcoxon["method_b"] == variants[0]))
        ]
        if len(pair):
            row = pair.iloc[0]
            parts.append(
                f"Wilcoxon-Holm {variants[0]} vs {detectors[0]}: p = {row['p_holm']:.2g}"
                + (" (significant)" if row["significant"] else " (not significant)")
            )
    return "; ".join(p for p in parts if p) + "."


def not_separated_from(method: str, entry: dict, posthoc: str) -> str:
    """How many other methods the config's post-hoc test does not separate from ``method`` (p >= alpha)."""
    p_values = entry["p_values"]
    others = [m for m in entry["ranks"].index if m != method]
    apart = [m for m in others if p_values.loc[method, m] < ALPHA]
    lead = (
        f"the Nemenyi critical difference (alpha {ALPHA}) is {entry['cd']:.2f} ranks, so "
        if posthoc == "nemenyi"
        else ""
    )
    by = f"by {POSTHOC_NAMES[posthoc]} (alpha {ALPHA})"
    if not apart:
        return f"{lead}none of the other {len(others)} methods is significantly apart from {method} {by}"
    if len(apart) == len(others):
        return f"{lead}all {len(others)} other methods are significantly apart from {method} {by}"
    verb = "is" if len(apart) == 1 else "are"
    return f"{lead}{len(apart)} of the other {len(others)} methods {verb} significantly apart from {method} {by}"


def holm_reach(n_datasets: int, n_pairs: int) -> str:
    """What Holm's correction can find at this size: the smallest attainable adjusted p, and whether it is
    below :data:`ALPHA`."""
    smallest = statistics.smallest_holm_p(n_datasets, n_pairs)
    text = (
        f"With {n_datasets} datasets and {n_pairs} pairs, the smallest attainable Holm-adjusted p is {n_pairs} x "
        f"{statistics.smallest_wilcoxon_p(n_datasets):.3g} = {smallest:.3g} (every difference of one sign; "
        "the two-sided signed-rank test as scipy computes it: exact up to 50 datasets without tied or zero "
        "differences; with them, exact up to 13 datasets and the normal approximation from 14 on)"
    )
    if smallest >= ALPHA:
        return text + f": **no pair can be significant at this size** (alpha {ALPHA})."
    return text + f", below alpha {ALPHA}."


def statistics_lines(entry: dict, metric: str, label: str, posthoc: str) -> list[str]:
    """Friedman, the Nemenyi critical difference against the largest possible rank gap, and the groups of the
    post-hoc test, for one metric."""
    lines = []
    if "friedman" in entry:
        f = entry["friedman"]
        lines.append(
            f"- {label}: Friedman chi2 = {f.statistic:.2f}, p = {f.p_value:.3g}; Iman-Davenport F = "
            f"{f.iman_davenport:.2f}, p = {f.iman_davenport_p:.3g}; {f.n_methods} methods, "
            f"{f.n_datasets} datasets"
        )
    if "cd" in entry:
        k = entry["scores"].shape[1]
        text = (
            f"- {label}: Nemenyi critical difference {entry['cd']:.3f} ranks (alpha {ALPHA}); the largest "
            f"possible gap of average ranks with {k} methods is {k - 1}"
        )
        lines.append(
            text
            + (
                ""
                if statistics.nemenyi_can_separate(entry["cd"], k)
                else ": **no pair can be significant at this size** by Nemenyi"
            )
        )
    if "groups" in entry:
        groups = "; ".join("{" + ", ".join(group) + "}" for group in entry["groups"])
        lines.append(
            f"- {label}: the diagram's bars join the longest runs of methods, consecutive in rank order, that "
            f"{POSTHOC_NAMES[posthoc]} does not separate (alpha {ALPHA}): {len(entry['groups'])} groups "
            f"(`cd_groups_{metric}.csv`; p-values: `posthoc_p_{metric}.csv`): {groups}"
        )
    return lines
