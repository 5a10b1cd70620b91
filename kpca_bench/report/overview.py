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

The report opens with one row per paper (numbers compared; within tolerance under the headline,
under one reading per table, under one reading per paper, on the statistical part of the tolerance
alone and under any reading per number; explained by a check; not explained; equal by construction;
on a degenerate model; not run; numbers of runs on stand-in data, which are shown but not counted; claims that hold; the
main deviation); then per paper its table (each number's tolerance parts, its table's reading and
its outcome under it), its deviations (a number no entry names is listed as not explained yet), its
claims and its figures.

The counting rule, one reading per table, is :mod:`kpca_bench.report.readings`'s: a number counts as
reproduced when its table's one reading (the headline or one variant run, the one bringing most of
the table's numbers within tolerance) holds it within tolerance, or as explained when a consistency
check a deviation entry names shows the paper's value beyond tolerance of every reading. A cause
that no variant or check tests explains nothing. Every number not explained lists what was tried:
each variant's value for it, each check's verdict, and the entry's ``tried``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
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
from kpca_bench.report.readings import BY_CHECK, BY_CONSTRUCTION, BY_VARIANT, DEGENERATE, HEADLINE, NOT_RUN, WITHIN
from kpca_bench.report.reference import diagnostic_variants, load_references, reference_folder
from kpca_bench.report.reproductions import DEFAULT_REPRODUCTIONS_DIR, Reproduction, load_reproductions
from kpca_bench.experiment.config import Config, load_config
from kpca_bench.experiment.runner import experiment_directory
from kpca_bench.experiment.store import write_atomic

Runs = list[tuple[Path, Config]]
COUNTING_RULE_DOC = "../docs/reproducing.md#the-counting-rule"


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
    """The table's reading, our value under it and the number's outcome; blank for a stand-in row."""
    if verdict is None:
        return ["", "", "shown, not counted"]
    if verdict.outcome == BY_CONSTRUCTION:
        return ["", "", f"{BY_CONSTRUCTION}: {row.by_construction}"]
    if verdict.outcome == DEGENERATE:
        return ["", "", f"**{DEGENERATE}**, not counted"]
    reading = HEADLINE if verdict.reading == HEADLINE else f"`{verdict.reading}`"
    under = "" if verdict.reading == HEADLINE else ("not run" if pd.isna(verdict.ours_under_reading)
                                                   else f"{verdict.ours_under_reading:.3f}")
    shown = verdict.outcome if verdict.outcome in (WITHIN, NOT_RUN, BY_VARIANT) else f"**{verdict.outcome}**"
    return [reading, under, shown]


