"""The counting rule of REPORT.md: which reading of a paper each of its tables is held to.

A *table* is one block of a paper's results, the numbers one headline config reproduces (one Li
dataset, one Wang table, one Das dataset, one SAS example): it is known by the config's file stem.
A *reading* of a table is its headline run or one of its variant runs (``configs/variants/``,
``reference.variant_of`` naming the table), applied to every number of the table. A number a
variant run did not compute (it ran some methods only) is not within under that reading: the
reading is not credited with a value it was not seen to give.

* **One reading per table** (the headline count): per table, the reading that brings the most of
  its numbers within tolerance; ties go to the headline, then to the variant first in name order.
  A number that only another reading of its table holds within tolerance is not explained.
* **One reading per paper**: one reading *kind* (a variant's stem less its table's stem and ``_``,
  e.g. ``file_order``) applied to every table of the paper, the headline where a table has no
  variant of that kind; chosen by the paper's count, ties as above.
* **Any reading per number**: the old, generous count, a number held by any reading of its table.

Diagnostic readings (marked ``diagnostic: true`` in ``choices.yaml``) never count. A consistency
check explains a number outside tolerance under its table's reading only where its row finds the
paper's value inconsistent with its protocol *and* beyond tolerance of every reading's range
(column ``beyond_tolerance``, or a positive ``margin``, the distance by which the paper's value clears the
tolerance of every split of every reading), and only where the check covers the table's reading (column
``readings``, the run stems its ranges come from; the headline run alone where it has none). A number equal by
construction (``by_construction`` in ``numbers.yaml``) or resting on a degenerate model (``degenerate``, e.g.
a model with no components) is counted as neither reproduced nor missed.

Pure functions on DataFrames: the caller reads the files.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pandas as pd

HEADLINE = "headline"
NUMBER_KEYS = ["table", "method", "metric"]

WITHIN, BY_VARIANT, BY_CHECK = "within", "within under the table's reading", "explained by a check"
NOT_EXPLAINED, NOT_RUN, BY_CONSTRUCTION = "not explained", "not run", "equal by construction"
DEGENERATE = "on a degenerate model"
OUTCOMES = (WITHIN, BY_VARIANT, BY_CHECK, NOT_EXPLAINED, NOT_RUN, BY_CONSTRUCTION, DEGENERATE)


def table_of(config: str) -> str:
    """The table a comparison row belongs to: its headline config's file stem."""
    return Path(config).stem


def _numbers(comparison: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"table": comparison["config"].map(table_of), "method": comparison["method"],
                         "metric": comparison["metric"]}, index=comparison.index)


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


def within_by_reading(comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame],
                      diagnostic: Collection[str] = ()) -> pd.DataFrame:
    """Per number (``comparison``'s index), whether each reading of its table holds it within tolerance.

    Parameters
    ----------
    comparison : DataFrame
        The headline comparison rows (``config``, ``method``, ``metric``, ``ours``, ``ok``).
    variants : mapping
        Variant stem -> its comparison rows, ``config`` the stem of the table it reads differently.
    diagnostic : collection of str
        Variant stems that never count.

    Returns
    -------
    DataFrame
        Column :data:`HEADLINE`, then one column per counted variant of these tables in name order: True / False for the
        numbers of its table (False for a number the variant did not run), NA elsewhere.
        Numbers not run or equal by construction are False under every reading.
    """
    numbers = _numbers(comparison)
    eligible = counted(comparison)
    headline = comparison["ok"].astype(bool) & eligible
    columns = {HEADLINE: headline.astype("boolean")}
    for stem in sorted(set(variants) - set(diagnostic)):
        rows = variants[stem].dropna(subset=["ours"]).rename(columns={"config": "table"})
        if rows.empty or not (numbers["table"] == rows["table"].iloc[0]).any():
            continue
        ok = numbers.merge(rows[[*NUMBER_KEYS, "ok"]].drop_duplicates(NUMBER_KEYS), on=NUMBER_KEYS, how="left")["ok"]
        ok.index = comparison.index
        value = ok.fillna(False).astype(bool) & eligible
        columns[stem] = value.astype("boolean").where(numbers["table"] == rows["table"].iloc[0], pd.NA)
    return pd.DataFrame(columns, index=comparison.index)


def _best(counts: pd.Series) -> str:
    """The reading with the most numbers within: the first of the highest in ``counts``' order."""
    return str(counts.idxmax())


