"""``results/REPORT.md``: which of the papers' claims hold, at a glance.

Built from what is on disk alone, so it never re-runs anything:

* the papers' numbers, each reproduction's ``reference/numbers.yaml``, beside each
  full run's ``summary.csv``, paper by paper: a paper's configs are those of its
  reproduction folder (:mod:`reproductions.framework.loader`), and name its numbers
  with ``reference: {paper, dataset}``;
* why numbers deviate, ``reference/deviations.yaml``, and the papers' claims,
  ``reference/claims.yaml`` (:mod:`reproductions.framework.findings`; verdicts computed by
  :mod:`reproductions.framework.claims`), in each
  reproduction's folder, each entry linking to the analysis it comes from;
* the figures of every run of a paper.

The report opens with one sentence (how many of the counted numbers the headline configs reproduce,
the range over the readings tried, how many are not explained, how many claims hold) and a compact
table, one row per paper, that fits a 1280 px screen; then the rules, the readings as a sensitivity
analysis (per table, the count under every reading tried, its range and its mean), the detailed
counts with each paper's main deviation, and per paper its table (each number's tolerance parts, its
outcome under the headline, its table's best reading chosen after the runs), its deviations (a number
no entry names is listed as not explained yet, and a table whose deviations point one way gets a
finding, :func:`reproductions.framework.readings.one_direction`), its claims and its figures.

The counting rule is :mod:`reproductions.framework.readings`'s: the headline is the count under the
headline configs, fixed before any result; a number is within when inside the statistical part of its
tolerance, and a number inside the floor only is counted apart. A variant counts as a reading only if
its paper's ``choices.yaml`` declares it with its source, and never when it only redraws the
headline's splits (:func:`~reproductions.framework.paper_findings.declared_readings`). A section the
report cannot build (a config whose extra is not installed, a suite not run) is written as a line
naming what is missing and how to get it, and :func:`write_overview` returns it so that
``python -m reproductions report`` exits non-zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from kpca_bench.report.tables import markdown_table
from kpca_bench.errors import KpcaBenchError
from reproductions.framework.compare import comparison_rows, degenerate_line
from reproductions.framework.claims import (
    CLAIMS_CSV,
    READINGS_CSV,
    TIE_RULE,
    claims_table,
    claims_tally,
    evaluate_claims,
    run_folders,
    write_claims_csv,
)
from reproductions.framework import readings
from reproductions.framework.readings import (
    BY_CHECK,
    BY_CONSTRUCTION,
    BY_VARIANT,
    DEGENERATE,
    FLOOR_ONLY,
    HEADLINE,
    NOT_RUN,
    WITHIN,
)
from reproductions.framework.reference import diagnostic_variants
from reproductions.framework.paper_findings import (
    all_claims,
    all_deviations,
    analysis_files,
    check_results,
    COUNTING_RULE_DOC,
    deviation_lines,
    Evidence,
    figure_lines,
    heading_anchor,
    main_deviation,
    numbers_phrase,
    numbers_table,
    paper_configs,
    paper_findings,
    PaperFindings,
    stand_in_lines,
    stand_ins,
    variant_comparisons,
)
from reproductions.framework.loader import DEFAULT_REPRODUCTIONS_DIR, load_reproductions
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.store import write_atomic


COUNTS = (
    "counted",
    "within",
    "floor only",
    "low",
    "high",
    "mean",
    BY_VARIANT,
    BY_CHECK,
    "not explained",
    BY_CONSTRUCTION,
    DEGENERATE,
    NOT_RUN,
    "stand-in",
)


def glance_counts(found: PaperFindings) -> dict[str, float]:
    """The paper's counts, keyed as :data:`COUNTS`: the counted numbers; under the headline those within, within the
    floor only, within under another reading, explained by a check and not explained; the lowest, highest (best
    reading per table, chosen after the runs) and mean count over the readings tried, summed over its tables; the
    numbers not counted (equal by construction, on a degenerate model), not run, and on stand-in data."""
    outcome, spread = found.outcome, found.sensitivity
    return {
        "counted": int(readings.counted(found.comparison).sum()),
        "within": int((outcome == WITHIN).sum()),
        "floor only": int((outcome == FLOOR_ONLY).sum()),
        "low": int(spread["low"].sum()),
        "high": int(spread["high"].sum()),
        "mean": float(spread["mean"].sum()),
        **{
            key: int((outcome == key).sum())
            for key in (BY_VARIANT, BY_CHECK, "not explained", BY_CONSTRUCTION, DEGENERATE, NOT_RUN)
        },
        "stand-in": len(found.stand_in_comparison.dropna(subset=["ours"])),
    }


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
    return (
        f"Under the headline configs, fixed before any result, **{counts['within']} of {counts['counted']} counted "
        f"numbers** of the papers reproduce within their statistical tolerance ({counts['floor only']} more within "
        f"the floor only; {excluded} not counted: {counts[BY_CONSTRUCTION]} {BY_CONSTRUCTION}, "
        f"{counts[DEGENERATE]} {DEGENERATE}); over the readings tried per table the count ranges from "
        f"{counts['low']} to {counts['high']} (mean over readings {counts['mean']:.1f}; the best reading per "
        f"table, chosen after the runs, gives {counts['high']}); {counts['not explained']} numbers are not "
        f"explained; {sum(claim.holds == 'holds' for claim in claims)} of {len(claims)} claims hold."
    )


FIRST_TABLE = [
    "paper",
    "counted",
    "within (headline)",
    "within the floor only",
    "range over readings",
    "mean over readings",
    "not explained",
    "claims that hold",
]


def first_table(findings: Sequence[PaperFindings]) -> str:
    """The compact opening table: per paper and in all, the headline count and what the sentence says."""

    def cells(counts: Mapping[str, float] | None, claims: str) -> list[str]:
        if counts is None:
            return ["–"] * (len(FIRST_TABLE) - 2) + [claims]
        return [
            str(counts["counted"]),
            str(counts["within"]),
            str(counts["floor only"]),
            _range(counts),
            f"{counts['mean']:.1f}",
            str(counts["not explained"]),
            claims,
        ]

    rows = [
        [
            f"[{found.paper}](#{heading_anchor(found.paper)})",
            *cells(glance_counts(found) if _has_numbers(found) else None, claims_tally(found.claims)),
        ]
        for found in findings
    ]
    claims = [claim for found in findings for claim in found.claims]
    total = cells(total_counts(findings), f"{sum(claim.holds == 'holds' for claim in claims)} of {len(claims)}")
    return "\n".join(markdown_table(FIRST_TABLE, [*rows, ["**all papers**", *total]]))


DETAIL_TABLE = [
    "paper",
    "counted",
    "within (headline)",
    "within the floor only",
    BY_VARIANT,
    BY_CHECK,
    "not explained",
    "equal by construction (not counted)",
    "on a degenerate model (not counted)",
    NOT_RUN,
    "on stand-in data (not counted)",
    "main deviation",
]


def detail_table(findings: Sequence[PaperFindings]) -> str:
    """Per paper every count under the headline, the numbers not counted and the main deviation."""
    keys = [
        "counted",
        "within",
        "floor only",
        BY_VARIANT,
        BY_CHECK,
        "not explained",
        BY_CONSTRUCTION,
        DEGENERATE,
        NOT_RUN,
        "stand-in",
    ]
    rows = []
    for found in findings:
        counts = glance_counts(found) if _has_numbers(found) else None
        numbers = [str(counts[key]) for key in keys] if counts else ["–"] * len(keys)
        rows.append(
            [
                f"[{found.paper}](#{heading_anchor(found.paper)})",
                *numbers,
                main_deviation(found.comparison, found.deviations, found.claims),
            ]
        )
    totals = total_counts(findings)
    return "\n".join(
        [*markdown_table(DETAIL_TABLE, rows), "| all papers | " + " | ".join(str(totals[key]) for key in keys) + " | |"]
    )


COUNTS_CSV, ONE_DIRECTION_CSV = "counts.csv", "one_direction.csv"


def counts_frame(findings: Sequence[PaperFindings]) -> pd.DataFrame:
    """The counts the first sentence and tables show, as data: one row per paper with numbers and one for all papers
    (:data:`COUNTS`, and the claims that hold of the claims)."""

    def claims_of(claims) -> dict:
        return {"claims_hold": sum(claim.holds == "holds" for claim in claims), "claims": len(claims)}

    rows = [
        {"paper": found.paper, **glance_counts(found), **claims_of(found.claims)}
        for found in findings
        if _has_numbers(found)
    ]
    rows.append(
        {
            "paper": "all papers",
            **total_counts(findings),
            **claims_of([claim for found in findings for claim in found.claims]),
        }
    )
    return pd.DataFrame(rows, columns=["paper", *COUNTS, "claims_hold", "claims"])


def one_direction_frame(findings: Sequence[PaperFindings]) -> pd.DataFrame:
    """Every paper's tables whose deviations point one way (:func:`reproductions.framework.readings.one_direction`)."""
    frames = [readings.one_direction(found.comparison).assign(paper=found.paper) for found in findings]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def not_counted_lines(findings: Sequence[PaperFindings]) -> list[str]:
    """The numbers left out of the denominator, each named with why."""
    named = [
        f"`{Path(row.config).stem}` {row.method} {row.metric} ({verdict})"
        for found in findings
        for row, verdict in zip(comparison_rows(found.comparison), found.outcome)
        if verdict in (BY_CONSTRUCTION, DEGENERATE)
    ]
    return [f"Not counted ({len(named)}): " + "; ".join(named) + "."] if named else []


