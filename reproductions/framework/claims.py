"""The papers' claims with verdicts computed from stored runs: what the claims tables of REPORT.md and the papers'
own reports show.

A claim of a reproduction's ``reference/claims.yaml`` (:mod:`reproductions.framework.findings`) with a ``rule`` is a
list of comparisons; each comparison is one *case* per config it names and method it compares with, read from
that config's run folder (``trials.csv``, one row per trial; ``sweep_statistics.csv`` for a sweep statistic such
as ``auroc_q25``), never by running a cell. A case's outcome is one of :data:`OUTCOMES`:

* ``beats``: the two methods' values are paired by trial (the same split) and compared with the two-sided
  Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`), the test Demšar (2006, JMLR 7) recommends for
  two methods; p < :data:`~reproductions.framework.claim_outcomes.ALPHA` with the method ahead on the mean paired difference: ``holds``, with the method
  behind: ``fails``; otherwise ``tie`` (the tie rule: the trials do not separate them); ``not testable`` with
  fewer than six pairs (no p can reach :data:`~reproductions.framework.claim_outcomes.ALPHA`), ``not run`` with none. Where the two sides come from
  different runs (whose trial numbers are not the same splits) they are compared unpaired instead, with the
  two-sided Mann-Whitney U test (:func:`scipy.stats.mannwhitneyu`), ``not testable`` where the two samples are
  too small for any p to reach :data:`~reproductions.framework.claim_outcomes.ALPHA`;
* ``steadier``: the method's values vary less over the trials than the other's: the Brown-Forsythe test of equal
  spread (:func:`scipy.stats.levene`, deviations from the median; Brown & Forsythe 1974, JASA 69) with
  p < :data:`~reproductions.framework.claim_outcomes.ALPHA` and the method's standard deviation the smaller: ``holds``, the larger: ``fails``; otherwise
  ``tie`` (``not testable`` with fewer than two trials on a side or no p);
* ``close``: the means over the trials differ by at most the comparison's ``margin``: ``holds``, else ``fails``;
* ``faster``: the other method's mean time is at least ``factor`` times the method's: ``holds``, else ``fails``.

A case against a method whose run flags its model degenerate (``summary.csv``'s ``degenerate_reason``, e.g. a
Wang-Tanaka model with no components) is ``against a degenerate model`` whatever the test says: no win; the
case's text and ``claims.csv`` name the flag.

A case whose run folder, method or metric is missing is ``not run``. A claim's cases are combined per config
(dataset) first: it holds if all its cases hold, is contradicted if one fails. The claim's verdict is ``holds``
when every config holds, ``partly`` when some do, ``fails`` when none does and some is contradicted, ``not shown``
when none does and none is contradicted though some ran (ties, cases not testable or against a degenerate model:
the records do not separate the methods), ``not run`` when none ran. Verdicts are computed under the headline runs and, where a mapping ``readings`` (config stem
-> the variant stem of the table's chosen reading, None for the headline) names a variant for one of the claim's
configs, again on the variant's run (a method the variant did not re-run is read from the headline run, and
the case names both runs). A claim without a rule keeps its verdict by hand and is shown as such.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import pandas as pd

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory
from kpca_bench.experiment.store import write_atomic
from reproductions.framework.claim_outcomes import NOT_TESTABLE, number_text, case_outcome, most_outcome, side
from reproductions.framework.findings import CLAIMS_FILE, VERDICTS, Claim, Comparison, load_claims
from reproductions.framework.reference import reference_folder
from reproductions.framework.loader import Analysis, Reproduction, load_reproduction, trials_file
from kpca_bench.report.sweep import METRICS as SWEEP_METRICS
from kpca_bench.report.tables import degenerate_reasons, markdown_table

DEGENERATE = "against a degenerate model"
OUTCOMES = ("holds", "tie", NOT_TESTABLE, DEGENERATE, "fails", "not run")
TIE_RULE = (
    "A claim's verdict is computed from the runs' stored trials: *A beats B* holds where the two-sided "
    "Wilcoxon signed-rank test over the trials, paired by split, gives p < 0.05 with A ahead (Demšar 2006, "
    "JMLR 7; sides from different runs unpaired, with the Mann-Whitney U test), and is a **tie** where it "
    "does not separate them, **not testable** where too few trials allow no p < 0.05 (fewer than six "
    "pairs; a single split); *A is steadier than B* likewise with the Brown-Forsythe test of equal spread "
    "over the trials; *close* holds where the means differ by at most the claim's margin, *faster* where "
    "the time ratio reaches the claim's factor (each with its basis). A case against a model its run flags "
    "degenerate is no win. A claim's cases are combined per dataset (it holds if all its cases hold), then: "
    "*holds* on every dataset; *partly*: on some; *fails*: on none, and contradicted on some; "
    "**not shown**: on none, and contradicted on none (the records do not separate the methods). "
    "*not run*: the records are missing."
)
START, END = "<!-- claims:generated:start -->", "<!-- claims:generated:end -->"


def run_folders(reproductions: Mapping[str, Reproduction], results_root) -> dict[str, Path]:
    """Config stem -> its run folder in ``results_root``, for every config and variant of ``reproductions``."""
    paths = [path for r in reproductions.values() for path in [*r.config_paths(), *r.variant_paths()]]
    return {path.stem: experiment_directory(load_config(path), results_root) for path in paths}


@functools.cache
def _read_csv(path: Path, modified: float) -> pd.DataFrame:
    """A run's CSV file, read once per modification time."""
    return pd.read_csv(path)