def _ordered_counts(grid: pd.DataFrame) -> pd.Series:
    """Numbers within per reading that applies to ``grid``'s rows: the headline first, then the variants in name order."""
    applies = [column for column in grid.columns if grid[column].notna().all()]
    return grid[applies].fillna(False).astype(int).sum()


def chosen_per_table(comparison: pd.DataFrame, grid: pd.DataFrame) -> dict[str, str]:
    """Table -> its one reading (:data:`HEADLINE` or a variant stem), the one bringing most numbers within."""
    tables = comparison["config"].map(table_of)
    return {table: _best(_ordered_counts(grid[tables == table])) for table in dict.fromkeys(tables)}


def reading_kind(stem: str, table: str) -> str:
    """A variant's kind of reading: its stem less its table's stem and ``_`` (``li_chess_file_order`` -> ``file_order``)."""
    return stem.removeprefix(f"{table}_")


def paper_grid(comparison: pd.DataFrame, grid: pd.DataFrame) -> pd.DataFrame:
    """Per number, within under each reading kind applied to every table (the headline where a table lacks it)."""
    tables = comparison["config"].map(table_of)
    kinds: dict[str, dict[str, str]] = {}
    for stem in grid.columns.drop(HEADLINE):
        table = tables[grid[stem].notna()].iloc[0]
        kinds.setdefault(reading_kind(stem, table), {})[table] = stem
    columns = {HEADLINE: grid[HEADLINE]}
    for kind in sorted(kinds):
        column = grid[HEADLINE].copy()
        for table, stem in kinds[kind].items():
            column[tables == table] = grid.loc[tables == table, stem]
        columns[kind] = column
    return pd.DataFrame(columns, index=grid.index)


def chosen_per_paper(comparison: pd.DataFrame, grid: pd.DataFrame) -> str:
    """The one reading kind (or :data:`HEADLINE`) that, applied to every table, brings most numbers within."""
    return _best(_ordered_counts(paper_grid(comparison, grid)))


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


def explained_by_checks(comparison: pd.DataFrame, checks: Sequence[pd.DataFrame],
                        reading: pd.Series | None = None) -> pd.Series:
    """Per number, whether some check (rows ``config`` stem, ``method``, ``metric``) explains it (module docstring):
    the check must cover the number's table's reading (``reading``, :data:`HEADLINE` or a variant stem; the
    headline where not given), since a range measured under one reading says nothing of another."""
    numbers = _numbers(comparison)
    held_to = numbers["table"] if reading is None else reading.where(reading != HEADLINE, numbers["table"])
    explained = pd.Series(False, index=comparison.index)
    for table in checks:
        beyond = table.assign(beyond=beyond_tolerance(table), covers=covered_readings(table))
        beyond = beyond.rename(columns={"config": "table"}).groupby(NUMBER_KEYS).agg(
            beyond=("beyond", "all"), covers=("covers", lambda sets: set.intersection(*sets))).reset_index()
        merged = numbers.merge(beyond, on=NUMBER_KEYS, how="left")
        merged.index = comparison.index
        hit = [bool(row.beyond) and isinstance(row.covers, set) and held_to[i] in row.covers
               for i, row in merged.iterrows()]
        explained |= pd.Series(hit, index=comparison.index, dtype=bool)
    return explained


def statistical_within(comparison: pd.DataFrame) -> pd.Series:
    """Per number, whether the headline holds it within its tolerance's statistical part alone (no floor)."""
    if "statistical" not in comparison:
        return pd.Series(False, index=comparison.index)
    return counted(comparison) & (comparison["delta"].abs() <= comparison["statistical"])