def sensitivity_table(findings: Sequence[PaperFindings]) -> str:
    """Per table, the headline count beside its count under every reading tried: how many readings, the lowest, the
    highest (the best reading, chosen after the runs) and the mean; then the totals."""
    frame = pd.concat([found.sensitivity for found in findings]) if findings else pd.DataFrame()
    lines = [
        *markdown_table(
            [
                "table",
                "counted",
                "headline",
                "readings tried",
                "lowest",
                "best reading (chosen after the runs)",
                "mean over readings",
            ]
        ),
    ]
    lines += [
        f"| `{row.table}` | {row.numbers} | {row.headline} | {row.readings} | {row.low} | {row.high} | {row.mean:.1f} |"
        for row in readings.sensitivity_rows(frame)
    ]
    if len(frame):
        lines.append(
            f"| all tables | {frame['numbers'].sum()} | {frame['headline'].sum()} | {frame['readings'].sum()} "
            f"| {frame['low'].sum()} | {frame['high'].sum()} | {frame['mean'].sum():.1f} |"
        )
    return "\n".join(lines)


def numbers_summary(counts: Mapping[str, float], on_stand_in: int = 0) -> str:
    """The paper's counts (:func:`glance_counts`) in a sentence."""
    by_construction = counts[BY_CONSTRUCTION]
    return (
        f"{counts['counted']} counted numbers: {counts['within']} within under the headline, "
        f"{counts['floor only']} within the floor only; over the readings tried {_range(counts)} (mean "
        f"{counts['mean']:.1f}; the best reading per table, chosen after the runs: {counts['high']}); of the "
        f"others under the headline {counts[BY_VARIANT]} {BY_VARIANT}, {counts[BY_CHECK]} {BY_CHECK}, "
        f"{counts['not explained']} not explained"
        + (f"; {numbers_phrase(by_construction)} {BY_CONSTRUCTION}, not counted" if by_construction else "")
        + (f"; {numbers_phrase(counts[DEGENERATE])} {DEGENERATE}, not counted" if counts[DEGENERATE] else "")
        + (f"; {counts[NOT_RUN]} not run here" if counts[NOT_RUN] else "")
        + (f"; {numbers_phrase(on_stand_in)} of runs on stand-in data shown, not counted" if on_stand_in else "")
        + "."
    )


