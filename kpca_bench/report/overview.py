"""``results/REPORT.md``: which of the papers' claims hold, at a glance.

Built from what is on disk alone, so it never re-runs anything:

* the papers' numbers, each reproduction's ``reference/numbers.yaml``, beside each
  full run's ``summary.csv``, paper by paper: a paper's configs are those of its
  reproduction folder (:mod:`kpca_bench.report.reproductions`), and name its numbers
  with ``reference: {paper, dataset}``;
* why numbers deviate, ``reference/deviations.yaml``, and the papers' claims,
  ``reference/claims.yaml`` (:mod:`kpca_bench.report.findings`; verdicts computed by
  :mod:`kpca_bench.report.claims`), in each
  reproduction's folder, each entry linking to the analysis it comes from;
* the figures of every run of a paper.

The report opens with one sentence (how many of the counted numbers the headline configs reproduce,
the range over the readings tried, how many are not explained, how many claims hold) and a compact
table, one row per paper, that fits a 1280 px screen; then the rules, the readings as a sensitivity
analysis (per table, the count under every reading tried, its range and its mean), the detailed
counts with each paper's main deviation, and per paper its table (each number's tolerance parts, its
outcome under the headline, its table's best reading chosen after the runs), its deviations (a number
no entry names is listed as not explained yet, and a table whose deviations point one way gets a
finding, :func:`kpca_bench.report.readings.one_direction`), its claims and its figures.

The counting rule is :mod:`kpca_bench.report.readings`'s: the headline is the count under the
headline configs, fixed before any result; a number is within when inside the statistical part of its
tolerance, and a number inside the floor only is counted apart. A variant counts as a reading only if
its paper's ``choices.yaml`` declares it with its source, and never when it only redraws the
headline's splits (:func:`declared_readings`). A section the report cannot build (a config whose
extra is not installed, a suite not run) is written as a line naming what is missing and how to get
it, and :func:`write_overview` returns it so that ``kpca-bench report`` exits non-zero.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path

import pandas as pd

from kpca_bench.datasets.files import present
from kpca_bench.datasets.locate import searched
from kpca_bench.datasets.registry import get_spec
from kpca_bench.errors import KpcaBenchError
from kpca_bench.report.compare import COMPARISON_COLUMNS, compare_with_papers, degenerate_line
from kpca_bench.report.claims import (CLAIMS_CSV, READINGS_CSV, TIE_RULE, claims_table, claims_tally, evaluate_claims,
                                     run_folders, write_claims_csv)
from kpca_bench.report.findings import (CLAIMS_FILE, DEVIATIONS_FILE, NOT_EXPLAINED, Claim, Deviation, load_claims,
                                       load_deviations)
from kpca_bench.report import readings
from kpca_bench.report.readings import (BY_CHECK, BY_CONSTRUCTION, BY_VARIANT, DEGENERATE, FLOOR_ONLY, HEADLINE,
                                        NOT_EXPLAINED as NOT_EXPLAINED_OUTCOME, NOT_RUN, WITHIN)
from kpca_bench.report.reference import declared_variants, diagnostic_variants, load_references, reference_folder
from kpca_bench.report.reproductions import DEFAULT_REPRODUCTIONS_DIR, Reproduction, load_reproductions
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory
from kpca_bench.experiment.store import write_atomic

Runs = list[tuple[Path, Config]]
COUNTING_RULE_DOC = "../docs/reproducing.md#the-counting-rule"
ONE_DIRECTION_DOC = "../docs/reproducing.md#deviations-that-point-one-way"


def paper_configs(reproductions: Mapping[str, Reproduction], claims: Sequence[Claim] = ()) -> dict[str, Runs]:
    """Paper -> the configs of its reproduction (a config belongs to a paper by its folder).

    Papers come in the order of ``reproductions`` (a reproduction without configs is left out),
    configs in file-name order; a paper with claims but no config has an empty list.
    """
    groups: dict[str, Runs] = {}
    for reproduction in reproductions.values():
        runs = [(path, load_config(path)) for path in reproduction.config_paths()]
        strays = [path.name for path, config in runs
                  if config.reference is not None and config.reference.paper != reproduction.reference]
        if strays:
            raise KpcaBenchError(f"{', '.join(strays)} in {reproduction.folder} name another paper than "
                                 f"{reproduction.reference!r} in reference.paper; move them to that paper's folder")
        if runs:
            groups[reproduction.reference] = runs
    stems = {path.stem for runs in groups.values() for path, _ in runs}
    unknown = sorted({stem for claim in claims for stem in claim.configs} - stems)
    if unknown:
        folders = ", ".join(sorted({str(r.folder.parent) for r in reproductions.values()}))
        raise KpcaBenchError(f"claims name configs that are not in {folders}/*/configs: {', '.join(unknown)}")
    for claim in claims:
        groups.setdefault(claim.paper, [])
    return groups


def own_entries(reproduction: Reproduction, entries: list, file: str) -> list:
    """``entries`` of ``reproduction``'s reference file ``file``, checked to name its own paper."""
    strays = sorted({entry.paper for entry in entries} - {reproduction.reference})
    if strays:
        raise KpcaBenchError(f"{reproduction.reference_dir / file} has entries of {', '.join(map(repr, strays))}; a "
                             f"reproduction's reference files hold its own paper's ({reproduction.reference!r}): "
                             "move them to that paper's folder")
    return entries


def all_claims(reproductions: Mapping[str, Reproduction]) -> list[Claim]:
    """Every reproduction's claims (its ``reference/claims.yaml``), reproduction by reproduction."""
    return [claim for r in reproductions.values()
            for claim in own_entries(r, load_claims(r.reference_dir), CLAIMS_FILE)]


def all_deviations(reproductions: Mapping[str, Reproduction]) -> list[Deviation]:
    """Every reproduction's deviations (its ``reference/deviations.yaml``), reproduction by reproduction."""
    return [deviation for r in reproductions.values()
            for deviation in own_entries(r, load_deviations(r.reference_dir), DEVIATIONS_FILE)]