def _csv(path: Path) -> pd.DataFrame | None:
    return _read_csv(path, path.stat().st_mtime) if path.exists() else None


SWEEP_STATISTICS = {metric: statistic for statistic, metric in SWEEP_METRICS.items()}
# Metrics stored per setting in a long table of the run (file, its setting columns): Kim's robustness protocol.
SETTING_METRICS = {"explained_variation": ("robustness.csv", ("width", "corruption"))}


def settings_of(folder: Path | None, metric: str, kept: Mapping[str, Sequence] = {}) -> list[dict]:
    """The settings (setting column -> value) the run ``folder`` stores ``metric`` for, those of ``kept`` only
    (column -> values kept); ``[{}]`` for a metric not stored per setting or a run without the file."""
    if metric not in SETTING_METRICS or folder is None:
        return [{}]
    name, columns = SETTING_METRICS[metric]
    table = _csv(Path(folder) / name)
    if table is None:
        return [{}]
    for column, values in kept.items():
        table = table[table[column].isin(values)]
    return [dict(zip(columns, values)) for values in table[list(columns)].drop_duplicates().itertuples(index=False)]


def setting_text(setting: Mapping) -> str:
    return ", ".join(f"{key} {value:g}" for key, value in setting.items())


def trial_values(folder: Path, metric: str, setting: Mapping = {}) -> pd.DataFrame | None:
    """Trial x method label -> ``metric`` in the run folder ``folder``: a column of its ``trials.csv`` (ok trials
    only), a sweep statistic of its ``sweep_statistics.csv``, or a metric stored per setting (``setting``:
    column -> value, :data:`SETTING_METRICS`, by entry); None if the folder holds none of them."""
    if metric in SETTING_METRICS:
        table = _csv(Path(folder) / SETTING_METRICS[metric][0])
        if table is None or not setting:
            return None
        rows = table[(table[list(setting)] == pd.Series(setting)).all(axis=1)]
        return rows.pivot_table(index="trial", columns="entry", values=metric, aggfunc="mean")
    if metric in SWEEP_STATISTICS:
        sweep = _csv(Path(folder) / "sweep_statistics.csv")
        if sweep is None:
            return None
        rows = sweep[sweep["statistic"] == SWEEP_STATISTICS[metric]]
        return rows.pivot_table(index="trial", columns="entry", values="auroc", aggfunc="mean")
    trials = _csv(trials_file(folder))
    if trials is None or metric not in trials.columns:
        return None
    rows = trials[trials["status"] == "ok"]
    return rows.pivot_table(index="trial", columns="method", values=metric, aggfunc="mean")


@dataclass(frozen=True)
class Case:
    """One comparison on one config: the method's and the other's values (means over trials) and the outcome.

    ``runs``: the run folders' names the two sides were read from; ``detail``: the test or bound behind the outcome,
    or why it did not run; ``degenerate``: the sides whose run flags their model degenerate (its summary.csv's
    ``degenerate_reason``), ``label: reason``, empty where none is.
    """

    config: str
    method: str
    other: str
    metric: str
    outcome: str
    ours: float = float("nan")
    theirs: float = float("nan")
    detail: str = ""
    runs: tuple[str, ...] = ()
    degenerate: str = ""
    setting: str = ""

    @property
    def where(self) -> str:
        """The config, with the setting of a metric stored per setting: what a claim's cases are combined over."""
        return f"{self.config} ({self.setting})" if self.setting else self.config