def _table(comparison: pd.DataFrame, stand_in: dict[str, str] | None = None,
           verdicts: pd.DataFrame | None = None) -> str:
    """The paper's numbers beside ours: the tolerance's parts, the headline's verdict, the table's reading and the
    number's outcome under it (``verdicts``, :func:`kpca_bench.report.readings.readings`; rows it lacks are stand-ins)."""
    lines = ["| config | method | metric | paper | ours | delta | statistical | floor | tolerance | holds (headline) "
             "| table's reading | ours under it | outcome |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    verdicts = pd.DataFrame(columns=["reading"]) if verdicts is None else verdicts
    for index, row in zip(comparison.index, comparison.itertuples()):
        ours = "not run" if pd.isna(row.ours) else f"{row.ours:.3f}"
        delta = "" if pd.isna(row.delta) else f"{row.delta:+.3f}"
        holds = "–" if pd.isna(row.ours) else ("yes" if row.ok else "**no**")
        config = f"`{Path(row.config).stem}`" + (" (stand-in)" if Path(row.config).stem in (stand_in or {}) else "")
        degenerate = getattr(row, "degenerate", None)
        method = row.method + (f" **({degenerate.split(':')[0]})**" if isinstance(degenerate, str) and degenerate
                               else "")
        verdict = next(verdicts.loc[[index]].itertuples()) if index in verdicts.index else None
        cells = [config, method, row.metric, f"{row.reference:.3f}", ours, delta,
                 _cell(getattr(row, "statistical", float("nan"))), _cell(getattr(row, "floor", float("nan"))),
                 f"{row.tolerance:.3f}", holds, *_reading_cells(row, verdict)]
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


def variant_comparisons(results_root: Path, reproductions: Mapping[str, Reproduction]) -> dict[str, pd.DataFrame]:
    """Variant stem -> its numbers beside the paper's (``config``: the headline stem it is a variant of); runs found only."""
    tables = {}
    for path in (path for reproduction in reproductions.values() for path in reproduction.variant_paths()):
        config = load_config(path)
        if config.reference is None or not config.reference.variant_of:
            continue
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


EXPLAINED = (BY_VARIANT, BY_CHECK)


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
    """Per comparison row, its table's reading and every count's verdict (:func:`kpca_bench.report.readings.readings`)."""
    return readings.readings(comparison, evidence.variants, paper_checks(deviations, evidence), evidence.diagnostic)


def classify(comparison: pd.DataFrame, deviations: Sequence[Deviation], evidence: Evidence = NO_EVIDENCE) -> pd.Series:
    """Per comparison row, its outcome under one reading per table (one of :data:`kpca_bench.report.readings.OUTCOMES`)."""
    return verdicts(comparison, deviations, evidence)["outcome"]


def _count(n: int) -> str:
    return f"{n} number" if n == 1 else f"{n} numbers"


def _link(analysis: str) -> str:
    return f" [{analysis.split('#')[0]}]({analysis})" if analysis else ""


def deviation_bullet(deviation: Deviation, count: int, explained: int) -> str:
    """``- **numbers** (n numbers, k explained): cause. evidence [analysis]``."""
    evidence = f" {deviation.evidence}" if deviation.evidence else ""
    tally = f"{_count(count)}, {explained} explained"
    return f"- **{deviation.numbers}** ({tally}): {deviation.cause}.{evidence}{_link(deviation.analysis)}"


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
                mark = "within" if bool(hit["ok"]) else "outside"
                values.append(f"{row.method} {row.metric} {row.ours:.3f} → {hit['ours']:.3f} ({mark})")
        reading = table["variant"].iloc[0] if len(table) else ""
        held = sum(v.endswith("(within)") for v in values)
        diagnostic = "; a diagnostic, never counted" if stem in evidence.diagnostic else ""
        lines.append(f"  - variant `{stem}` ({reading}{diagnostic}): {held} of {len(values)} within tolerance"
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
    """``method metric``, with why it is in question when it ran and holds under the headline."""
    if pd.isna(row.ours):
        return f"{row.method} {row.metric} (not run)"
    if verdict is not None and verdict.within_headline and not verdict.within_table_reading:
        return f"{row.method} {row.metric} (within under the headline, outside under the table's reading `{verdict.reading}`)"
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

    The numbers in question are those not within under both the headline and their table's reading (a number the
    table's reading pushes out is one). Each entry tested by variants or checks says how many of its numbers count as
    explained, and lists what every variant and check gave for them.
    """
    found = verdicts(comparison, deviations, evidence)
    in_question = ~(found["within_headline"] & found["within_table_reading"]) & ~found["outcome"].isin([BY_CONSTRUCTION, DEGENERATE])
    rows, found = comparison[in_question], found[in_question]
    outcome = found["outcome"]
    named = pd.Series(False, index=rows.index, dtype=bool)
    bullets = []
    for deviation in deviations:
        mask = explained_mask(deviation, rows) & ~named
        if mask.any():
            explained = int(outcome[mask].isin(EXPLAINED).sum())
            bullets.append(deviation_bullet(deviation, int(mask.sum()), explained))
            bullets += tested_lines(deviation, rows[mask].dropna(subset=["ours"]), evidence)
            named |= mask
    return bullets + unexplained_bullets(rows[~named], found[~named])


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


def numbers_summary(counts: Mapping[str, int], paper_reading: str = HEADLINE, on_stand_in: int = 0) -> str:
    """The paper's counts (:func:`glance_counts`) in a sentence."""
    by_construction = counts["equal by construction"]
    return (f"{counts['compared']} compared numbers: {counts['headline']} within tolerance under the headline, "
            f"{counts['table']} under one reading per table (the table's reading is named in each row), "
            f"{counts['paper']} under one reading per paper ({_paper_reading(paper_reading)}), "
            f"{counts['statistics']} on the statistical part of the tolerance alone, {counts['any']} under any reading "
            f"per number; of the others {counts[BY_CHECK]} explained by a check, {counts['not explained']} not explained"
            + (f"; {_count(by_construction)} equal by construction, not counted" if by_construction else "")
            + (f"; {_count(counts[DEGENERATE])} {DEGENERATE}, not counted" if counts[DEGENERATE] else "")
            + (f"; {counts[NOT_RUN]} not run here" if counts[NOT_RUN] else "")
            + (f"; {_count(on_stand_in)} of runs on stand-in data shown, not counted" if on_stand_in else "") + ".")


def _paper_reading(kind: str) -> str:
    return "the headline" if kind == HEADLINE else f"`{kind}`"


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
        """Per comparison row, its table's reading and every count's verdict (:func:`verdicts`)."""
        return verdicts(self.comparison, self.deviations, self.evidence)

    @property
    def outcome(self) -> pd.Series:
        """Per comparison row, its outcome under one reading per table (:func:`classify`)."""
        return self.verdicts["outcome"]

    @cached_property
    def paper_reading(self) -> str:
        """The one reading kind applied to every table of the paper (:func:`kpca_bench.report.readings.paper_reading`)."""
        return readings.paper_reading(self.comparison, self.evidence.variants, self.evidence.diagnostic)


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


def paper_section(results_root: Path, found: PaperFindings) -> str:
    """One paper: its numbers beside ours, why some do not hold, its claims, its figures."""
    lines = [f"## {found.paper}", ""]
    if len(found.comparison) or len(found.stand_in_comparison):
        stand_in = stand_ins(found.runs)
        shown = pd.concat([found.comparison, found.stand_in_comparison]).sort_index()
        lines += [numbers_summary(glance_counts(found), found.paper_reading,
                                  len(found.stand_in_comparison.dropna(subset=["ours"]))), "",
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


GLANCE_COUNTS = {
    "compared": "numbers compared",
    "headline": "within under the headline",
    "table": "within under one reading per table",
    "paper": "within under one reading per paper",
    "statistics": "within on statistics alone",
    "any": "within under any reading per number",
    BY_CHECK: BY_CHECK,
    "not explained": "not explained",
    "equal by construction": "equal by construction (not counted)",
    DEGENERATE: "on a degenerate model (not counted)",
    NOT_RUN: NOT_RUN,
    "stand-in": "on stand-in data (not counted)",
}


def glance_counts(found: PaperFindings) -> dict[str, int]:
    """The paper's counts, keyed as :data:`GLANCE_COUNTS`: numbers compared (ran), within under each rule, explained by
    a check, not explained and equal by construction (all under one reading per table), not run, on stand-in data."""
    found_verdicts, outcome = found.verdicts, found.outcome
    return {"compared": int(found.comparison["ours"].notna().sum()),
            "headline": int(found_verdicts["within_headline"].sum()),
            "table": int(found_verdicts["within_table_reading"].sum()),
            "paper": int(found_verdicts["within_paper_reading"].sum()),
            "statistics": int(found_verdicts["within_statistics"].sum()),
            "any": int(found_verdicts["within_any_reading"].sum()),
            **{key: int((outcome == key).sum()) for key in (BY_CHECK, "not explained", BY_CONSTRUCTION, DEGENERATE, NOT_RUN)},
            "stand-in": len(found.stand_in_comparison.dropna(subset=["ours"]))}


def glance_row(found: PaperFindings) -> str:
    """The paper's counts (:data:`GLANCE_COUNTS`; within under one reading per paper names that reading), claims that
    hold, the main deviation."""
    if len(found.comparison) or len(found.stand_in_comparison.dropna(subset=["ours"])):
        counts = {key: str(value) for key, value in glance_counts(found).items()}
        counts["paper"] += f" ({_paper_reading(found.paper_reading)})"
        numbers = list(counts.values())
    else:
        numbers = ["–"] * len(GLANCE_COUNTS)
    cells = [f"[{found.paper}](#{heading_anchor(found.paper)})", *numbers, claims_tally(found.claims),
             main_deviation(found.comparison, found.deviations, found.claims)]
    return "| " + " | ".join(cells) + " |"


def glance_table(findings: list[PaperFindings]) -> str:
    """One row per paper, the report's opening table, and a row of totals."""
    header = ["paper", *GLANCE_COUNTS.values(), "claims that hold", "main deviation"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    totals = [sum(glance_counts(found)[key] for found in findings) for key in GLANCE_COUNTS]
    total = "| all papers | " + " | ".join(map(str, totals)) + " | | |"
    return "\n".join(lines + [glance_row(found) for found in findings] + [total])


def suite_sections(results_root: Path, config_dir="configs") -> list[str]:
    """A section per benchmark suite (a config naming several datasets) with a finished full run: where
    kernel PCA stands (the suite report's ``headline.md``, numbers from its records) and its figures."""
    sections = []
    for path in sorted(Path(config_dir).glob("*.yaml")):
        try:
            config = load_config(path)
        except KpcaBenchError:
            continue
        folder = results_root / config.name
        if not config.is_suite or not (folder / "headline.md").exists():
            continue
        figures = [f"![{name}]({config.name}/{name})" for name in ("cd_auroc.png", "rank_heatmap_auroc.png",
                                                                    "auroc_box.png") if (folder / name).exists()]
        headline = (folder / "headline.md").read_text().strip()
        sections.append("\n".join([
            f"## Benchmark suite: {config.name}", "", config.description, "", *([headline, ""] if headline else []),
            f"Per-dataset tables and the statistics across datasets: "
            f"[{config.name}/summary.md]({config.name}/summary.md).", "", *figures, ""]))
    return sections


def tried(found: PaperFindings) -> pd.DataFrame:
    """Every reading of the paper's tables with its count (:func:`kpca_bench.report.readings.readings_tried`)."""
    return readings.readings_tried(found.comparison, found.evidence.variants, found.evidence.diagnostic)


def table_readings(findings: list[PaperFindings]) -> dict[str, str | None]:
    """Every paper's config stem -> its table's one reading: a variant stem, None for the headline."""
    frame = pd.concat([tried(found) for found in findings]) if findings else pd.DataFrame(columns=["table"])
    chosen = frame[frame["chosen"].astype(bool)] if len(frame) else frame
    return {row.table: None if row.reading == HEADLINE else row.reading for row in chosen.itertuples()}


def readings_tried_lines(found: PaperFindings) -> list[str]:
    """The paper's tables, each with every reading tried and how many of its numbers it holds within tolerance."""
    frame = tried(found)
    if frame.empty or (frame["reading"] == HEADLINE).all():
        return []
    lines = ["### Readings tried", "", "Each table's readings and how many of its counted numbers each holds within "
             "tolerance; the table is held to the one marked (ties: the headline, then the first by name); a "
             "diagnostic reading is shown, never chosen.", "", "| table | reading | within | chosen |",
             "|---|---|---|---|"]
    for row in frame.itertuples():
        reading = "headline" if row.reading == HEADLINE else f"`{row.reading}`" + (" (diagnostic)" if row.diagnostic
                                                                                   else "")
        lines.append(f"| `{row.table}` | {reading} | {row.within} of {row.numbers} | {'**yes**' if row.chosen else ''} |")
    return lines + [""]


def write_overview(results_root, config_dir="configs", reproductions_dir=DEFAULT_REPRODUCTIONS_DIR) -> Path:
    """Write ``<results_root>/REPORT.md`` (the papers of ``reproductions_dir``, the suites of ``config_dir``) and
    return its path."""
    results_root = Path(results_root)
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
    chosen = table_readings(findings)
    claims = evaluate_claims(all_claims(reproductions), run_folders(reproductions, results_root), chosen)
    findings = [replace(found, claims=[c for c in claims if c.paper == found.paper]) for found in findings]
    header = [
        "# kpca-bench reproduction report",
        "",
        "Generated by `kpca-bench report` from the full-profile runs in this folder and each paper's reference "
        "files in `reproductions/<paper>/reference/`: its numbers (`numbers.yaml`, each with its source and the "
        "tolerance we hold ourselves to), and the findings of the analyses: why numbers deviate (`deviations.yaml`) "
        "and the papers' claims (`claims.yaml`). Each tolerance shows its two parts, the statistical error "
        "of the paper's number and a floor; the tolerance is the larger (rounded), and *within on statistics alone* "
        "counts the numbers within the statistical part. A number equal by construction (`by_construction`) is "
        "counted neither as reproduced nor as missed.",
        "",
        f"**The counting rule** ([docs/reproducing.md]({COUNTING_RULE_DOC})). A *table* is one block of a "
        "paper's results, the numbers of one headline config (one Li dataset, one Wang table, one Das dataset, one "
        "SAS example). Its *reading* is the headline run or exactly one variant run "
        "(`reproductions/<paper>/configs/variants/`, each a reading of the paper with its source in `choices.yaml`) "
        "applied to every number of the table: the one that brings the most of the table's numbers within tolerance "
        "(ties: the headline, then the variant first by name); a number a variant did not compute is not within "
        "under it. *Within under one reading per table* is the headline count, and every row names its table's "
        "reading: a number another variant would hold but the table's reading does not is *not explained*. "
        "Diagnostic variants (`diagnostic: true` in `choices.yaml`) never count. A consistency check explains a "
        "number outside tolerance under its table's reading only where it finds the paper's value inconsistent with "
        "the paper's protocol and beyond tolerance of every reading's range, and its ranges cover the table's "
        "reading. A number resting on a degenerate model (no components, constant scores) is counted nowhere, like "
        "one equal by construction. *One reading per paper* applies one "
        "reading kind (a variant's name less its table's, e.g. `file_order`; the headline where a table has none) "
        "to every table, chosen the same way; *any reading per number*, the old count, credits a number any "
        "counted reading of its table holds. Every number not explained lists the hypotheses tried with their "
        "results. A run on stand-in data (other data than "
        "the paper's, where its own are not to be had) is shown beside the paper's numbers and counted nowhere: it "
        "is not the paper's experiment. The readings each headline config takes are in each paper's "
        "`choices.yaml`. Rebuild everything with `make all-figures` (variants: `make variants`).",
        "",
        f"Claims (`claims.yaml`), each with where the paper makes it: {TIE_RULE} A claim no record can settle keeps a "
        f"verdict by hand and says so. Every case with its numbers: [{CLAIMS_CSV}]({CLAIMS_CSV}).",
        "",
        glance_table(findings),
        "",
        "Analyses: " + ", ".join(f"[{a}]({a})" for a in _analyses(deviations, claims)) + ".",
        "",
    ]
    body = [paper_section(results_root, found) for found in findings] + suite_sections(results_root, config_dir)
    path = results_root / "REPORT.md"
    write_claims_csv(results_root / CLAIMS_CSV, claims)
    write_atomic(results_root / READINGS_CSV, pd.concat([tried(found) for found in findings]).to_csv(index=False))
    write_atomic(path, "\n".join(header + body))
    return path