def paper_config_paths(reproductions_dir=DEFAULT_REPRODUCTIONS_DIR) -> list[Path]:
    """Every config the report shows, in file-name order: what ``make all-figures`` runs."""
    reproductions = load_reproductions(Path(reproductions_dir))
    groups = paper_configs(reproductions, all_claims(reproductions))
    return sorted(path for runs in groups.values() for path, _ in runs)


def missing_data(config: Config) -> str | None:
    """Why ``config`` cannot run without a download (its dataset's files are not here), or None if it can."""
    spec = get_spec(config.dataset.name)
    if not spec.files or present(spec.name, spec.files):
        return None
    return (f"the files of dataset {spec.name!r} are not in {searched(spec.files[0].folder_of(spec.name))}; "
            f"'kpca-bench datasets fetch {spec.name}' downloads them")


def runnable_paper_configs(reproductions_dir=DEFAULT_REPRODUCTIONS_DIR) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The paper configs whose data are here, and the others, each with the reason it is skipped."""
    runnable, skipped = [], []
    for path in paper_config_paths(reproductions_dir):
        reason = missing_data(load_config(path))
        if reason is None:
            runnable.append(path)
        else:
            skipped.append((path, reason))
    return runnable, skipped


def heading_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


TOLERANCE_PARTS = ["statistical", "floor", "by_construction"]


def _comparison(results_root: Path, path: Path, config: Config) -> pd.DataFrame:
    """The paper's numbers beside the run's, with each tolerance's parts (``statistical``, ``floor``) and
    ``by_construction``; every number "not run" (ours NaN) if the run has no summary."""
    directory = experiment_directory(config, results_root)
    entries = [e for e in load_references(reference_folder(path))
               if e["paper"] == config.reference.paper and e["dataset"] == config.reference.dataset]
    try:
        table = compare_with_papers(path.as_posix(), config, directory)
    except KpcaBenchError:
        table = pd.DataFrame([{"config": path.as_posix(), "method": e["method"], "metric": e["metric"],
                               "reference": e["value"], "ours": float("nan"), "delta": float("nan"),
                               "tolerance": e["tolerance"], "ok": False} for e in entries], columns=COMPARISON_COLUMNS)
    parts = pd.DataFrame([{"method": e["method"], "metric": e["metric"], "statistical": e.get("statistical", float("nan")),
                           "floor": e.get("floor", float("nan")), "by_construction": e.get("by_construction", "")}
                          for e in entries], columns=["method", "metric", *TOLERANCE_PARTS])
    return table.merge(parts.drop_duplicates(["method", "metric"]), on=["method", "metric"], how="left")


def paper_comparison(results_root: Path, runs: Runs) -> pd.DataFrame:
    """Every number of the paper beside ours, over the runs that name paper numbers."""
    tables = [_comparison(results_root, path, config) for path, config in runs if config.reference is not None]
    if not tables:
        return pd.DataFrame(columns=[*COMPARISON_COLUMNS, *TOLERANCE_PARTS])
    return pd.concat(tables, ignore_index=True)


def stand_ins(runs: Runs) -> dict[str, str]:
    """Config stem -> how its data differ from the paper's, for the runs on stand-in data."""
    return {path.stem: config.reference.stand_in for path, config in runs
            if config.reference is not None and config.reference.stand_in}


def _cell(value: float, digits: int = 3) -> str:
    return "" if pd.isna(value) else f"{value:.{digits}f}"


def _reading_cells(row, verdict) -> list[str]:
    """The number's outcome under the headline, its table's best reading (chosen after the runs) and our value under
    it; blank readings for a stand-in row and for a number not counted."""
    if verdict is None:
        return ["shown, not counted", "", ""]
    if verdict.outcome == BY_CONSTRUCTION:
        return [f"{BY_CONSTRUCTION}: {row.by_construction}", "", ""]
    if verdict.outcome == DEGENERATE:
        return [f"**{DEGENERATE}**, not counted", "", ""]
    shown = verdict.outcome if verdict.outcome in (WITHIN, NOT_RUN) else f"**{verdict.outcome}**"
    if verdict.best_reading == HEADLINE:
        return [shown, HEADLINE, ""]
    under = "not run" if pd.isna(verdict.ours_under_best) else f"{verdict.ours_under_best:.3f}"
    return [shown, f"`{verdict.best_reading}`", under]