def _values(folders: Mapping[str, Path], stem: str, label: str, metric: str, setting: Mapping = {}) -> pd.Series | str:
    """The ``metric`` values of method ``label`` in the run of ``stem`` (at ``setting``), by trial; or why there
    are none."""
    folder = folders.get(stem)
    table = None if folder is None else trial_values(folder, metric, setting)
    if table is None:
        return f"no {metric} in the records of {stem}"
    if label not in table.columns:
        return f"no method {label!r} in the records of {stem}"
    values = table[label].dropna()
    return values if len(values) else f"no finished trial of {label!r} in {stem}"


def degenerate_reason(folders: Mapping[str, Path], stem: str, label: str, metric: str = "") -> str:
    """Why the run of ``stem`` flags method ``label``'s model degenerate (its ``summary.csv``), or ``""``; for a
    sweep statistic, why its value says nothing of the method: reached by constant-score cells alone in some
    trial (``sweep_statistics.csv``'s ``constant_only``)."""
    folder = folders.get(stem)
    if folder is not None and metric in SWEEP_STATISTICS:
        return constant_reason(Path(folder), label, SWEEP_STATISTICS[metric])
    summary = None if folder is None else _csv(Path(folder) / "summary.csv")
    return "" if summary is None else degenerate_reasons(summary).get(label, "")


def constant_reason(folder: Path, entry: str, statistic: str) -> str:
    """``constant scores: its best comes from constant-score cells alone in 9 of 10 trials``, or ``""``."""
    sweep = _csv(folder / "sweep_statistics.csv")
    if sweep is None or "constant_only" not in sweep:
        return ""
    rows = sweep[(sweep["entry"] == entry) & (sweep["statistic"] == statistic)]
    flagged = int(rows["constant_only"].astype(str).eq("True").sum())
    return (
        (
            f"constant scores: its {statistic} comes from cells whose every model parameter gave constant scores "
            f"alone in {flagged} of {len(rows)} trials"
        )
        if flagged
        else ""
    )


def kernel_table(folder: Path | None, label: str, metric: str) -> tuple[pd.DataFrame, pd.DataFrame] | str:
    """A sweep's ``metric`` of entry ``label`` per trial (rows) and kernel parameter value (columns), from the run's
    ``trials.csv`` (one row per cell), and which of those cells its record flags with constant scores; or why
    there is none."""
    trials = None if folder is None else _csv(trials_file(folder))
    if folder is None or trials is None or "entry" not in trials or metric not in trials:
        return f"no {metric} per kernel parameter in {folder}"
    rows = trials[(trials["entry"] == label) & (trials["status"] == "ok")]
    swept = [c for c in rows.columns if c.startswith("param_") and rows[c].nunique() > 1]
    if rows.empty or len(swept) != 1:
        return f"no sweep of {label!r} over one kernel parameter in {Path(folder).name}"
    flags = rows["degenerate"].astype(str).str.contains("constant scores") if "degenerate" in rows else False
    rows = rows.assign(constant=flags)
    values = rows.pivot_table(index="trial", columns=swept[0], values=metric, aggfunc="mean")
    return values, rows.pivot_table(index="trial", columns=swept[0], values="constant", aggfunc="max").astype(bool)


def evaluate_most(comparison: Comparison, config: str, other: str, folders: Mapping[str, Path]) -> Case:
    """One ``most`` case: the method against ``other`` at each kernel parameter value of ``config``'s sweep."""
    (label, ours_config), (other_label, theirs_config) = side(comparison.method, config), side(other, config)
    ours = kernel_table(folders.get(ours_config), label, comparison.metric)
    theirs = kernel_table(folders.get(theirs_config), other_label, comparison.metric)
    case = _Sides(
        config=config, method=label, other=other_label, metric=comparison.metric, runs=(ours_config, theirs_config)
    )
    missing = list(dict.fromkeys(found for found in (ours, theirs) if isinstance(found, str)))
    if missing:
        return Case(**case, outcome="not run", detail="; ".join(missing))
    assert not isinstance(ours, str) and not isinstance(theirs, str)  # else missing
    outcome, detail = most_outcome(ours[0], theirs[0], theirs[1], comparison.better)
    return Case(
        **case,
        outcome=outcome,
        detail=detail,
        ours=float(ours[0].stack().mean()),
        theirs=float(theirs[0].stack().mean()),
    )


