"""Per paper, what REPORT.md says of it: its configs and runs, our numbers beside its (each number's
tolerance parts and outcome under every reading), the checks and readings that explain a deviation, its
deviations, claims and figures (:class:`PaperFindings`). :mod:`.overview` counts them and writes the report.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path

import pandas as pd

from kpca_bench.report.tables import markdown_row, markdown_table
from kpca_bench.datasets.files import present
from kpca_bench.datasets.locate import searched
from kpca_bench.datasets.registry import get_spec
from kpca_bench.errors import KpcaBenchError
from reproductions.framework.claims import ClaimResult
from reproductions.framework.compare import COMPARISON_COLUMNS, compare_with_papers, comparison_rows, number_rows
from reproductions.framework.findings import (
    CLAIMS_FILE,
    DEVIATIONS_FILE,
    NOT_EXPLAINED,
    Claim,
    Deviation,
    load_claims,
    load_deviations,
)
from reproductions.framework import readings
from reproductions.framework.readings import (
    BY_CHECK,
    BY_CONSTRUCTION,
    BY_VARIANT,
    DEGENERATE,
    FLOOR_ONLY,
    HEADLINE,
    NOT_EXPLAINED as NOT_EXPLAINED_OUTCOME,
    NOT_RUN,
    WITHIN,
)
from reproductions.framework.reference import declared_variants, load_references, paper_reference, reference_folder
from reproductions.framework.loader import DEFAULT_REPRODUCTIONS_DIR, Reproduction, load_reproductions
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory


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
        strays = [
            path.name
            for path, config in runs
            if config.reference is not None and config.reference.paper != reproduction.reference
        ]
        if strays:
            raise KpcaBenchError(
                f"{', '.join(strays)} in {reproduction.folder} name another paper than "
                f"{reproduction.reference!r} in reference.paper; move them to that paper's folder"
            )
        if runs:
            groups[reproduction.reference] = runs
    stems = {path.stem for runs in groups.values() for path, _ in runs}
    unknown = sorted({stem for claim in claims for stem in claim.configs} - stems)
    if unknown:
        folders = ", ".join(sorted({str(r.home.parent) for r in reproductions.values()}))
        raise KpcaBenchError(f"claims name configs that are not in {folders}/*/configs: {', '.join(unknown)}")
    for claim in claims:
        groups.setdefault(claim.paper, [])
    return groups


def own_entries(reproduction: Reproduction, entries: list, file: str) -> list:
    """``entries`` of ``reproduction``'s reference file ``file``, checked to name its own paper."""
    strays = sorted({entry.paper for entry in entries} - {reproduction.reference})
    if strays:
        raise KpcaBenchError(
            f"{reproduction.reference_dir / file} has entries of {', '.join(map(repr, strays))}; a "
            f"reproduction's reference files hold its own paper's ({reproduction.reference!r}): "
            "move them to that paper's folder"
        )
    return entries


def all_claims(reproductions: Mapping[str, Reproduction]) -> list[Claim]:
    """Every reproduction's claims (its ``reference/claims.yaml``), reproduction by reproduction."""
    return [
        claim for r in reproductions.values() for claim in own_entries(r, load_claims(r.reference_dir), CLAIMS_FILE)
    ]


def all_deviations(reproductions: Mapping[str, Reproduction]) -> list[Deviation]:
    """Every reproduction's deviations (its ``reference/deviations.yaml``), reproduction by reproduction."""
    return [
        deviation
        for r in reproductions.values()
        for deviation in own_entries(r, load_deviations(r.reference_dir), DEVIATIONS_FILE)
    ]


def paper_config_paths(reproductions_dir=DEFAULT_REPRODUCTIONS_DIR) -> list[Path]:
    """Every config the report shows, in file-name order: what ``make all-figures`` runs."""
    reproductions = load_reproductions(Path(reproductions_dir))
    groups = paper_configs(reproductions, all_claims(reproductions))
    return sorted(path for runs in groups.values() for path, _ in runs)


