"""The test behind each kind of claim comparison, over two sides' values per trial: an outcome (``holds``, ``tie``,
``not testable``, ``fails``) and the numbers that give it (:mod:`reproductions.framework.claims` reads the sides from the
runs and combines the outcomes into a claim's verdict)."""

from __future__ import annotations

import math

import pandas as pd
from scipy.stats import levene, mannwhitneyu, wilcoxon

from reproductions.framework.findings import Comparison
from kpca_bench.report.statistics import smallest_wilcoxon_p

ALPHA = 0.05
NOT_TESTABLE = "not testable"


def side(label: str, config: str) -> tuple[str, str]:
    """The method label and config stem ``label`` names in a case on ``config`` (``label@config`` names another)."""
    name, at, other = label.rpartition("@")
    return (name, other) if at else (label, config)


def number_text(value: float) -> str:
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def _smallest_p_unpaired(n: int, m: int) -> float:
    """The smallest two-sided p the exact Mann-Whitney U test can give over samples of ``n`` and ``m``: no overlap."""
    return 2 / math.comb(n + m, n)


def paired_outcome(ours: pd.Series, theirs: pd.Series, better: str) -> tuple[str, str]:
    """``beats``: the outcome of the paired Wilcoxon signed-rank test over the trials both have, and its detail:
    ``not run`` where they have no trial in common, ``not testable`` where there are too few pairs for any p to
    reach :data:`ALPHA` (fewer than six)."""
    paired = pd.concat([ours, theirs], axis=1, join="inner").dropna()
    if paired.empty:
        return "not run", "no trial in common"
    if smallest_wilcoxon_p(len(paired)) >= ALPHA:
        return NOT_TESTABLE, f"{len(paired)} paired trials: too few for the Wilcoxon test to reach p < {ALPHA:g}"
    ahead = (paired.iloc[:, 0] - paired.iloc[:, 1]) * (1 if better == "higher" else -1)
    if not (ahead != 0).any():
        return "tie", f"{len(paired)} paired trials, all equal"
    p = float(wilcoxon(ahead).pvalue)
    detail = f"{len(paired)} paired trials, Wilcoxon p = {p:.3g}"
    if p >= ALPHA:
        return "tie", detail
    return ("holds" if ahead.mean() > 0 else "fails"), detail


def unpaired_outcome(ours: pd.Series, theirs: pd.Series, better: str) -> tuple[str, str]:
    """``beats`` where the two sides come from different runs (whose trials are not the same splits): the
    two-sided Mann-Whitney U test of the two samples, unpaired; ``not testable`` where the samples are too small
    for any p to reach :data:`ALPHA`."""
    n, m = len(ours), len(theirs)
    if _smallest_p_unpaired(n, m) >= ALPHA:
        return (
            NOT_TESTABLE,
            f"{n} and {m} trials from different runs, unpaired: too few for the Mann-Whitney U "
            f"test to reach p < {ALPHA:g}",
        )
    test = mannwhitneyu(ours, theirs, alternative="two-sided")
    p = float(test.pvalue)
    detail = f"{n} and {m} trials from different runs, unpaired, Mann-Whitney U p = {p:.3g}"
    # U counts the pairs (one value of each side) where ours is the larger: above n m / 2, ours tends higher
    ahead = (float(test.statistic) - n * m / 2) * (1 if better == "higher" else -1)
    if p != p or p >= ALPHA or ahead == 0:
        return "tie", detail
    return ("holds" if ahead > 0 else "fails"), detail


def _constant(values: pd.Series) -> bool:
    """Whether ``values`` do not vary beyond rounding."""
    return bool(values.std() <= 1e-12 * max(1.0, float(values.abs().max())))


def spread_outcome(ours: pd.Series, theirs: pd.Series) -> tuple[str, str]:
    """``steadier``: the outcome of the Brown-Forsythe test of equal spread over the trials, and its detail;
    ``not testable`` with fewer than two trials on a side or no p."""
    if min(len(ours), len(theirs)) < 2:
        return NOT_TESTABLE, f"{len(ours)} and {len(theirs)} trials: a spread needs two on each side"
    if _constant(ours) and _constant(theirs):
        return "tie", "no spread in either"
    p = float(levene(ours, theirs, center="median").pvalue)
    detail = (
        f"std {ours.std():.3f} vs {theirs.std():.3f} over {len(ours)} and {len(theirs)} trials, "
        f"Brown-Forsythe p = {p:.3g}"
    )
    if p != p:
        return NOT_TESTABLE, detail
    if p >= ALPHA:
        return "tie", detail
    return ("holds" if ours.std() < theirs.std() else "fails"), detail