def read_side(
    folders: Mapping[str, Path],
    config: str,
    label: str,
    metric: str,
    readings: Mapping[str, str | None],
    setting: Mapping = {},
) -> tuple[pd.Series | str, str]:
    """The ``metric`` values of ``label`` on ``config`` (at ``setting``) under ``readings``, and the run they come
    from: the reading's variant run, or the headline's where the variant has no such method (a variant re-runs only
    the methods its reading concerns)."""
    variant = readings.get(config)
    if variant:
        values = _values(folders, variant, label, metric, setting)
        if not isinstance(values, str):
            return values, variant
    return _values(folders, config, label, metric, setting), config


BOUND = "bound"


class _Sides(TypedDict):
    """What a :class:`Case` compares, its outcome aside (``Case(**sides, outcome=...)``)."""

    config: str
    method: str
    other: str
    metric: str
    runs: tuple[str, ...]


class _SidesAt(_Sides):
    setting: str


def evaluate_case(
    comparison: Comparison,
    config: str,
    other: str,
    folders: Mapping[str, Path],
    readings: Mapping[str, str | None],
    setting: Mapping = {},
) -> Case:
    """One case of ``comparison``: its method against ``other`` on ``config`` (at ``setting``, for a metric stored
    per setting), each side read from the run of its config's reading (``readings``; the headline where it names
    none, :func:`read_side`); against the comparison's bound where ``other`` is :data:`BOUND`."""
    if comparison.kind == "most":
        return evaluate_most(comparison, config, other, folders)
    (label, ours_config), (other_label, theirs_config) = side(comparison.method, config), side(other, config)
    ours, ours_run = read_side(folders, ours_config, label, comparison.metric, readings, setting)
    theirs: pd.Series | str
    if other == BOUND:
        theirs, theirs_run, other_label = (
            pd.Series([comparison.bound], dtype=float),
            ours_run,
            f"bound {comparison.bound:g}",
        )
    else:
        theirs, theirs_run = read_side(
            folders, theirs_config, other_label, comparison.than_metric or comparison.metric, readings, setting
        )
    missing = list(dict.fromkeys(found for found in (ours, theirs) if isinstance(found, str)))
    case = _SidesAt(
        config=config,
        method=label,
        other=other_label,
        metric=comparison.metric,
        runs=(ours_run, theirs_run),
        setting=setting_text(setting),
    )
    if missing:
        return Case(**case, outcome="not run", detail="; ".join(missing))
    assert not isinstance(ours, str) and not isinstance(theirs, str)  # else missing
    outcome, detail = case_outcome(comparison, ours, theirs, paired=ours_run == theirs_run)
    flags = {
        name: degenerate_reason(folders, run, name, comparison.metric)
        for name, run in ((label, ours_run), (other_label, theirs_run))
        if other != BOUND or name == label
    }
    if flags.get(other_label) and outcome != "not run":
        # a win over a model that measures nothing of its method (no components, constant scores, ...) is no win
        outcome, detail = DEGENERATE, f"{detail}; {outcome} before the flag"
    degenerate = "; ".join(f"{name}: {reason}" for name, reason in flags.items() if reason)
    return Case(
        **case,
        outcome=outcome,
        detail=detail,
        ours=float(ours.mean()),
        theirs=float(theirs.mean()),
        degenerate=degenerate,
    )


def evaluate_rule(
    claim: Claim, folders: Mapping[str, Path], readings: Mapping[str, str | None] = {}
) -> tuple[Case, ...]:
    """Every case of ``claim``'s rule: per comparison, per config it names (per setting, for a metric stored per
    setting), per method it compares with (the bound, for ``bound``)."""
    return tuple(
        evaluate_case(comparison, config, other, folders, readings, setting)
        for comparison in claim.rule
        for config in comparison.configs
        for setting in settings_of(folders.get(config), comparison.metric, comparison.settings)
        for other in (comparison.than or (BOUND,))
    )


NOT_SHOWN = "not shown"