def missing_data(config: Config) -> str | None:
    """Why ``config`` cannot run without a download (its dataset's files are not here), or None if it can."""
    assert config.dataset is not None  # a paper's config names one dataset
    spec = get_spec(config.dataset.name)
    if not spec.files or present(spec.name, spec.files):
        return None
    return (
        f"the files of dataset {spec.name!r} are not in {searched(spec.files[0].folder_of(spec.name))}; "
        f"'kpca-bench datasets fetch {spec.name}' downloads them"
    )


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
    reference = paper_reference(config)  # paper_comparison passes the runs that name paper numbers
    entries = [
        e
        for e in load_references(reference_folder(path))
        if e["paper"] == reference.paper and e["dataset"] == reference.dataset
    ]
    try:
        table = compare_with_papers(path.as_posix(), config, directory)
    except KpcaBenchError:
        table = pd.DataFrame(
            [
                {
                    "config": path.as_posix(),
                    "method": e["method"],
                    "metric": e["metric"],
                    "reference": e["value"],
                    "ours": float("nan"),
                    "delta": float("nan"),
                    "tolerance": e["tolerance"],
                    "ok": False,
                }
                for e in entries
            ],
            columns=COMPARISON_COLUMNS,
        )
    parts = pd.DataFrame(
        [
            {
                "method": e["method"],
                "metric": e["metric"],
                "statistical": e.get("statistical", float("nan")),
                "floor": e.get("floor", float("nan")),
                "by_construction": e.get("by_construction", ""),
            }
            for e in entries
        ],
        columns=["method", "metric", *TOLERANCE_PARTS],
    )
    return table.merge(parts.drop_duplicates(["method", "metric"]), on=["method", "metric"], how="left")


def paper_comparison(results_root: Path, runs: Runs) -> pd.DataFrame:
    """Every number of the paper beside ours, over the runs that name paper numbers."""
    tables = [_comparison(results_root, path, config) for path, config in runs if config.reference is not None]
    if not tables:
        return pd.DataFrame(columns=[*COMPARISON_COLUMNS, *TOLERANCE_PARTS])
    return pd.concat(tables, ignore_index=True)


def stand_ins(runs: Runs) -> dict[str, str]:
    """Config stem -> how its data differ from the paper's, for the runs on stand-in data."""
    return {
        path.stem: config.reference.stand_in
        for path, config in runs
        if config.reference is not None and config.reference.stand_in
    }


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


def numbers_table(
    comparison: pd.DataFrame, stand_in: dict[str, str] | None = None, verdicts: pd.DataFrame | None = None
) -> str:
    """The paper's numbers beside ours: the tolerance's parts, the number's outcome under the headline, and its
    table's best reading, chosen after the runs, with our value under it (``verdicts``,
    :func:`reproductions.framework.readings.readings`; rows it lacks are stand-ins)."""
    lines = [
        *markdown_table(
            [
                "config",
                "method",
                "metric",
                "paper",
                "ours",
                "delta",
                "statistical",
                "floor",
                "tolerance",
                "outcome (headline)",
                "best reading (after the runs)",
                "ours under it",
            ]
        ),
    ]
    verdicts = pd.DataFrame(columns=["best_reading"]) if verdicts is None else verdicts
    for index, row in zip(comparison.index, comparison_rows(comparison)):
        ours = "not run" if pd.isna(row.ours) else f"{row.ours:.3f}"
        delta = "" if pd.isna(row.delta) else f"{row.delta:+.3f}"
        config = f"`{Path(row.config).stem}`" + (" (stand-in)" if Path(row.config).stem in (stand_in or {}) else "")
        degenerate = getattr(row, "degenerate", None)
        method = row.method + (
            f" **({degenerate.split(':')[0]})**" if isinstance(degenerate, str) and degenerate else ""
        )
        verdict = next(verdicts.loc[[index]].itertuples()) if index in verdicts.index else None
        cells = [
            config,
            method,
            row.metric,
            f"{row.reference:.3f}",
            ours,
            delta,
            _cell(getattr(row, "statistical", float("nan")), 4),
            _cell(getattr(row, "floor", float("nan"))),
            f"{row.tolerance:.3f}",
            *_reading_cells(row, verdict),
        ]
        lines.append(markdown_row(cells))
    return "\n".join(lines)


def stand_in_lines(stand_in: dict[str, str]) -> list[str]:
    """What each stand-in run's data are, under the table whose rows it marks."""
    return [
        f"Stand-in: `{stem}` runs the paper's protocol on other data than the paper's, so its numbers are not "
        f"the paper's experiment: {text}."
        for stem, text in stand_in.items()
    ]


def not_holding(comparison: pd.DataFrame) -> pd.DataFrame:
    """The numbers outside tolerance or not run."""
    return comparison[~comparison["ok"].astype(bool)]


def explained_mask(deviation: Deviation, rows: pd.DataFrame) -> pd.Series:
    """Which of ``rows`` (comparison rows) ``deviation`` explains."""
    return pd.Series(
        [deviation.explains(Path(row.config).stem, row.method, row.metric) for row in comparison_rows(rows)],
        index=rows.index,
        dtype=bool,
    )


