"""The counting rule of REPORT.md: the headline count, fixed before the runs, and the readings as its sensitivity.

A *table* is one block of a paper's results, the numbers one headline config reproduces (one Li
dataset, one Wang table, one Das dataset, one SAS example): it is known by the config's file stem.
A *reading* of a table is its headline run or one of its variant runs (``configs/variants/``,
``reference.variant_of`` naming the table, declared with its source in ``choices.yaml``), applied to
every number of the table. A number a variant run did not compute is not within under that reading.

* **Within** means inside the number's statistical tolerance (``statistical`` in ``numbers.yaml``;
  the whole tolerance where an entry gives no parts). A number inside the tolerance only because of
  its floor is *within the floor only*, its own count, never within.
* **The headline** is the count under the headline configs alone, which were fixed before any
  result: no choice made after the runs feeds it.
* **Readings** are a sensitivity analysis beside it: per table, the count under every reading tried,
  their range and their mean. The *best reading per table* (the one bringing most numbers within;
  ties: the headline, then the first by name) is chosen after the runs and is labelled so wherever
  it is shown; it decides nothing else.

Diagnostic readings (``diagnostic: true`` in ``choices.yaml``) are shown, never counted. A number
outside under the headline is *within under another reading* where a counted reading of its table
holds it; else *explained by a check* where a consistency check shows the paper's value inconsistent
with its protocol *and* beyond tolerance of every reading's range (column ``beyond_tolerance``, or a
positive ``margin``) and the check covers the headline run (column ``readings``, the run stems its
ranges come from; the headline alone where it has none); else it is *not explained*. A number equal
by construction (``by_construction``) or resting on a degenerate model (``degenerate``) is not counted.

Pure functions on DataFrames: the caller reads the files.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol, cast

import pandas as pd
from scipy.stats import binomtest

from reproductions.framework.compare import comparison_rows

HEADLINE = "headline"
NUMBER_KEYS = ["table", "method", "metric"]

WITHIN, FLOOR_ONLY, BY_VARIANT = "within", "within the floor only", "within under another reading"
BY_CHECK, NOT_EXPLAINED, NOT_RUN = "explained by a check", "not explained", "not run"
BY_CONSTRUCTION, DEGENERATE = "equal by construction", "on a degenerate model"
OUTCOMES = (WITHIN, FLOOR_ONLY, BY_VARIANT, BY_CHECK, NOT_EXPLAINED, NOT_RUN, BY_CONSTRUCTION, DEGENERATE)
REDRAW_KEYS = ("seed", "trials")
"""The config keys a variant may not differ in alone: a new seed or more splits redraw the headline, they are no
reading of the paper."""
IDENTITY_KEYS = ("name", "description", "reference", "output", "execution", "source", "profile")
"""The config keys that say what a run is called and where it runs, not what it computes."""


def table_of(config: str) -> str:
    """The table a comparison row belongs to: its headline config's file stem."""
    return Path(config).stem


def _numbers(comparison: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {"table": comparison["config"].map(table_of), "method": comparison["method"], "metric": comparison["metric"]},
        index=comparison.index,
    )


def _flagged(comparison: pd.DataFrame, column: str) -> pd.Series:
    if column not in comparison:
        return pd.Series(False, index=comparison.index)
    return comparison[column].fillna("").astype(str).str.len() > 0


def on_degenerate_model(comparison: pd.DataFrame) -> pd.Series:
    """The numbers that ran but rest on a degenerate model (column ``degenerate``: no components, constant scores)."""
    return comparison["ours"].notna() & _flagged(comparison, "degenerate")


def counted(comparison: pd.DataFrame) -> pd.Series:
    """The numbers that can be reproduced: those that ran, are not equal by construction and rest on no
    degenerate model (a model that learned nothing reproduces nothing, whatever its delta)."""
    return comparison["ours"].notna() & ~_flagged(comparison, "by_construction") & ~on_degenerate_model(comparison)


def inside_statistics(rows: pd.DataFrame, statistical: pd.Series | None = None) -> pd.Series:
    """Per row, whether ``|delta|`` is inside the statistical part of its tolerance (``statistical``, default the
    rows' own column); the whole tolerance (``ok``) where a number has no statistical part."""
    if statistical is None:
        statistical = rows["statistical"] if "statistical" in rows else pd.Series(float("nan"), index=rows.index)
    statistical = pd.to_numeric(statistical, errors="coerce")
    inside = rows["delta"].abs() <= statistical
    return inside.where(statistical.notna(), rows["ok"].astype(bool)).fillna(False).astype(bool)


def within(comparison: pd.DataFrame) -> pd.Series:
    """Per number, whether the headline holds it within: counted, and inside its statistical tolerance."""
    return counted(comparison) & inside_statistics(comparison)