def readings(comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame], checks: Sequence[pd.DataFrame] = (),
             diagnostic: Collection[str] = ()) -> pd.DataFrame:
    """Per number: its table's reading and every count's verdict.

    Returns
    -------
    DataFrame
        Indexed as ``comparison``, with columns ``reading`` (its table's one reading), ``ours_under_reading``
        (our value under it), ``within_headline``,
        ``within_table_reading``, ``within_paper_reading``, ``within_any_reading`` (any reading per number),
        ``within_statistics`` (the headline, on the statistical part of the tolerance alone),
        ``by_check`` and ``outcome`` (one of :data:`OUTCOMES`, under one reading per table).
    """
    grid = within_by_reading(comparison, variants, diagnostic)
    chosen = chosen_per_table(comparison, grid)
    reading = comparison["config"].map(table_of).map(chosen)
    under_reading = pd.Series([bool(grid.at[i, r]) for i, r in reading.items()], index=comparison.index, dtype=bool)
    paper = paper_grid(comparison, grid)[chosen_per_paper(comparison, grid)] if len(grid) else grid[HEADLINE]
    by_check = explained_by_checks(comparison, checks, reading) & counted(comparison) & ~under_reading
    table = pd.DataFrame({
        "reading": reading,
        "ours_under_reading": value_under_reading(comparison, variants, reading),
        "within_headline": grid[HEADLINE].fillna(False).astype(bool),
        "within_table_reading": under_reading,
        "within_paper_reading": paper.fillna(False).astype(bool),
        "within_any_reading": grid.fillna(False).astype(bool).any(axis=1),
        "within_statistics": statistical_within(comparison),
        "by_check": by_check,
    }, index=comparison.index)
    table["outcome"] = outcome(comparison, table)
    return table


def value_under_reading(comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame], reading: pd.Series) -> pd.Series:
    """Per number, our value under its table's reading (``reading``): the headline's or its variant's, NaN if not run."""
    numbers = _numbers(comparison)
    values = comparison["ours"].astype(float).copy()
    for stem in set(reading) - {HEADLINE}:
        rows = variants[stem].rename(columns={"config": "table"}).drop_duplicates(NUMBER_KEYS)
        ours = numbers.merge(rows[[*NUMBER_KEYS, "ours"]], on=NUMBER_KEYS, how="left")["ours"].set_axis(comparison.index)
        values[reading == stem] = ours[reading == stem]
    return values


def outcome(comparison: pd.DataFrame, verdicts: pd.DataFrame) -> pd.Series:
    """Per number, one of :data:`OUTCOMES` under one reading per table."""
    degenerate = on_degenerate_model(comparison)
    by_construction = comparison["ours"].notna() & ~counted(comparison) & ~degenerate
    values = [NOT_RUN if pd.isna(row.ours) else DEGENERATE if degenerate[i] else BY_CONSTRUCTION if by_construction[i]
              else WITHIN if verdicts.at[i, "within_headline"] and verdicts.at[i, "reading"] == HEADLINE
              else BY_VARIANT if verdicts.at[i, "within_table_reading"]
              else BY_CHECK if verdicts.at[i, "by_check"] else NOT_EXPLAINED
              for i, row in zip(comparison.index, comparison.itertuples())]
    return pd.Series(values, index=comparison.index, dtype=object)


def readings_tried(comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame],
                   diagnostic: Collection[str] = ()) -> pd.DataFrame:
    """Every reading of every table with the count of the table's numbers it holds within tolerance.

    Returns
    -------
    DataFrame
        One row per (table, reading): ``table``, ``reading`` (:data:`HEADLINE` or a variant stem), ``within``,
        ``numbers`` (the table's counted numbers), ``diagnostic`` (never counts) and ``chosen`` (the table's
        one reading).
    """
    grid = within_by_reading(comparison, variants)
    chosen = chosen_per_table(comparison, grid.drop(columns=[stem for stem in diagnostic if stem in grid]))
    tables, eligible = comparison["config"].map(table_of), counted(comparison)
    rows = []
    for table in dict.fromkeys(tables):
        mine = grid[tables == table]
        for reading in [column for column in mine.columns if mine[column].notna().all()]:
            rows.append({"table": table, "reading": reading, "within": int(mine[reading].fillna(False).sum()),
                         "numbers": int(eligible[tables == table].sum()), "diagnostic": reading in diagnostic,
                         "chosen": reading == chosen[table]})
    return pd.DataFrame(rows, columns=["table", "reading", "within", "numbers", "diagnostic", "chosen"])


def chosen_readings(comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame],
                    diagnostic: Collection[str] = ()) -> dict[str, str | None]:
    """Config stem -> its table's one reading: a variant stem, or None for the headline."""
    chosen = chosen_per_table(comparison, within_by_reading(comparison, variants, diagnostic))
    return {table: None if reading == HEADLINE else reading for table, reading in chosen.items()}


def paper_reading(comparison: pd.DataFrame, variants: Mapping[str, pd.DataFrame],
                  diagnostic: Collection[str] = ()) -> str:
    """The paper's one reading: :data:`HEADLINE` or a reading kind applied to every table (module docstring)."""
    grid = within_by_reading(comparison, variants, diagnostic)
    return chosen_per_paper(comparison, grid) if len(grid) else HEADLINE