def _table(comparison: pd.DataFrame, stand_in: dict[str, str] | None = None,
           verdicts: pd.DataFrame | None = None) -> str:
    """The paper's numbers beside ours: the tolerance's parts, the number's outcome under the headline, and its
    table's best reading, chosen after the runs, with our value under it (``verdicts``,
    :func:`kpca_bench.report.readings.readings`; rows it lacks are stand-ins)."""
    lines = ["| config | method | metric | paper | ours | delta | statistical | floor | tolerance | outcome (headline) "
             "| best reading (after the runs) | ours under it |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    verdicts = pd.DataFrame(columns=["best_reading"]) if verdicts is None else verdicts
    for index, row in zip(comparison.index, comparison.itertuples()):
        ours = "not run" if pd.isna(row.ours) else f"{row.ours:.3f}"
        delta = "" if pd.isna(row.delta) else f"{row.delta:+.3f}"
        config = f"`{Path(row.config).stem}`" + (" (stand-in)" if Path(row.config).stem in (stand_in or {}) else "")
        degenerate = getattr(row, "degenerate", None)
        method = row.method + (f" **({degenerate.split(':')[0]})**" if isinstance(degenerate, str) and degenerate
                               else "")
        verdict = next(verdicts.loc[[index]].itertuples()) if index in verdicts.index else None
        cells = [config, method, row.metric, f"{row.reference:.3f}", ours, delta,
                 _cell(getattr(row, "statistical", float("nan")), 4), _cell(getattr(row, "floor", float("nan"))),
                 f"{row.tolerance:.3f}", *_reading_cells(row, verdict)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def stand_in_lines(stand_in: dict[str, str]) -> list[str]:
    """What each stand-in run's data are, under the table whose rows it marks."""
    return [f"Stand-in: `{stem}` runs the paper's protocol on other data than the paper's, so its numbers are not "
            f"the paper's experiment: {text}." for stem, text in stand_in.items()]


def not_holding(comparison: pd.DataFrame) -> pd.DataFrame:
    """The numbers outside tolerance or not run."""
    return comparison[~comparison["ok"].astype(bool)]


def explained_mask(deviation: Deviation, rows: pd.DataFrame) -> pd.Series:
    """Which of ``rows`` (comparison rows) ``deviation`` explains."""
    return pd.Series([deviation.explains(Path(row.config).stem, row.method, row.metric) for row in rows.itertuples()],
                     index=rows.index, dtype=bool)


def _fields(config: Config) -> dict:
    return {item.name: getattr(config, item.name) for item in fields(config)}


def declared_readings(reproduction: Reproduction) -> list[tuple[Path, Config]]:
    """The reproduction's variant runs that are readings of the paper, each with its config.

    A variant is refused, with one line naming it and the fix, where its paper's ``choices.yaml`` does not declare
    it with a source, or where it differs from its headline config only in ``seed`` or ``trials`` (a redraw of the
    headline's splits, :func:`kpca_bench.report.readings.only_redrawn`).
    """
    declared = declared_variants(reproduction.reference_dir)
    headlines = {path.stem: path for path in reproduction.config_paths()}
    found = []
    for path in reproduction.variant_paths():
        config = load_config(path)
        if config.reference is None or not config.reference.variant_of:
            continue
        if path.stem not in declared:
            raise KpcaBenchError(f"{path}: no entry of {reproduction.reference_dir / 'choices.yaml'} declares this "
                                 "variant with its source, so it is no reading of the paper; declare it there or "
                                 "remove it")
        headline = headlines.get(config.reference.variant_of)
        if headline is not None and readings.only_redrawn(_fields(load_config(headline)), _fields(config)):
            raise KpcaBenchError(f"{path}: differs from {headline.name} only in {' or '.join(readings.REDRAW_KEYS)}, "
                                 "a redraw of the headline's splits, not a reading of the paper; remove it")
        found.append((path, config))
    return found


def variant_comparisons(results_root: Path, reproductions: Mapping[str, Reproduction]) -> dict[str, pd.DataFrame]:
    """Variant stem -> its numbers beside the paper's (``config``: the headline stem it is a variant of), for the
    declared readings (:func:`declared_readings`); runs found only."""
    tables = {}
    for path, config in (pair for reproduction in reproductions.values() for pair in declared_readings(reproduction)):
        try:
            table = compare_with_papers(path.as_posix(), config, experiment_directory(config, results_root))
        except KpcaBenchError:
            continue
        tables[path.stem] = table.assign(config=config.reference.variant_of, variant=config.reference.variant)
    return tables


def check_results(results_root: Path, deviations: Sequence[Deviation]) -> dict[str, pd.DataFrame]:
    """Check file -> its rows (config, method, metric, inconsistent, ...), for the files the deviations name that exist."""
    files = dict.fromkeys(name for d in deviations for name in d.checks)
    return {name: pd.read_csv(Path(results_root) / name) for name in files if (Path(results_root) / name).exists()}


@dataclass(frozen=True)
class Evidence:
    """The variant runs and consistency checks the deviations point at, and the variants that are diagnostics."""

    variants: dict[str, pd.DataFrame]
    checks: dict[str, pd.DataFrame]
    diagnostic: frozenset[str] = frozenset()


NO_EVIDENCE = Evidence({}, {})


def _variant_row(table: pd.DataFrame | None, row) -> pd.Series | None:
    if table is None:
        return None
    hit = table[(table["config"] == Path(row.config).stem) & (table["method"] == row.method)
                & (table["metric"] == row.metric)].dropna(subset=["ours"])
    return hit.iloc[0] if len(hit) else None


def _check_rows(table: pd.DataFrame | None, row) -> pd.DataFrame | None:
    if table is None:
        return None
    hit = table[(table["config"] == Path(row.config).stem) & (table["method"] == row.method)
                & (table["metric"] == row.metric)]
    return hit if len(hit) else None


def _inconsistent(table: pd.DataFrame | None, row) -> bool:
    hit = _check_rows(table, row)
    return hit is not None and bool(hit["inconsistent"].astype(bool).all())


def _beyond(table: pd.DataFrame | None, row) -> bool:
    hit = _check_rows(table, row)
    return hit is not None and bool(readings.beyond_tolerance(hit).all())




def paper_checks(deviations: Sequence[Deviation], evidence: Evidence) -> list[pd.DataFrame]:
    """The rows of each check a deviation names, restricted to the numbers that deviation matches."""
    tables = []
    for deviation in deviations:
        for name in deviation.checks:
            if (table := evidence.checks.get(name)) is not None:
                tables.append(table[[deviation.explains(str(row.config), row.method, row.metric)
                                     for row in table.itertuples()]])
    return tables


def verdicts(comparison: pd.DataFrame, deviations: Sequence[Deviation], evidence: Evidence = NO_EVIDENCE) -> pd.DataFrame:
    """Per comparison row, its verdict under the headline and the readings (:func:`kpca_bench.report.readings.readings`)."""
    return readings.readings(comparison, evidence.variants, paper_checks(deviations, evidence), evidence.diagnostic)


def classify(comparison: pd.DataFrame, deviations: Sequence[Deviation], evidence: Evidence = NO_EVIDENCE) -> pd.Series:
    """Per comparison row, its outcome under the headline (one of :data:`kpca_bench.report.readings.OUTCOMES`)."""
    return verdicts(comparison, deviations, evidence)["outcome"]


def _count(n: int) -> str:
    return f"{n} number" if n == 1 else f"{n} numbers"


def _link(analysis: str) -> str:
    return f" [{analysis.split('#')[0]}]({analysis})" if analysis else ""


def deviation_bullet(deviation: Deviation, count: int, by_reading: int, by_check: int) -> str:
    """``- **numbers** (n numbers, r within under another reading, k explained by a check): cause. evidence
    [analysis]``."""
    evidence = f" {deviation.evidence}" if deviation.evidence else ""
    tally = f"{_count(count)}, {by_reading} {BY_VARIANT}, {by_check} {BY_CHECK}"
    return f"- **{deviation.numbers}** ({tally}): {deviation.cause}.{evidence}{_link(deviation.analysis)}"


def _mark(hit: pd.Series, row) -> str:
    """A variant's number, held to the headline number's statistical part: within, within the floor only, outside."""
    statistical = getattr(row, "statistical", float("nan"))
    frame = pd.DataFrame([{"delta": hit["delta"], "ok": bool(hit["ok"])}])
    if readings.inside_statistics(frame, pd.Series([statistical])).iloc[0]:
        return WITHIN
    return FLOOR_ONLY if bool(hit["ok"]) else "outside"


def tested_lines(deviation: Deviation, rows: pd.DataFrame, evidence: Evidence) -> list[str]:
    """Sub-bullets: what each variant and check gave for ``rows``, then the entry's other hypotheses tried."""
    lines = []
    for stem in deviation.variants:
        table = evidence.variants.get(stem)
        if table is None:
            lines.append(f"  - variant `{stem}`: not run")
            continue
        values = []
        for row in rows.itertuples():
            hit = _variant_row(table, row)
            if hit is not None:
                values.append(f"{row.method} {row.metric} {row.ours:.3f} → {hit['ours']:.3f} ({_mark(hit, row)})")
        reading = table["variant"].iloc[0] if len(table) else ""
        held = sum(v.endswith(f"({WITHIN})") for v in values)
        diagnostic = "; a diagnostic, never counted" if stem in evidence.diagnostic else ""
        lines.append(f"  - variant `{stem}` ({reading}{diagnostic}): {held} of {len(values)} within"
                     + (f": {'; '.join(values)}" if values else ""))
    for name in deviation.checks:
        table = evidence.checks.get(name)
        if table is None:
            lines.append(f"  - check `{name}`: not run")
            continue
        flagged = sum(_inconsistent(table, row) for row in rows.itertuples())
        beyond = sum(_beyond(table, row) for row in rows.itertuples())
        lines.append(f"  - check [{name.replace('.csv', '.md')}]({name.replace('.csv', '.md')}): the paper's value "
                     f"inconsistent with its protocol for {flagged} of {_count(len(rows))}, beyond tolerance of every "
                     f"reading's range (what explains a number) for {beyond}")
    lines += [f"  - tried: {text}" for text in deviation.tried]
    return lines or ["  - no variant or check tests this cause yet, so it explains none of these numbers"]


def _number(row, verdict) -> str:
    """``method metric``, with its outcome where it is not simply outside (not run, within the floor only, ...)."""
    if pd.isna(row.ours):
        return f"{row.method} {row.metric} (not run)"
    if verdict is not None and verdict.outcome != NOT_EXPLAINED_OUTCOME:
        return f"{row.method} {row.metric} ({verdict.outcome})"
    return f"{row.method} {row.metric}"


def unexplained_bullets(rows: pd.DataFrame, verdict_rows: pd.DataFrame | None = None) -> list[str]:
    """One bullet per config for the numbers no deviation entry names (``verdict_rows``: their verdicts)."""
    bullets = []
    for config, group in rows.groupby(rows["config"].map(lambda c: Path(c).stem), sort=False):
        numbers = ", ".join(_number(row, None if verdict_rows is None else next(verdict_rows.loc[[index]].itertuples()))
                            for index, row in zip(group.index, group.itertuples()))
        bullets.append(f"- **`{config}`: {numbers}** ({_count(len(group))}): {NOT_EXPLAINED}; no hypothesis "
                       "tested yet.")
    return bullets


def deviation_lines(comparison: pd.DataFrame, deviations: list[Deviation], evidence: Evidence = NO_EVIDENCE) -> list[str]:
    """The deviations list of a paper: entries that name some of its numbers, then the numbers none names.

    First the tables whose deviations point one way (:func:`one_direction_lines`, found by code). The numbers in
    question are those the headline does not hold within (within the floor only among them). Each entry tested by
    variants or checks says how many of its numbers another reading holds or a check explains, and lists what every
    variant and check gave for them.
    """
    found = verdicts(comparison, deviations, evidence)
    in_question = ~found["within_headline"] & ~found["outcome"].isin([BY_CONSTRUCTION, DEGENERATE])
    rows, found = comparison[in_question], found[in_question]
    outcome = found["outcome"]
    named = pd.Series(False, index=rows.index, dtype=bool)
    bullets = one_direction_lines(comparison)
    for deviation in deviations:
        mask = explained_mask(deviation, rows) & ~named
        if mask.any():
            bullets.append(deviation_bullet(deviation, int(mask.sum()), int((outcome[mask] == BY_VARIANT).sum()),
                                            int((outcome[mask] == BY_CHECK).sum())))
            bullets += tested_lines(deviation, rows[mask].dropna(subset=["ours"]), evidence)
            named |= mask
    return bullets + unexplained_bullets(rows[~named], found[~named])


def one_direction_lines(comparison: pd.DataFrame) -> list[str]:
    """A bullet per table whose deviations point one way beyond their standard error
    (:func:`kpca_bench.report.readings.one_direction`, its rule stated in the bullet)."""
    return [f"- **`{row.table}`: {row.same} of its {row.beyond} numbers beyond their standard error lie {row.direction} "
            f"the paper's** ({row.smallest:+.3f} to {row.largest:+.3f}; sign test p = {row.p:.2g}, a screen, as the "
            f"numbers share runs): a shift of the whole table, within or not, found by code ([the rule]"
            f"({ONE_DIRECTION_DOC})); no entry explains it unless one names it below."
            for row in readings.one_direction(comparison).itertuples()]


def main_deviation(comparison: pd.DataFrame, deviations: list[Deviation], claims: list[Claim]) -> str:
    """The deviation entry explaining the most numbers that ran and missed; else the first claim that does not fully hold."""
    ran = not_holding(comparison).dropna(subset=["ours"])
    count, top = max(((int(explained_mask(d, ran).sum()), d) for d in deviations), key=lambda pair: pair[0],
                     default=(0, None))
    if count:
        return f"{top.numbers}: {top.cause}"
    if len(ran):
        return f"{_count(len(ran))} outside tolerance: {NOT_EXPLAINED}"
    partial = [claim for claim in claims if claim.holds != "holds"]
    if partial:
        return f"{partial[0].claim}: {partial[0].holds}, {partial[0].verdict}"
    return "none"


def _figures(results_root: Path, runs: Runs) -> list[str]:
    lines = []
    for _, config in runs:
        directory = experiment_directory(config, results_root)
        for png in sorted(directory.glob("*.png")):
            lines.append(f"![{config.name}: {png.stem}]({png.relative_to(results_root).as_posix()})")
    return lines


def _analyses(deviations: list[Deviation], claims: list[Claim]) -> list[str]:
    """The analysis files the entries link to, each once, in order."""
    files = [entry.analysis.split("#")[0] for entry in [*deviations, *claims] if entry.analysis]
    return list(dict.fromkeys(files))


@dataclass(frozen=True)
class PaperFindings:
    """Everything the report shows for one paper.

    ``comparison`` holds the numbers of the runs on the paper's own data, the
    ones counted; ``stand_in_comparison`` those of runs on stand-in data
    (``reference.stand_in``), shown beside them but counted nowhere: other data
    are not the paper's experiment, so their numbers neither hold nor miss it.
    """

    paper: str
    runs: Runs
    comparison: pd.DataFrame
    deviations: list[Deviation]
    claims: list[Claim]
    evidence: Evidence = NO_EVIDENCE
    stand_in_comparison: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COMPARISON_COLUMNS))

    @cached_property
    def verdicts(self) -> pd.DataFrame:
        """Per comparison row, its verdict under the headline and the readings (:func:`verdicts`)."""
        return verdicts(self.comparison, self.deviations, self.evidence)

    @property
    def outcome(self) -> pd.Series:
        """Per comparison row, its outcome under the headline (:func:`classify`)."""
        return self.verdicts["outcome"]

    @cached_property
    def tried(self) -> pd.DataFrame:
        """Every reading of the paper's tables with its count (:func:`kpca_bench.report.readings.readings_tried`)."""
        return readings.readings_tried(self.comparison, self.evidence.variants, self.evidence.diagnostic)

    @cached_property
    def sensitivity(self) -> pd.DataFrame:
        """Per table, the headline count and its range and mean over the readings tried."""
        return readings.sensitivity(self.tried)