def within_floor_only(comparison: pd.DataFrame) -> pd.Series:
    """Per number, whether the headline holds it inside its tolerance only by the tolerance's floor."""
    return counted(comparison) & comparison["ok"].astype(bool) & ~inside_statistics(comparison)


def within_by_reading(
    comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame], diagnostic: Collection[str] = ()
) -> pd.DataFrame:
    """Per number (``comparison``'s index), whether each reading of its table holds it within (:func:`within`).

    Parameters
    ----------
    comparison : DataFrame
        The headline comparison rows (``config``, ``method``, ``metric``, ``ours``, ``delta``, ``ok`` and,
        optionally, ``statistical``).
    variants : mapping
        Variant stem -> its comparison rows, ``config`` the stem of the table it reads differently.
    diagnostic : collection of str
        Variant stems that never count.

    Returns
    -------
    DataFrame
        Column :data:`HEADLINE`, then one column per counted variant of these tables in name order: True / False for the
        numbers of its table (False for a number the variant did not run), NA elsewhere. A variant's number is held to
        the headline number's statistical part.
    """
    numbers = _numbers(comparison)
    eligible = counted(comparison)
    statistical = (
        comparison["statistical"] if "statistical" in comparison else pd.Series(float("nan"), index=comparison.index)
    )
    columns = {HEADLINE: within(comparison).astype("boolean")}
    for stem in sorted(set(variants) - set(diagnostic)):
        rows = variants[stem].dropna(subset=["ours"]).rename(columns={"config": "table"})
        if rows.empty or not (numbers["table"] == rows["table"].iloc[0]).any():
            continue
        merged = numbers.merge(
            rows[[*NUMBER_KEYS, "delta", "ok"]].drop_duplicates(NUMBER_KEYS), on=NUMBER_KEYS, how="left"
        ).set_axis(comparison.index)
        ran = merged["delta"].notna()
        value = ran & inside_statistics(merged.assign(ok=merged["ok"].fillna(False)), statistical) & eligible
        columns[stem] = value.astype("boolean").where(numbers["table"] == rows["table"].iloc[0], pd.NA)
    return pd.DataFrame(columns, index=comparison.index)


def _ordered_counts(grid: pd.DataFrame) -> pd.Series:
    """Numbers within per reading that applies to ``grid``'s rows: the headline first, then the variants in name order."""
    applies = [column for column in grid.columns if grid[column].notna().all()]
    return grid[applies].fillna(False).astype(int).sum()


def best_per_table(comparison: pd.DataFrame, grid: pd.DataFrame) -> dict[str, str]:
    """Table -> its best reading (:data:`HEADLINE` or a variant stem), chosen after the runs: the one bringing most
    numbers within, the first of the highest in the headline-then-name order."""
    tables = comparison["config"].map(table_of)
    return {table: str(_ordered_counts(grid[tables == table]).idxmax()) for table in dict.fromkeys(tables)}


def beyond_tolerance(checks: pd.DataFrame) -> pd.Series:
    """Whether a check row shows the paper's value inconsistent and beyond tolerance of every reading's range."""
    inconsistent = checks["inconsistent"].astype(bool)
    if "beyond_tolerance" in checks:
        return inconsistent & checks["beyond_tolerance"].astype(bool)
    if "margin" in checks:
        return inconsistent & (checks["margin"] > 0)
    return pd.Series(False, index=checks.index)


def covered_readings(checks: pd.DataFrame) -> pd.Series:
    """Per check row, the run stems its ranges cover: its ``readings`` column (comma-separated), else the
    headline run alone (the table's own stem)."""
    if "readings" not in checks:
        return checks["config"].map(lambda table: {table})
    return checks["readings"].fillna("").map(lambda listed: {stem.strip() for stem in str(listed).split(",")})


def explained_by_checks(comparison: pd.DataFrame, checks: Sequence[pd.DataFrame]) -> pd.Series:
    """Per number, whether some check (rows ``config`` stem, ``method``, ``metric``) explains it (module docstring):
    the check must cover the headline run, since a range measured under one reading says nothing of another."""
    numbers = _numbers(comparison)
    explained = pd.Series(False, index=comparison.index)
    for table in checks:
        beyond = table.assign(beyond=beyond_tolerance(table), covers=covered_readings(table))
        beyond = (
            beyond.rename(columns={"config": "table"})
            .groupby(NUMBER_KEYS)
            .agg(beyond=("beyond", "all"), covers=("covers", lambda sets: set.intersection(*sets)))
            .reset_index()
        )
        merged = numbers.merge(beyond, on=NUMBER_KEYS, how="left").set_axis(comparison.index)
        hit = [
            bool(row.beyond) and isinstance(row.covers, set) and numbers.at[i, "table"] in row.covers
            for i, row in merged.iterrows()
        ]
        explained |= pd.Series(hit, index=comparison.index, dtype=bool)
    return explained