def dataset_outcome(cases: Sequence[Case]) -> str:
    """One config's cases combined: ``holds`` if every case holds, ``fails`` if one is contradicted (a ``fails``
    case), ``not run`` if none ran, else ``not shown`` (ties, cases not testable or against a degenerate model:
    the records do not separate the methods)."""
    outcomes = [case.outcome for case in cases]
    if all(outcome == "not run" for outcome in outcomes):
        return "not run"
    if all(outcome == "holds" for outcome in outcomes):
        return "holds"
    return "fails" if "fails" in outcomes else NOT_SHOWN


def dataset_outcomes(cases: Sequence[Case]) -> dict[str, str]:
    """Config -> its cases combined (:func:`dataset_outcome`), in the cases' order."""
    configs = dict.fromkeys(case.where for case in cases)
    return {config: dataset_outcome([case for case in cases if case.where == config]) for config in configs}


def claim_verdict(cases: Sequence[Case]) -> str:
    """The cases combined per config first (:func:`dataset_outcome`), then: ``holds`` if every config holds,
    ``partly`` if some do, ``fails`` if none does and some is contradicted, ``not shown`` if none does and none is
    contradicted though some ran (the records do not separate the methods), else ``not run``."""
    outcomes = list(dataset_outcomes(cases).values())
    if not outcomes or all(outcome == "not run" for outcome in outcomes):
        return "not run"
    if all(outcome == "holds" for outcome in outcomes):
        return "holds"
    if "holds" in outcomes:
        return "partly"
    return "fails" if "fails" in outcomes else NOT_SHOWN


def _tally(cases: Sequence[Case]) -> str:
    """``1 of 2 datasets hold; cases: 3 of 4 hold (1 tie)`` (``settings`` where the cases are per setting)."""
    datasets = list(dataset_outcomes(cases).values())
    others = ", ".join(
        f"{sum(c.outcome == o for c in cases)} {o}" for o in OUTCOMES[1:] if any(c.outcome == o for c in cases)
    )
    unit = "settings" if cases and all(case.setting for case in cases) else "datasets"
    return (
        f"{datasets.count('holds')} of {len(datasets)} {unit} hold; cases: "
        f"{sum(c.outcome == 'holds' for c in cases)} of {len(cases)} hold" + (f" ({others})" if others else "")
    )


@dataclass(frozen=True)
class ClaimResult:
    """A claim with its cases under the headline runs and, where a reading differs, under the chosen readings.

    It reads like a :class:`~reproductions.framework.findings.Claim` (``paper``, ``claim``, ``configs``, ``analysis``,
    ``holds``, ``verdict``), with ``holds`` the verdict under the headline runs.
    """

    entry: Claim
    headline: tuple[Case, ...] = ()
    reading: tuple[Case, ...] = ()

    @property
    def paper(self) -> str:
        return self.entry.paper

    @property
    def claim(self) -> str:
        return self.entry.claim

    @property
    def configs(self) -> tuple[str, ...]:
        return self.entry.configs

    @property
    def analysis(self) -> str:
        return self.entry.analysis

    @property
    def computed(self) -> bool:
        """Whether the verdict comes from the records (the claim has a rule) rather than by hand."""
        return bool(self.entry.rule)

    @property
    def holds(self) -> str:
        """The verdict under the headline runs (by hand for a claim without a rule)."""
        return claim_verdict(self.headline) if self.computed else self.entry.holds

    @property
    def reading_holds(self) -> str | None:
        """The verdict under the chosen readings, None where no reading differs from the headline."""
        return claim_verdict(self.reading) if self.reading else None

    @property
    def verdict(self) -> str:
        """The verdict in a phrase: the cases' tally, or the verdict by hand."""
        return _tally(self.headline) if self.computed else f"by hand: {self.entry.verdict}"


def evaluate_claims(
    claims: Sequence[Claim], folders: Mapping[str, Path], readings: Mapping[str, str | None] = {}
) -> list[ClaimResult]:
    """Each claim with its cases under the headline and, where ``readings`` names a variant for one of its
    configs, under that reading (the rules: the module docstring)."""
    results = []
    for claim in claims:
        if not claim.rule:
            results.append(ClaimResult(claim))
            continue
        read = any(readings.get(stem) for stem in claim.configs)
        results.append(
            ClaimResult(claim, evaluate_rule(claim, folders), evaluate_rule(claim, folders, readings) if read else ())
        )
    return results