def _fields(config: Config) -> dict:
    return {item.name: getattr(config, item.name) for item in fields(config)}


def declared_readings(reproduction: Reproduction) -> list[tuple[Path, Config]]:
    """The reproduction's variant runs that are readings of the paper, each with its config.

    A variant is refused, with one line naming it and the fix, where its paper's ``choices.yaml`` does not declare
    it with a source, or where it differs from its headline config only in ``seed`` or ``trials`` (a redraw of the
    headline's splits, :func:`reproductions.framework.readings.only_redrawn`).
    """
    declared = declared_variants(reproduction.reference_dir)
    headlines = {path.stem: path for path in reproduction.config_paths()}
    found = []
    for path in reproduction.variant_paths():
        config = load_config(path)
        if config.reference is None or not config.reference.variant_of:
            continue
        if path.stem not in declared:
            raise KpcaBenchError(
                f"{path}: no entry of {reproduction.reference_dir / 'choices.yaml'} declares this "
                "variant with its source, so it is no reading of the paper; declare it there or "
                "remove it"
            )
        headline = headlines.get(config.reference.variant_of)
        if headline is not None and readings.only_redrawn(_fields(load_config(headline)), _fields(config)):
            raise KpcaBenchError(
                f"{path}: differs from {headline.name} only in {' or '.join(readings.REDRAW_KEYS)}, "
                "a redraw of the headline's splits, not a reading of the paper; remove it"
            )
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
        reference = paper_reference(config)
        tables[path.stem] = table.assign(config=reference.variant_of, variant=reference.variant)
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
    hit = table[
        (table["config"] == Path(row.config).stem) & (table["method"] == row.method) & (table["metric"] == row.metric)
    ].dropna(subset=["ours"])
    return hit.iloc[0] if len(hit) else None


def _check_rows(table: pd.DataFrame | None, row) -> pd.DataFrame | None:
    if table is None:
        return None
    hit = table[
        (table["config"] == Path(row.config).stem) & (table["method"] == row.method) & (table["metric"] == row.metric)
    ]
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
                tables.append(
                    table[[deviation.explains(str(row.config), row.method, row.metric) for row in number_rows(table)]]
                )
    return tables


def verdicts(
    comparison: pd.DataFrame, deviations: Sequence[Deviation], evidence: Evidence = NO_EVIDENCE
) -> pd.DataFrame:
    """Per comparison row, its verdict under the headline and the readings (:func:`reproductions.framework.readings.readings`)."""
    return readings.readings(comparison, evidence.variants, paper_checks(deviations, evidence), evidence.diagnostic)


def classify(comparison: pd.DataFrame, deviations: Sequence[Deviation], evidence: Evidence = NO_EVIDENCE) -> pd.Series:
    """Per comparison row, its outcome under the headline (one of :data:`reproductions.framework.readings.OUTCOMES`)."""
    return verdicts(comparison, deviations, evidence)["outcome"]


def numbers_phrase(n: float) -> str:
    return f"{n} number" if n == 1 else f"{n} numbers"


def _link(analysis: str) -> str:
    return f" [{analysis.split('#')[0]}]({analysis})" if analysis else ""


def deviation_bullet(deviation: Deviation, count: int, by_reading: int, by_check: int) -> str:
    """``- **numbers** (n numbers, r within under another reading, k explained by a check): cause. evidence
    [analysis]``."""
    evidence = f" {deviation.evidence}" if deviation.evidence else ""
    tally = f"{numbers_phrase(count)}, {by_reading} {BY_VARIANT}, {by_check} {BY_CHECK}"
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
        lines.append(
            f"  - variant `{stem}` ({reading}{diagnostic}): {held} of {len(values)} within"
            + (f": {'; '.join(values)}" if values else "")
        )
    for name in deviation.checks:
        table = evidence.checks.get(name)
        if table is None:
            lines.append(f"  - check `{name}`: not run")
            continue
        flagged = sum(_inconsistent(table, row) for row in rows.itertuples())
        beyond = sum(_beyond(table, row) for row in rows.itertuples())
        lines.append(
            f"  - check [{name.replace('.csv', '.md')}]({name.replace('.csv', '.md')}): the paper's value "
            f"inconsistent with its protocol for {flagged} of {numbers_phrase(len(rows))}, beyond tolerance of every "
            f"reading's range (what explains a number) for {beyond}"
        )
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
        numbers = ", ".join(
            _number(row, None if verdict_rows is None else next(verdict_rows.loc[[index]].itertuples()))
            for index, row in zip(group.index, group.itertuples())
        )
        bullets.append(
            f"- **`{config}`: {numbers}** ({numbers_phrase(len(group))}): {NOT_EXPLAINED}; no hypothesis tested yet."
        )
    return bullets