def readings(
    comparison: pd.DataFrame,
    variants: Mapping[str, pd.DataFrame],
    checks: Sequence[pd.DataFrame] = (),
    diagnostic: Collection[str] = (),
) -> pd.DataFrame:
    """Per number: its verdict under the headline and under the readings tried.

    Returns
    -------
    DataFrame
        Indexed as ``comparison``, with columns ``within_headline`` (:func:`within`), ``floor_only``
        (:func:`within_floor_only`), ``best_reading`` (its table's best reading, chosen after the runs),
        ``ours_under_best`` (our value under it), ``within_best_reading``, ``within_any_reading`` (some counted
        reading of its table holds it), ``by_check`` and ``outcome`` (one of :data:`OUTCOMES`, under the headline).
    """
    grid = within_by_reading(comparison, variants, diagnostic)
    best = comparison["config"].map(table_of).map(best_per_table(comparison, grid))
    under_best = pd.Series([bool(grid.at[i, r]) for i, r in best.items()], index=comparison.index, dtype=bool)
    headline = grid[HEADLINE].fillna(False).astype(bool)
    table = pd.DataFrame(
        {
            "within_headline": headline,
            "floor_only": within_floor_only(comparison),
            "best_reading": best,
            "ours_under_best": value_under_reading(comparison, variants, best),
            "within_best_reading": under_best,
            "within_any_reading": grid.fillna(False).astype(bool).any(axis=1),
            "by_check": explained_by_checks(comparison, checks) & counted(comparison) & ~headline,
        },
        index=comparison.index,
    )
    table["outcome"] = outcome(comparison, table)
    return table


def value_under_reading(
    comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame], reading: pd.Series
) -> pd.Series:
    """Per number, our value under a reading of its table (``reading``): the headline's or its variant's, NaN if not run."""
    numbers = _numbers(comparison)
    values = comparison["ours"].astype(float).copy()
    for stem in set(reading) - {HEADLINE}:
        rows = variants[stem].rename(columns={"config": "table"}).drop_duplicates(NUMBER_KEYS)
        ours = numbers.merge(rows[[*NUMBER_KEYS, "ours"]], on=NUMBER_KEYS, how="left")["ours"].set_axis(
            comparison.index
        )
        values[reading == stem] = ours[reading == stem]
    return values


def outcome(comparison: pd.DataFrame, verdicts: pd.DataFrame) -> pd.Series:
    """Per number, one of :data:`OUTCOMES` under the headline: within, within the floor only, within under another
    reading, explained by a check, not explained; or not run, equal by construction, on a degenerate model."""
    degenerate = on_degenerate_model(comparison)
    by_construction = comparison["ours"].notna() & ~counted(comparison) & ~degenerate
    values = [
        NOT_RUN
        if pd.isna(row.ours)
        else DEGENERATE
        if degenerate[i]
        else BY_CONSTRUCTION
        if by_construction[i]
        else WITHIN
        if verdicts.at[i, "within_headline"]
        else FLOOR_ONLY
        if verdicts.at[i, "floor_only"]
        else BY_VARIANT
        if verdicts.at[i, "within_any_reading"]
        else BY_CHECK
        if verdicts.at[i, "by_check"]
        else NOT_EXPLAINED
        for i, row in zip(comparison.index, comparison_rows(comparison))
    ]
    return pd.Series(values, index=comparison.index, dtype=object)


def readings_tried(
    comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame], diagnostic: Collection[str] = ()
) -> pd.DataFrame:
    """Every reading of every table with the count of the table's numbers it holds within.

    Returns
    -------
    DataFrame
        One row per (table, reading): ``table``, ``reading`` (:data:`HEADLINE` or a variant stem), ``within``,
        ``numbers`` (the table's counted numbers), ``diagnostic`` (never counts) and ``chosen`` (the table's best
        reading, chosen after the runs; what the claims' "chosen readings" read).
    """
    grid = within_by_reading(comparison, variants)
    best = best_per_table(comparison, grid.drop(columns=[stem for stem in diagnostic if stem in grid]))
    tables, eligible = comparison["config"].map(table_of), counted(comparison)
    rows = []
    for table in dict.fromkeys(tables):
        mine = grid[tables == table]
        for reading in [column for column in mine.columns if mine[column].notna().all()]:
            rows.append(
                {
                    "table": table,
                    "reading": reading,
                    "within": int(mine[reading].fillna(False).sum()),
                    "numbers": int(eligible[tables == table].sum()),
                    "diagnostic": reading in diagnostic,
                    "chosen": reading == best[table],
                }
            )
    return pd.DataFrame(rows, columns=["table", "reading", "within", "numbers", "diagnostic", "chosen"])