CLAIMS_CSV = "claims.csv"
READINGS_CSV = "readings.csv"


def claims_frame(claims: Sequence[ClaimResult]) -> pd.DataFrame:
    """One row per case of each claim, under the headline (``reading``: headline) and under the chosen readings
    (chosen), with the claim's verdict under each; a claim by hand is one row (by hand) with its verdict."""
    rows: list[dict[str, object]] = []
    for result in claims:
        base = {"paper": result.paper, "claim": result.claim}
        if not result.computed:
            rows.append({**base, "reading": "by hand", "verdict": result.holds, "detail": result.entry.verdict})
        for reading, cases in (("headline", result.headline), ("chosen", result.reading)):
            verdict = claim_verdict(cases)
            rows += [
                {
                    **base,
                    "reading": reading,
                    "verdict": verdict,
                    "config": case.config,
                    "method": case.method,
                    "other": case.other,
                    "metric": case.metric,
                    "ours": case.ours,
                    "theirs": case.theirs,
                    "outcome": case.outcome,
                    "detail": case.detail,
                    "runs": " / ".join(case.runs),
                    "degenerate": case.degenerate,
                    "setting": case.setting,
                }
                for case in cases
            ]
    columns = [
        "paper",
        "claim",
        "reading",
        "verdict",
        "config",
        "method",
        "other",
        "metric",
        "ours",
        "theirs",
        "outcome",
        "detail",
        "runs",
        "degenerate",
        "setting",
    ]
    return pd.DataFrame(rows, columns=columns)


def write_claims_csv(path, claims: Sequence[ClaimResult]) -> Path:
    """Write :func:`claims_frame` to ``path``: the verdicts as data beside the tables that show them."""
    write_atomic(Path(path), claims_frame(claims).to_csv(index=False))
    return Path(path)


UNASSESSED = ("not assessed", "not run")


def claims_held(claims: Sequence[ClaimResult]) -> tuple[int, int]:
    """``(claims that hold, claims assessed)``: a claim is assessed when it has a verdict, computed or by hand
    (not ``not assessed`` for want of a measure, not ``not run`` for want of records)."""
    assessed = [claim for claim in claims if claim.holds not in UNASSESSED]
    return sum(claim.holds == "holds" for claim in assessed), len(assessed)


def claims_tally(claims: Sequence[ClaimResult]) -> str:
    """``1 of 4 (3 partly)``: how many claims hold, and the other verdicts."""
    if not claims:
        return "–"
    others = [verdict for verdict in VERDICTS if verdict != "holds" and any(claim.holds == verdict for claim in claims)]
    detail = ", ".join(f"{sum(c.holds == v for c in claims)} {v}" for v in others)
    held = sum(claim.holds == "holds" for claim in claims)
    return f"{held} of {len(claims)}" + (f" ({detail})" if detail else "")


def case_text(case: Case) -> str:
    """``mnist: SKPCA 0.990 vs Wang-Tanaka 0.960 (auroc; 10 paired trials, Wilcoxon p = 0.002): holds``."""
    runs = "" if case.runs == (case.config, case.config) else f" [runs {' / '.join(dict.fromkeys(case.runs))}]"
    runs += f" ({case.setting})" if case.setting else ""
    if case.outcome == "not run":
        return f"`{case.config}`{runs}: {case.method} vs {case.other}: not run ({case.detail})"
    flagged = f"; degenerate model: {case.degenerate}" if case.degenerate else ""
    theirs = "" if case.other.startswith(f"{BOUND} ") else f" {number_text(case.theirs)}"
    return (
        f"`{case.config}`{runs}: {case.method} {number_text(case.ours)} vs {case.other}{theirs} "
        f"({case.metric}; {case.detail}{flagged}): {case.outcome}"
    )


def _verdict_cell(result: ClaimResult) -> str:
    holds = result.holds if result.holds == "holds" else f"**{result.holds}**"
    if not result.computed:
        return f"{holds}, {result.verdict}"
    reading = "" if result.reading_holds is None else f"; under the chosen readings: {result.reading_holds}"
    return f"{holds}: {result.verdict}{reading}"