def deviation_lines(
    comparison: pd.DataFrame, deviations: list[Deviation], evidence: Evidence = NO_EVIDENCE
) -> list[str]:
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
            bullets.append(
                deviation_bullet(
                    deviation,
                    int(mask.sum()),
                    int((outcome[mask] == BY_VARIANT).sum()),
                    int((outcome[mask] == BY_CHECK).sum()),
                )
            )
            bullets += tested_lines(deviation, rows[mask].dropna(subset=["ours"]), evidence)
            named |= mask
    return bullets + unexplained_bullets(rows[~named], found[~named])


def one_direction_lines(comparison: pd.DataFrame) -> list[str]:
    """A bullet per table whose deviations point one way beyond their standard error
    (:func:`reproductions.framework.readings.one_direction`, its rule stated in the bullet)."""
    return [
        f"- **`{row.table}`: {row.same} of its {row.beyond} numbers beyond their standard error lie {row.direction} "
        f"the paper's** ({row.smallest:+.3f} to {row.largest:+.3f}; sign test p = {row.p:.2g}, a screen, as the "
        f"numbers share runs): a shift of the whole table, within or not, found by code ([the rule]"
        f"({ONE_DIRECTION_DOC})); no entry explains it unless one names it below."
        for row in readings.one_direction(comparison).itertuples()
    ]


def main_deviation(comparison: pd.DataFrame, deviations: list[Deviation], claims: Sequence[ClaimResult]) -> str:
    """The deviation entry explaining the most numbers that ran and missed; else the first claim that does not fully hold."""
    ran = not_holding(comparison).dropna(subset=["ours"])
    count, top = max(
        ((int(explained_mask(d, ran).sum()), d) for d in deviations), key=lambda pair: pair[0], default=(0, None)
    )
    if count:
        assert top is not None  # a count above 0 is a deviation's
        return f"{top.numbers}: {top.cause}"
    if len(ran):
        return f"{numbers_phrase(len(ran))} outside tolerance: {NOT_EXPLAINED}"
    partial = [claim for claim in claims if claim.holds != "holds"]
    if partial:
        return f"{partial[0].claim}: {partial[0].holds}, {partial[0].verdict}"
    return "none"


def figure_lines(results_root: Path, runs: Runs) -> list[str]:
    lines = []
    for _, config in runs:
        directory = experiment_directory(config, results_root)
        for png in sorted(directory.glob("*.png")):
            lines.append(f"![{config.name}: {png.stem}]({png.relative_to(results_root).as_posix()})")
    return lines


def analysis_files(deviations: Sequence[Deviation], claims: Sequence[ClaimResult]) -> list[str]:
    """The analysis files the entries link to, each once, in order."""
    entries: list[Deviation | ClaimResult] = [*deviations, *claims]
    files = [entry.analysis.split("#")[0] for entry in entries if entry.analysis]
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
    claims: Sequence[ClaimResult] = ()
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
        """Every reading of the paper's tables with its count (:func:`reproductions.framework.readings.readings_tried`)."""
        return readings.readings_tried(self.comparison, self.evidence.variants, self.evidence.diagnostic)

    @cached_property
    def sensitivity(self) -> pd.DataFrame:
        """Per table, the headline count and its range and mean over the readings tried."""
        return readings.sensitivity(self.tried)


def paper_findings(
    results_root: Path,
    groups: dict[str, Runs],
    deviations: list[Deviation],
    evidence: Evidence = NO_EVIDENCE,
) -> list[PaperFindings]:
    """Per paper, in the order of ``groups``: its runs, its numbers beside ours and its deviations; its claims are
    evaluated after (they read the tables' readings, :func:`reproductions.framework.overview.table_readings`)."""
    findings = []
    for paper, runs in groups.items():
        comparison = paper_comparison(results_root, runs)
        on_stand_in = comparison["config"].map(lambda config: Path(config).stem in stand_ins(runs)).astype(bool)
        findings.append(
            PaperFindings(
                paper,
                runs,
                comparison[~on_stand_in],
                [d for d in deviations if d.paper == paper],
                evidence=evidence,
                stand_in_comparison=comparison[on_stand_in],
            )
        )
    return findings