class TriedRow(Protocol):
    """A row (``DataFrame.itertuples``) of :func:`readings_tried`."""

    table: str
    reading: str
    within: int
    numbers: int
    diagnostic: bool
    chosen: bool


def tried_rows(tried: pd.DataFrame) -> Iterator[TriedRow]:
    """``tried.itertuples()`` (pandas-stubs types every field as any scalar; the columns are known)."""
    return cast(Iterator[TriedRow], tried.itertuples())


SENSITIVITY_COLUMNS = ["table", "numbers", "headline", "readings", "low", "high", "mean"]


def sensitivity(tried: pd.DataFrame) -> pd.DataFrame:
    """Per table of :func:`readings_tried`, the count under the headline and over its counted readings (the headline
    among them): how many, the lowest, the highest (the best reading, chosen after the runs) and the mean."""
    counted_readings = tried[~tried["diagnostic"].astype(bool)]
    rows = [
        {
            "table": table,
            "numbers": int(group["numbers"].iloc[0]),
            "headline": int(group.loc[group["reading"] == HEADLINE, "within"].sum()),
            "readings": len(group),
            "low": int(group["within"].min()),
            "high": int(group["within"].max()),
            "mean": float(group["within"].mean()),
        }
        for table, group in counted_readings.groupby("table", sort=False)
    ]
    return pd.DataFrame(rows, columns=SENSITIVITY_COLUMNS)


class SensitivityRow(Protocol):
    """A row (``DataFrame.itertuples``) of :func:`sensitivity` (:data:`SENSITIVITY_COLUMNS`)."""

    table: str
    numbers: int
    headline: int
    readings: int
    low: int
    high: int
    mean: float


def sensitivity_rows(frame: pd.DataFrame) -> Iterator[SensitivityRow]:
    """``frame.itertuples()`` (pandas-stubs types every field as any scalar; the columns are known)."""
    return cast(Iterator[SensitivityRow], frame.itertuples())


def chosen_readings(
    comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame], diagnostic: Collection[str] = ()
) -> dict[str, str | None]:
    """Config stem -> its table's best reading, chosen after the runs: a variant stem, or None for the headline."""
    best = best_per_table(comparison, within_by_reading(comparison, variants, diagnostic))
    return {table: None if reading == HEADLINE else reading for table, reading in best.items()}


MIN_ONE_WAY = 6
"""The fewest numbers beyond their standard error a one-direction finding rests on: with fewer, a sign test cannot
reach p < 0.05 even when they all point one way (2 x 0.5**5 = 0.0625)."""


def one_direction(comparison: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """The tables whose deviations point one way beyond their standard error more often than chance allows.

    The rule: per table, take its counted numbers whose deviation is beyond one standard error of the paper's
    value, taken as half the statistical part of its tolerance (two standard errors in the reference files); if
    at least :data:`MIN_ONE_WAY` of them and a two-sided sign test (binomial, p = 1/2) over their directions gives
    p < ``alpha``, the table is shifted one way. The numbers of a table come from the same runs, so the test's p
    is a screen, not an exact probability.

    Returns
    -------
    DataFrame
        One row per shifted table: ``table``, ``direction`` (``above`` / ``below`` the paper), ``same`` (numbers
        beyond their standard error on that side), ``beyond`` (all beyond it), ``smallest`` and ``largest``
        (deltas on that side), ``p``.
    """
    columns = ["table", "direction", "same", "beyond", "smallest", "largest", "p"]
    if "statistical" not in comparison:
        return pd.DataFrame(columns=columns)
    se = pd.to_numeric(comparison["statistical"], errors="coerce") / 2
    beyond = comparison[counted(comparison) & (comparison["delta"].abs() > se)]
    rows = []
    for table, group in beyond.groupby(beyond["config"].map(table_of), sort=False):
        sign = 1 if (group["delta"] > 0).sum() * 2 >= len(group) else -1
        side = group["delta"][group["delta"] * sign > 0].abs()
        if len(group) < MIN_ONE_WAY or (p := binomtest(len(side), len(group), 0.5).pvalue) >= alpha:
            continue
        rows.append(
            {
                "table": table,
                "direction": "above" if sign > 0 else "below",
                "same": len(side),
                "beyond": len(group),
                "smallest": sign * float(side.min()),
                "largest": sign * float(side.max()),
                "p": float(p),
            }
        )
    return pd.DataFrame(rows, columns=columns)


def only_redrawn(headline: Mapping, variant: Mapping) -> bool:
    """Whether a variant's config (a mapping of its fields) differs from its headline's only in :data:`REDRAW_KEYS`
    (and in :data:`IDENTITY_KEYS`): a redraw of the headline's splits, which is no reading of the paper."""

    def computed(config: Mapping) -> dict:
        return {key: value for key, value in config.items() if key not in (*IDENTITY_KEYS, *REDRAW_KEYS)}

    return computed(headline) == computed(variant)