def _numbers_cell(result: ClaimResult) -> str:
    if not result.computed:
        return result.entry.evidence
    cases = "; ".join(map(case_text, result.headline))
    changed = [case_text(case) for case, head in zip(result.reading, result.headline) if case.runs != head.runs]
    return (
        cases
        + (f". Under the chosen readings: {'; '.join(changed)}" if changed else "")
        + (f". {result.entry.evidence}" if result.entry.evidence else "")
    )


def _link(analysis: str) -> str:
    return f"[{analysis.split('#')[0]}]({analysis})" if analysis else ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def claims_table(claims: Sequence[ClaimResult], link_prefix: str = "") -> str:
    """The claims of a paper: the claim, where the paper makes it, the verdict and the numbers behind it.

    ``link_prefix`` is prepended to the analyses' links (relative to the results root), for a table written
    into a file below it.
    """
    rows = [
        map(
            _cell,
            (
                result.claim,
                result.entry.source,
                _verdict_cell(result),
                _numbers_cell(result),
                _link(link_prefix + result.analysis if result.analysis else ""),
            ),
        )
        for result in claims
    ]
    return "\n".join(
        markdown_table(["claim", "where the paper says it", "verdict", "the numbers behind it", "analysis"], rows)
    )


def claims_block(claims: Sequence[ClaimResult], link_prefix: str = "") -> str:
    """The claims section written into a paper's own report: the rule, then its claims table."""
    return "\n".join(
        [
            START,
            "## Claims: computed verdicts",
            "",
            "Generated by `python -m reproductions analyse` from the stored runs and the paper's "
            f"`reference/{CLAIMS_FILE}`. {TIE_RULE}",
            "",
            claims_table(claims, link_prefix),
            END,
        ]
    )


def write_claims_block(path, claims: Sequence[ClaimResult], link_prefix: str = "") -> Path:
    """Rewrite the claims block of the Markdown file ``path`` (appended where it has none), keeping the rest."""
    path = Path(path)
    block = claims_block(claims, link_prefix)
    text = path.read_text() if path.exists() else ""
    if START in text and END in text:
        text = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + ("\n\n" if text.strip() else "") + block + "\n"
    write_atomic(path, text)
    return path


def paper_claims(
    config_paths: Sequence[Path], results_root, readings: Mapping[str, str | None] = {}
) -> list[ClaimResult]:
    """The evaluated claims of the reproduction the configs ``config_paths`` belong to."""
    if not config_paths:
        raise KpcaBenchError("no config given: a paper's claims are found through its reproduction's configs")
    folder = reference_folder(config_paths[0])
    assert folder is not None, f"{config_paths[0]}: a paper's configs are in its reproduction's configs/ folder"
    reproduction = load_reproduction(folder.parent)
    folders = run_folders({reproduction.key: reproduction}, results_root)
    return evaluate_claims(load_claims(reproduction.reference_dir), folders, readings)


def stored_readings(results_root) -> dict[str, str | None]:
    """The tables' chosen readings ``python -m reproductions report`` wrote beside REPORT.md (:data:`READINGS_CSV`, every
    reading tried with ``chosen`` marking the table's; config stem -> variant stem, None for the headline), or
    none before its first report."""
    path = Path(results_root) / READINGS_CSV
    if not path.exists():
        return {}
    frame = pd.read_csv(path, keep_default_na=False)
    chosen = frame[frame["chosen"].astype(str) == "True"]
    return {row.table: None if row.reading == "headline" else row.reading for row in chosen.itertuples()}


def claims_analysis(report: str, readings: Mapping[str, str | None] | None = None) -> Analysis:
    """An analysis writing a paper's claims block into ``<results_root>/<report>``; a ``report`` with ``{config}``
    gets one file per config stem (where that file exists), each with the claims naming that config. The
    readings default to those REPORT.md chose (:func:`stored_readings`), so both show the same verdicts."""

    def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
        chosen = stored_readings(results_root) if readings is None else readings
        claims = paper_claims(config_paths, results_root, chosen)
        if "{config}" not in report:
            return [write_claims_block(Path(results_root) / report, claims)]
        written = []
        for stem in dict.fromkeys(stem for claim in claims for stem in claim.configs):
            path = Path(results_root) / report.format(config=stem)
            own = [claim for claim in claims if stem in claim.configs]
            if path.exists():
                written.append(write_claims_block(path, own, "../"))
        return written

    return analyse