def paper_section(results_root: Path, found: PaperFindings) -> str:
    """One paper: its numbers beside ours, why some do not hold, its claims, its figures."""
    lines = [f"## {found.paper}", ""]
    if len(found.comparison) or len(found.stand_in_comparison):
        stand_in = stand_ins(found.runs)
        shown = pd.concat([found.comparison, found.stand_in_comparison]).sort_index()
        lines += [
            numbers_summary(glance_counts(found), len(found.stand_in_comparison.dropna(subset=["ours"]))),
            "",
            numbers_table(shown, stand_in, found.verdicts),
            "",
        ]
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
    analyses = analysis_files(found.deviations, found.claims)
    if analyses:
        lines += ["Analyses: " + ", ".join(f"[{a}]({a})" for a in analyses) + ".", ""]
    figures = figure_lines(results_root, found.runs)
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
            missing = (
                f"{path} cannot be loaded ({error}); install what it imports (PyOD's detectors: "
                'pip install "kpca-bench[pyod]") and run python -m reproductions report again'
            )
            sections.append(Section(f"## {path.stem}: not built\n\n{missing}.\n", missing))
            continue
        folder = results_root / config.name
        if not config.is_suite:
            continue
        if not (folder / "headline.md").exists():
            missing = f"{folder / 'headline.md'} is missing: the suite has not been run; kpca-bench run {path}"
            sections.append(Section(f"## Benchmark suite: {config.name}: not built\n\n{missing}.\n", missing))
            continue
        figures = [
            f"![{name}]({config.name}/{name})"
            for name in ("cd_auroc.png", "rank_heatmap_auroc.png", "auroc_box.png")
            if (folder / name).exists()
        ]
        headline = (folder / "headline.md").read_text().strip()
        sections.append(
            Section(
                "\n".join(
                    [
                        f"## Benchmark suite: {config.name}",
                        "",
                        config.description,
                        "",
                        *([headline, ""] if headline else []),
                        f"Per-dataset tables and the statistics across datasets: "
                        f"[{config.name}/summary.md]({config.name}/summary.md).",
                        "",
                        *figures,
                        "",
                    ]
                )
            )
        )
    return sections