def paper_findings(results_root: Path, groups: dict[str, Runs], deviations: list[Deviation],
                   claims: list[Claim], evidence: Evidence = NO_EVIDENCE) -> list[PaperFindings]:
    """Per paper, in the order of ``groups``: its runs, its numbers beside ours, its deviations and claims."""
    findings = []
    for paper, runs in groups.items():
        comparison = paper_comparison(results_root, runs)
        on_stand_in = comparison["config"].map(lambda config: Path(config).stem in stand_ins(runs)).astype(bool)
        findings.append(PaperFindings(paper, runs, comparison[~on_stand_in], [d for d in deviations if d.paper == paper],
                                      [c for c in claims if c.paper == paper], evidence, comparison[on_stand_in]))
    return findings


COUNTS = ("counted", "within", "floor only", "low", "high", "mean", BY_VARIANT, BY_CHECK, "not explained",
          BY_CONSTRUCTION, DEGENERATE, NOT_RUN, "stand-in")


def glance_counts(found: PaperFindings) -> dict[str, float]:
    """The paper's counts, keyed as :data:`COUNTS`: the counted numbers; under the headline those within, within the
    floor only, within under another reading, explained by a check and not explained; the lowest, highest (best
    reading per table, chosen after the runs) and mean count over the readings tried, summed over its tables; the
    numbers not counted (equal by construction, on a degenerate model), not run, and on stand-in data."""
    outcome, spread = found.outcome, found.sensitivity
    return {"counted": int(readings.counted(found.comparison).sum()),
            "within": int((outcome == WITHIN).sum()), "floor only": int((outcome == FLOOR_ONLY).sum()),
            "low": int(spread["low"].sum()), "high": int(spread["high"].sum()), "mean": float(spread["mean"].sum()),
            **{key: int((outcome == key).sum())
               for key in (BY_VARIANT, BY_CHECK, "not explained", BY_CONSTRUCTION, DEGENERATE, NOT_RUN)},
            "stand-in": len(found.stand_in_comparison.dropna(subset=["ours"]))}