def bound_outcome(comparison: Comparison, ours: pd.Series, theirs: pd.Series) -> tuple[str, str]:
    """``close`` / ``faster``: the outcome of the means' difference or ratio against the comparison's bound."""
    trials = f"{len(ours)} and {len(theirs)} trials"
    if comparison.kind == "close":
        assert comparison.margin is not None  # load_claims checks that a close comparison has one
        gap = abs(ours.mean() - theirs.mean())
        return (
            "holds" if gap <= comparison.margin else "fails"
        ), f"{trials}, |difference| {gap:.3f}, margin {comparison.margin:g}"
    assert comparison.factor is not None  # load_claims checks that a faster comparison has one
    ratio = theirs.mean() / ours.mean()
    return (
        "holds" if ratio >= comparison.factor else "fails"
    ), f"{trials}, time ratio {ratio:.2f}, needs {comparison.factor:g}"


def not_worse_outcome(ours: pd.Series, theirs: pd.Series, better: str, paired: bool = True) -> tuple[str, str]:
    """``not_worse`` (a paper's "competitive"): ``beats``'s test the other way round: ``fails`` where the other is
    ahead with p < :data:`ALPHA`, ``holds`` where it is not (the method ahead, or the trials do not separate them)."""
    outcome, detail = (paired_outcome if paired else unpaired_outcome)(ours, theirs, better)
    return ("holds" if outcome == "tie" else outcome), detail


def bound_value_outcome(comparison: Comparison, ours: pd.Series) -> tuple[str, str]:
    """``bound``: ``holds`` where every trial's value is beyond the comparison's ``bound`` (below it for
    ``better: lower``, above it for ``higher``), else ``fails``, with the trials beyond it counted."""
    beyond = ours < comparison.bound if comparison.better == "lower" else ours > comparison.bound
    sign, extreme = ("<", ours.max()) if comparison.better == "lower" else (">", ours.min())
    detail = (
        f"{int(beyond.sum())} of {len(ours)} trials {sign} {comparison.bound:g} "
        f"({'largest' if sign == '<' else 'smallest'} {number_text(float(extreme))})"
    )
    return ("holds" if beyond.all() else "fails"), detail


def case_outcome(comparison: Comparison, ours: pd.Series, theirs: pd.Series, paired: bool = True) -> tuple[str, str]:
    """The outcome of ``comparison`` on the two methods' values by trial, and the test or bound behind it;
    ``paired``: whether both sides come from the same run (their trials the same splits)."""
    if comparison.kind == "beats":
        return (paired_outcome if paired else unpaired_outcome)(ours, theirs, comparison.better)
    if comparison.kind == "not_worse":
        return not_worse_outcome(ours, theirs, comparison.better, paired)
    if comparison.kind == "steadier":
        return spread_outcome(ours, theirs)
    if comparison.kind == "bound":
        return bound_value_outcome(comparison, ours)
    return bound_outcome(comparison, ours, theirs)


def most_outcome(ours: pd.DataFrame, theirs: pd.DataFrame, constant: pd.DataFrame, better: str) -> tuple[str, str]:
    """``most``: per trial, the share of kernel parameter values at which the method is ahead of the other, leaving
    out the values where the other's cell has constant scores (no win over a model that ranks nothing):
    ``holds`` where it is ahead at more than half of them in every trial, ``fails`` where at no more than half in
    every trial, else ``tie`` (the trials disagree)."""
    ahead = (ours - theirs) * (1 if better == "higher" else -1) > 0
    compared = ours.notna() & theirs.notna() & ~constant.reindex_like(theirs).fillna(False).astype(bool)
    shares = (ahead & compared).sum(axis=1) / compared.sum(axis=1)
    shares = shares[compared.sum(axis=1) > 0]
    if shares.empty:
        return "not run", "no kernel parameter value with both sides"
    left_out = int((ours.notna() & theirs.notna()).sum(axis=1).max() - compared.sum(axis=1).min())
    detail = (
        f"ahead at {shares.min():.0%}-{shares.max():.0%} of {int(compared.sum(axis=1).max())} kernel parameter "
        f"values in {len(shares)} trials"
        + (f" (up to {left_out} beside a constant-score cell left out)" if left_out else "")
    )
    if (shares > 0.5).all():
        return "holds", detail
    return ("fails" if (shares <= 0.5).all() else "tie"), detail