def table_readings(findings: list[PaperFindings]) -> dict[str, str | None]:
    """Every paper's config stem -> its table's best reading, chosen after the runs: a variant stem, None for the
    headline (what the claims' "chosen readings" read)."""
    frame = pd.concat([found.tried for found in findings]) if findings else pd.DataFrame(columns=["table"])
    chosen = frame[frame["chosen"].astype(bool)] if len(frame) else frame
    return {row.table: None if row.reading == HEADLINE else row.reading for row in readings.tried_rows(chosen)}


def readings_tried_lines(found: PaperFindings) -> list[str]:
    """The paper's tables, each with every reading tried and how many of its numbers it holds within."""
    frame = found.tried
    if frame.empty or (frame["reading"] == HEADLINE).all():
        return []
    lines = [
        "### Readings tried",
        "",
        "Each table's readings and how many of its counted numbers each holds within "
        "its statistical tolerance: a sensitivity analysis beside the headline, which counts the headline "
        "alone. The best reading is marked: it is chosen after the runs and decides no count called a "
        "headline; a diagnostic reading is shown, never counted.",
        "",
        *markdown_table(["table", "reading", "within", "best (chosen after the runs)"]),
    ]
    for row in frame.itertuples():
        reading = (
            "headline" if row.reading == HEADLINE else f"`{row.reading}`" + (" (diagnostic)" if row.diagnostic else "")
        )
        lines.append(
            f"| `{row.table}` | {reading} | {row.within} of {row.numbers} | {'**yes**' if row.chosen else ''} |"
        )
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
        f"Generated by `python -m reproductions report` from the full-profile runs in this folder and each paper's reference "
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


def write_overview(
    results_root, config_dir="configs", reproductions_dir=DEFAULT_REPRODUCTIONS_DIR, out=None
) -> Overview:
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
        raise KpcaBenchError(
            f"no reproduction in {reproductions_dir} has a config or a claim in its reference/claims.yaml"
        )
    diagnostic = frozenset().union(*(diagnostic_variants(r.reference_dir) for r in reproductions.values()))
    evidence = Evidence(
        variant_comparisons(results_root, reproductions), check_results(results_root, deviations), diagnostic
    )
    findings = paper_findings(results_root, groups, deviations, evidence)
    claims = evaluate_claims(
        all_claims(reproductions), run_folders(reproductions, results_root), table_readings(findings)
    )
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
        "Analyses: " + ", ".join(f"[{a}]({a})" for a in analysis_files(deviations, claims)) + ".",
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