def total_counts(findings: Sequence[PaperFindings]) -> dict[str, float]:
    """:func:`glance_counts` summed over the papers."""
    counts = [glance_counts(found) for found in findings]
    return {key: sum(count[key] for count in counts) for key in COUNTS}


def _has_numbers(found: PaperFindings) -> bool:
    return bool(len(found.comparison) or len(found.stand_in_comparison.dropna(subset=["ours"])))


def _range(counts: Mapping[str, float]) -> str:
    return f"{counts['low']}–{counts['high']}"


def headline_sentence(findings: Sequence[PaperFindings]) -> str:
    """The report's first sentence: the headline count over the counted numbers, the range and mean over the
    readings tried, how many numbers are not explained and how many claims hold."""
    counts = total_counts(findings)
    claims = [claim for found in findings for claim in found.claims]
    excluded = counts[BY_CONSTRUCTION] + counts[DEGENERATE]
    return (f"Under the headline configs, fixed before any result, **{counts['within']} of {counts['counted']} counted "
            f"numbers** of the papers reproduce within their statistical tolerance ({counts['floor only']} more within "
            f"the floor only; {excluded} not counted: {counts[BY_CONSTRUCTION]} {BY_CONSTRUCTION}, "
            f"{counts[DEGENERATE]} {DEGENERATE}); over the readings tried per table the count ranges from "
            f"{counts['low']} to {counts['high']} (mean over readings {counts['mean']:.1f}; the best reading per "
            f"table, chosen after the runs, gives {counts['high']}); {counts['not explained']} numbers are not "
            f"explained; {sum(claim.holds == 'holds' for claim in claims)} of {len(claims)} claims hold.")


FIRST_TABLE = ["paper", "counted", "within (headline)", "within the floor only", "range over readings",
               "mean over readings", "not explained", "claims that hold"]


def first_table(findings: Sequence[PaperFindings]) -> str:
    """The compact opening table: per paper and in all, the headline count and what the sentence says."""
    def cells(counts: Mapping[str, float] | None, claims: str) -> list[str]:
        if counts is None:
            return ["–"] * (len(FIRST_TABLE) - 2) + [claims]
        return [str(counts["counted"]), str(counts["within"]), str(counts["floor only"]), _range(counts),
                f"{counts['mean']:.1f}", str(counts["not explained"]), claims]

    lines = ["| " + " | ".join(FIRST_TABLE) + " |", "|" + "---|" * len(FIRST_TABLE)]
    for found in findings:
        counts = glance_counts(found) if _has_numbers(found) else None
        lines.append("| " + " | ".join([f"[{found.paper}](#{heading_anchor(found.paper)})",
                                        *cells(counts, claims_tally(found.claims))]) + " |")
    claims = [claim for found in findings for claim in found.claims]
    total = cells(total_counts(findings), f"{sum(claim.holds == 'holds' for claim in claims)} of {len(claims)}")
    return "\n".join(lines + ["| **all papers** | " + " | ".join(total) + " |"])


DETAIL_TABLE = ["paper", "counted", "within (headline)", "within the floor only", BY_VARIANT, BY_CHECK,
                "not explained", "equal by construction (not counted)", "on a degenerate model (not counted)",
                NOT_RUN, "on stand-in data (not counted)", "main deviation"]


def detail_table(findings: Sequence[PaperFindings]) -> str:
    """Per paper every count under the headline, the numbers not counted and the main deviation."""
    keys = ["counted", "within", "floor only", BY_VARIANT, BY_CHECK, "not explained", BY_CONSTRUCTION, DEGENERATE,
            NOT_RUN, "stand-in"]
    lines = ["| " + " | ".join(DETAIL_TABLE) + " |", "|" + "---|" * len(DETAIL_TABLE)]
    for found in findings:
        counts = glance_counts(found) if _has_numbers(found) else None
        numbers = [str(counts[key]) for key in keys] if counts else ["–"] * len(keys)
        lines.append("| " + " | ".join([f"[{found.paper}](#{heading_anchor(found.paper)})", *numbers,
                                        main_deviation(found.comparison, found.deviations, found.claims)]) + " |")
    totals = total_counts(findings)
    return "\n".join(lines + ["| all papers | " + " | ".join(str(totals[key]) for key in keys) + " | |"])


COUNTS_CSV, ONE_DIRECTION_CSV = "counts.csv", "one_direction.csv"


def counts_frame(findings: Sequence[PaperFindings]) -> pd.DataFrame:
    """The counts the first sentence and tables show, as data: one row per paper with numbers and one for all papers
    (:data:`COUNTS`, and the claims that hold of the claims)."""
    def claims_of(claims) -> dict:
        return {"claims_hold": sum(claim.holds == "holds" for claim in claims), "claims": len(claims)}

    rows = [{"paper": found.paper, **glance_counts(found), **claims_of(found.claims)}
            for found in findings if _has_numbers(found)]
    rows.append({"paper": "all papers", **total_counts(findings),
                 **claims_of([claim for found in findings for claim in found.claims])})
    return pd.DataFrame(rows, columns=["paper", *COUNTS, "claims_hold", "claims"])


def one_direction_frame(findings: Sequence[PaperFindings]) -> pd.DataFrame:
    """Every paper's tables whose deviations point one way (:func:`kpca_bench.report.readings.one_direction`)."""
    frames = [readings.one_direction(found.comparison).assign(paper=found.paper) for found in findings]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def not_counted_lines(findings: Sequence[PaperFindings]) -> list[str]:
    """The numbers left out of the denominator, each named with why."""
    named = [f"`{Path(row.config).stem}` {row.method} {row.metric} ({verdict})"
             for found in findings for row, verdict in zip(found.comparison.itertuples(), found.outcome)
             if verdict in (BY_CONSTRUCTION, DEGENERATE)]
    return [f"Not counted ({len(named)}): " + "; ".join(named) + "."] if named else []


def sensitivity_table(findings: Sequence[PaperFindings]) -> str:
    """Per table, the headline count beside its count under every reading tried: how many readings, the lowest, the
    highest (the best reading, chosen after the runs) and the mean; then the totals."""
    frame = pd.concat([found.sensitivity for found in findings]) if findings else pd.DataFrame()
    lines = ["| table | counted | headline | readings tried | lowest | best reading (chosen after the runs) | "
             "mean over readings |", "|---|---|---|---|---|---|---|"]
    lines += [f"| `{row.table}` | {row.numbers} | {row.headline} | {row.readings} | {row.low} | {row.high} | "
              f"{row.mean:.1f} |" for row in frame.itertuples()]
    if len(frame):
        lines.append(f"| all tables | {frame['numbers'].sum()} | {frame['headline'].sum()} | {frame['readings'].sum()} "
                     f"| {frame['low'].sum()} | {frame['high'].sum()} | {frame['mean'].sum():.1f} |")
    return "\n".join(lines)


def numbers_summary(counts: Mapping[str, float], on_stand_in: int = 0) -> str:
    """The paper's counts (:func:`glance_counts`) in a sentence."""
    by_construction = counts[BY_CONSTRUCTION]
    return (f"{counts['counted']} counted numbers: {counts['within']} within under the headline, "
            f"{counts['floor only']} within the floor only; over the readings tried {_range(counts)} (mean "
            f"{counts['mean']:.1f}; the best reading per table, chosen after the runs: {counts['high']}); of the "
            f"others under the headline {counts[BY_VARIANT]} {BY_VARIANT}, {counts[BY_CHECK]} {BY_CHECK}, "
            f"{counts['not explained']} not explained"
            + (f"; {_count(by_construction)} {BY_CONSTRUCTION}, not counted" if by_construction else "")
            + (f"; {_count(counts[DEGENERATE])} {DEGENERATE}, not counted" if counts[DEGENERATE] else "")
            + (f"; {counts[NOT_RUN]} not run here" if counts[NOT_RUN] else "")
            + (f"; {_count(on_stand_in)} of runs on stand-in data shown, not counted" if on_stand_in else "") + ".")


def paper_section(results_root: Path, found: PaperFindings) -> str:
    """One paper: its numbers beside ours, why some do not hold, its claims, its figures."""
    lines = [f"## {found.paper}", ""]
    if len(found.comparison) or len(found.stand_in_comparison):
        stand_in = stand_ins(found.runs)
        shown = pd.concat([found.comparison, found.stand_in_comparison]).sort_index()
        lines += [numbers_summary(glance_counts(found), len(found.stand_in_comparison.dropna(subset=["ours"]))), "",
                  _table(shown, stand_in, found.verdicts), ""]
        lines += [line, ""] if (line := degenerate_line(shown)) else []
        if stand_in:
            lines += [*stand_in_lines(stand_in), ""]
        lines += readings_tried_lines(found)
        lines += ["### Deviations", ""]
        lines += deviation_lines(found.comparison, found.deviations, found.evidence) or ["None: every number holds."]
        lines.append("")
    else:
        lines += [f"No published numbers to compare; claims that hold: {claims_tally(found.claims)}.", ""]
    if found.claims:
        lines += ["### Claims", "", claims_table(found.claims), ""]
    analyses = _analyses(found.deviations, found.claims)
    if analyses:
        lines += ["Analyses: " + ", ".join(f"[{a}]({a})" for a in analyses) + ".", ""]
    figures = _figures(results_root, found.runs)
    if figures:
        lines += ["### Figures", "", *figures, ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class Section:
    """A section of REPORT.md: its Markdown, and what it lacks where it could not be built (empty where it was)."""

    text: str
    missing: str = ""


def suite_sections(results_root: Path, config_dir="configs") -> list[Section]:
    """A section per benchmark suite (a config naming several datasets): where kernel PCA stands (the suite report's
    ``headline.md``, numbers from its records) and its figures; for a config that cannot be loaded (an extra not
    installed) or a suite not run, a line naming what is missing and how to get it."""
    sections = []
    for path in sorted(Path(config_dir).glob("*.yaml")):
        try:
            config = load_config(path)
        except KpcaBenchError as error:
            missing = (f"{path} cannot be loaded ({error}); install what it imports (PyOD's detectors: "
                       'pip install "kpca-bench[pyod]") and run kpca-bench report again')
            sections.append(Section(f"## {path.stem}: not built\n\n{missing}.\n", missing))
            continue
        folder = results_root / config.name
        if not config.is_suite:
            continue
        if not (folder / "headline.md").exists():
            missing = f"{folder / 'headline.md'} is missing: the suite has not been run; kpca-bench run {path}"
            sections.append(Section(f"## Benchmark suite: {config.name}: not built\n\n{missing}.\n", missing))
            continue
        figures = [f"![{name}]({config.name}/{name})" for name in ("cd_auroc.png", "rank_heatmap_auroc.png",
                                                                    "auroc_box.png") if (folder / name).exists()]
        headline = (folder / "headline.md").read_text().strip()
        sections.append(Section("\n".join([
            f"## Benchmark suite: {config.name}", "", config.description, "", *([headline, ""] if headline else []),
            f"Per-dataset tables and the statistics across datasets: "
            f"[{config.name}/summary.md]({config.name}/summary.md).", "", *figures, ""])))
    return sections


def table_readings(findings: list[PaperFindings]) -> dict[str, str | None]:
    """Every paper's config stem -> its table's best reading, chosen after the runs: a variant stem, None for the
    headline (what the claims' "chosen readings" read)."""
    frame = pd.concat([found.tried for found in findings]) if findings else pd.DataFrame(columns=["table"])
    chosen = frame[frame["chosen"].astype(bool)] if len(frame) else frame
    return {row.table: None if row.reading == HEADLINE else row.reading for row in chosen.itertuples()}


def readings_tried_lines(found: PaperFindings) -> list[str]:
    """The paper's tables, each with every reading tried and how many of its numbers it holds within."""
    frame = found.tried
    if frame.empty or (frame["reading"] == HEADLINE).all():
        return []
    lines = ["### Readings tried", "", "Each table's readings and how many of its counted numbers each holds within "
             "its statistical tolerance: a sensitivity analysis beside the headline, which counts the headline "
             "alone. The best reading is marked: it is chosen after the runs and decides no count called a "
             "headline; a diagnostic reading is shown, never counted.", "",
             "| table | reading | within | best (chosen after the runs) |", "|---|---|---|---|"]
    for row in frame.itertuples():
        reading = "headline" if row.reading == HEADLINE else f"`{row.reading}`" + (" (diagnostic)" if row.diagnostic
                                                                                   else "")
        lines.append(f"| `{row.table}` | {reading} | {row.within} of {row.numbers} | {'**yes**' if row.chosen else ''} |")
    return lines + [""]


@dataclass(frozen=True)
class Overview:
    """What :func:`write_overview` wrote (``path``) and the sections it could not build, each in a line naming what
    is missing and how to get it."""

    path: Path
    missing: tuple[str, ...] = ()


def rules_lines() -> list[str]:
    """How REPORT.md counts, in a paragraph (the full rule: docs/reproducing.md)."""
    return [
        "## How the numbers are counted",
        "",
        f"Generated by `kpca-bench report` from the full-profile runs in this folder and each paper's reference "
        "files in `reproductions/<paper>/reference/`: its numbers (`numbers.yaml`, each with its source and the "
        "tolerance we hold ourselves to), why numbers deviate (`deviations.yaml`) and the papers' claims "
        f"(`claims.yaml`). The rule in full: [docs/reproducing.md]({COUNTING_RULE_DOC}).",
        "",
        "**The headline** is the count under the headline configs, which were fixed before any result; no choice "
        "made after the runs feeds it. A *table* is the numbers of one headline config (one Li dataset, one Wang "
        "table, one Das dataset, one SAS example). A number is *within* when it lies inside the statistical part of "
        "its tolerance (the sampling error of the paper's number); one inside the tolerance only by its floor is "
        "*within the floor only*, counted apart and never as within. The tolerance is the larger of the two parts, "
        "rounded up, never below either. Numbers equal by construction (`by_construction`) or resting on a "
        "degenerate model (no components, constant scores) are left out of the denominator and named below the "
        "detailed table. A run on stand-in data (other data than the paper's) is shown and counted nowhere.",
        "",
        "**Readings** are a sensitivity analysis beside the headline. A reading is a variant run "
        "(`reproductions/<paper>/configs/variants/`) that the paper's `choices.yaml` declares with its source; a "
        "variant it does not declare, or one that only changes the headline's seed or number of splits, is refused. "
        "Per table the report gives the count under every reading tried, the lowest, the highest and the mean; the "
        "highest is the *best reading per table, chosen after the runs*, and is labelled so wherever it appears. "
        "Diagnostic variants (`diagnostic: true`) are shown, never counted. Under the headline, a number outside "
        "is *within under another reading* where a counted reading of its table holds it, *explained by a check* "
        "where a consistency check a deviation entry names shows the paper's value inconsistent with its own "
        "protocol and beyond tolerance of every reading's range, and otherwise *not explained*; every such number "
        "lists the hypotheses tried with their results. A table whose deviations point one way beyond their "
        "standard error gets a finding in its deviations, found by code.",
        "",
        f"Claims (`claims.yaml`), each with where the paper makes it: {TIE_RULE} A claim no record can settle keeps a "
        f"verdict by hand and says so. Every case with its numbers: [{CLAIMS_CSV}]({CLAIMS_CSV}).",
        "",
    ]


def write_overview(results_root, config_dir="configs", reproductions_dir=DEFAULT_REPRODUCTIONS_DIR,
                   out=None) -> Overview:
    """Write ``REPORT.md`` of the runs in ``results_root`` (the papers of ``reproductions_dir``, the suites of
    ``config_dir``), with ``claims.csv``, ``readings.csv``, ``counts.csv`` (:func:`counts_frame`) and
    ``one_direction.csv`` beside it, into ``out`` (default ``results_root``; its
    figure links are relative to ``results_root``); return what was written and the sections that could not be
    built."""
    results_root = Path(results_root)
    out = results_root if out is None else Path(out)
    reproductions = load_reproductions(Path(reproductions_dir))
    deviations = all_deviations(reproductions)
    groups = paper_configs(reproductions, all_claims(reproductions))
    if not groups:
        raise KpcaBenchError(f"no reproduction in {reproductions_dir} has a config or a claim in its "
                             "reference/claims.yaml")
    diagnostic = frozenset().union(*(diagnostic_variants(r.reference_dir) for r in reproductions.values()))
    evidence = Evidence(variant_comparisons(results_root, reproductions), check_results(results_root, deviations),
                        diagnostic)
    findings = paper_findings(results_root, groups, deviations, all_claims(reproductions), evidence)
    claims = evaluate_claims(all_claims(reproductions), run_folders(reproductions, results_root),
                             table_readings(findings))
    findings = [replace(found, claims=[c for c in claims if c.paper == found.paper]) for found in findings]
    suites = suite_sections(results_root, config_dir)
    header = [
        "# kpca-bench reproduction report",
        "",
        headline_sentence(findings),
        "",
        first_table(findings),
        "",
        *rules_lines(),
        "## Readings: the headline's sensitivity",
        "",
        "Per table, the headline count beside the count under every counted reading tried (the headline among "
        "them): their number, the lowest, the best (chosen after the runs) and the mean.",
        "",
        sensitivity_table(findings),
        "",
        "## Every count, and each paper's main deviation",
        "",
        detail_table(findings),
        "",
        *[line for line in not_counted_lines(findings) for line in (line, "")],
        "Analyses: " + ", ".join(f"[{a}]({a})" for a in _analyses(deviations, claims)) + ".",
        "",
    ]
    body = [paper_section(results_root, found) for found in findings] + [section.text for section in suites]
    path = out / "REPORT.md"
    write_claims_csv(out / CLAIMS_CSV, claims)
    write_atomic(out / READINGS_CSV, pd.concat([found.tried for found in findings]).to_csv(index=False))
    write_atomic(out / COUNTS_CSV, counts_frame(findings).to_csv(index=False))
    write_atomic(out / ONE_DIRECTION_CSV, one_direction_frame(findings).to_csv(index=False))
    write_atomic(path, "\n".join(header + body))
    return Overview(path, tuple(section.missing for section in suites if section.missing))
