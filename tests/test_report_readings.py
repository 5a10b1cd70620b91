"""kpca_bench.report.readings: the counting rule, on hand-built tables whose answers are known."""

from __future__ import annotations

import pandas as pd
import pytest

from kpca_bench.report.readings import (BY_CHECK, BY_CONSTRUCTION, BY_VARIANT, DEGENERATE, HEADLINE, NOT_EXPLAINED, NOT_RUN,
                                        WITHIN, chosen_readings, paper_reading, readings, readings_tried)


def headline(table: str, holds: str, **columns) -> pd.DataFrame:
    """A headline comparison of ``table``: one number per character of ``holds`` (metric m0, m1, ...), 'y' within
    tolerance (ours = the paper's 0.5), 'n' outside (0.9), '-' not run; tolerance 0.1."""
    ours = [{"y": 0.5, "n": 0.9, "-": float("nan")}[c] for c in holds]
    frame = pd.DataFrame({"config": f"reproductions/p/configs/{table}.yaml", "method": "M",
                          "metric": [f"m{i}" for i in range(len(holds))], "reference": 0.5, "ours": ours,
                          "tolerance": 0.1})
    frame["delta"] = frame["ours"] - frame["reference"]
    frame["ok"] = frame["delta"].abs() <= frame["tolerance"]
    return frame.assign(**columns)


def variant(table: str, holds: str) -> pd.DataFrame:
    """A variant's comparison rows, as :func:`headline`'s, ``config`` the table's stem; '-' leaves the number out."""
    frame = headline(table, holds).assign(config=table)
    return frame.dropna(subset=["ours"])


def test_the_reading_bringing_most_numbers_within_is_the_tables_and_counts_for_every_number():
    comparison = headline("t", "ynnn")
    verdicts = readings(comparison, {"t_good": variant("t", "yyyn"), "t_poor": variant("t", "nnny")})

    assert set(verdicts["reading"]) == {"t_good"}
    assert verdicts["within_headline"].sum() == 1
    assert verdicts["within_table_reading"].sum() == 3
    assert list(verdicts["outcome"]) == [BY_VARIANT, BY_VARIANT, BY_VARIANT, NOT_EXPLAINED]
    # the old count credits the last number to t_poor, a reading the table does not take
    assert verdicts["within_any_reading"].sum() == 4
    assert list(verdicts["ours_under_reading"]) == [0.5, 0.5, 0.5, 0.9]


def test_a_variant_that_pushes_numbers_out_loses_to_the_headline_and_explains_nothing():
    """t_push brings m3 in and pushes m0 and m1 out: 2 within against the headline's 3."""
    comparison = headline("t", "yyynn")
    verdicts = readings(comparison, {"t_push": variant("t", "nnyyn")})

    assert set(verdicts["reading"]) == {HEADLINE}
    assert list(verdicts["outcome"]) == [WITHIN, WITHIN, WITHIN, NOT_EXPLAINED, NOT_EXPLAINED]
    assert verdicts["within_any_reading"].tolist() == [True, True, True, True, False]


def test_a_chosen_variant_that_pushes_a_number_out_leaves_it_not_explained():
    comparison = headline("t", "ynnn")
    verdicts = readings(comparison, {"t_push": variant("t", "nyyy")})

    assert set(verdicts["reading"]) == {"t_push"}
    assert verdicts["within_headline"].tolist() == [True, False, False, False]
    assert list(verdicts["outcome"]) == [NOT_EXPLAINED, BY_VARIANT, BY_VARIANT, BY_VARIANT]


@pytest.mark.parametrize(("variants", "chosen"), [
    ({"t_b": "yyn", "t_a": "yyn"}, "t_a"),   # a tie between variants: the first by name
    ({"t_a": "nyn"}, HEADLINE),              # a tie with the headline: the headline
])
def test_ties_go_to_the_headline_then_to_the_variant_first_by_name(variants, chosen):
    comparison = headline("t", "ynn" if chosen == HEADLINE else "nnn")
    verdicts = readings(comparison, {stem: variant("t", holds) for stem, holds in variants.items()})
    assert set(verdicts["reading"]) == {chosen}


def test_a_diagnostic_reading_never_counts_even_when_it_holds_every_number():
    comparison = headline("t", "ynn")
    verdicts = readings(comparison, {"t_probe": variant("t", "yyy"), "t_read": variant("t", "yyn")},
                        diagnostic={"t_probe"})

    assert set(verdicts["reading"]) == {"t_read"}
    assert verdicts["within_table_reading"].sum() == 2
    assert verdicts["within_any_reading"].sum() == 2


def test_a_number_a_variant_did_not_compute_is_not_within_under_it():
    """t_part ran the last two numbers only: 2 within, against the headline's 3 of the first three."""
    comparison = headline("t", "yyynn")
    verdicts = readings(comparison, {"t_part": variant("t", "---yy")})
    assert set(verdicts["reading"]) == {HEADLINE}
    assert verdicts["within_table_reading"].sum() == 3


@pytest.mark.parametrize(("check", "explained"), [
    ({"inconsistent": [True], "beyond_tolerance": [True]}, True),
    ({"inconsistent": [True], "beyond_tolerance": [False]}, False),   # inconsistent, but within tolerance of a reading
    ({"inconsistent": [False], "beyond_tolerance": [True]}, False),
    ({"inconsistent": [True], "margin": [0.001]}, True),    # das_consistency's margin is beyond the tolerance
    ({"inconsistent": [False], "margin": [-0.02]}, False),
    ({"inconsistent": [True]}, False),                      # a check that does not say how far explains nothing
])
def test_a_check_explains_a_number_only_where_it_shows_the_paper_beyond_tolerance_of_every_reading(check, explained):
    comparison = headline("t", "yn")
    checks = [pd.DataFrame({"config": ["t"], "method": ["M"], "metric": ["m1"], **check})]
    verdicts = readings(comparison, {}, checks)
    assert verdicts.at[1, "outcome"] == (BY_CHECK if explained else NOT_EXPLAINED)
    assert verdicts.at[0, "outcome"] == WITHIN


def test_a_check_does_not_explain_a_number_its_tables_reading_holds():
    comparison = headline("t", "nn")
    checks = [pd.DataFrame({"config": ["t"], "method": ["M"], "metric": ["m0"], "inconsistent": [True],
                            "beyond_tolerance": [True]})]
    verdicts = readings(comparison, {"t_read": variant("t", "yn")}, checks)
    assert list(verdicts["outcome"]) == [BY_VARIANT, NOT_EXPLAINED]


@pytest.mark.parametrize(("covers", "explained"), [
    (None, False),                 # no readings column: the check measured the headline runs only
    ("t", False),                  # the headline only, and the table is held to t_read
    ("t, t_read", True),           # its ranges include the table's reading
])
def test_a_check_explains_a_number_only_under_a_reading_it_covers(covers, explained):
    """The table takes t_read (2 within against the headline's 0); m2 stays out under it."""
    comparison = headline("t", "nnn")
    check = {"config": ["t"], "method": ["M"], "metric": ["m2"], "inconsistent": [True], "beyond_tolerance": [True]}
    checks = [pd.DataFrame(check if covers is None else {**check, "readings": [covers]})]
    verdicts = readings(comparison, {"t_read": variant("t", "yyn")}, checks)
    assert set(verdicts["reading"]) == {"t_read"}
    assert verdicts.at[2, "outcome"] == (BY_CHECK if explained else NOT_EXPLAINED)


def test_a_number_equal_by_construction_or_not_run_is_counted_as_reproduced_nowhere():
    comparison = headline("t", "yy-", by_construction=["", "always 0 for both", ""])
    verdicts = readings(comparison, {"t_read": variant("t", "yyy")})

    assert list(verdicts["outcome"]) == [WITHIN, BY_CONSTRUCTION, NOT_RUN]
    for column in ("within_headline", "within_table_reading", "within_paper_reading", "within_any_reading"):
        assert verdicts[column].tolist() == [True, False, False], column


def test_within_on_statistics_alone_uses_the_statistical_part_not_the_floor():
    comparison = headline("t", "yy", statistical=[0.0, 0.02])
    comparison["ours"] = [0.51, 0.51]
    comparison["delta"] = comparison["ours"] - comparison["reference"]
    assert readings(comparison, {})["within_statistics"].tolist() == [False, True]


def test_one_reading_per_paper_applies_one_kind_to_every_table_the_headline_where_a_table_lacks_it():
    """p1: headline 1 of 3, p1_order 3, p1_scale 2; p2: headline 3 of 3, p2_order 0. By table p1_order and the
    headline: 6. By paper: the headline 4, order 3 + 0, scale 2 + p2's headline 3 = 5."""
    comparison = pd.concat([headline("p1", "ynn"), headline("p2", "yyy")], ignore_index=True)
    variants = {"p1_order": variant("p1", "yyy"), "p1_scale": variant("p1", "yyn"), "p2_order": variant("p2", "nnn")}
    verdicts = readings(comparison, variants)

    assert paper_reading(comparison, variants) == "scale"
    assert verdicts["within_paper_reading"].sum() == 5
    assert verdicts["within_table_reading"].sum() == 6
    assert verdicts["within_headline"].sum() == 4
    assert chosen_readings(comparison, variants) == {"p1": "p1_order", "p2": None}


def test_a_number_on_a_degenerate_model_is_counted_as_reproduced_nowhere():
    comparison = headline("t", "yyn", degenerate=["", "no components: 15 of 15 empty", None])
    verdicts = readings(comparison, {"t_read": variant("t", "yyy")})

    assert list(verdicts["outcome"]) == [BY_VARIANT, DEGENERATE, BY_VARIANT]
    assert verdicts["within_headline"].tolist() == [True, False, False]


def test_every_reading_tried_is_listed_with_its_count_and_the_choice_marked():
    comparison = headline("t", "ynn")
    tried = readings_tried(comparison, {"t_good": variant("t", "yyn"), "t_probe": variant("t", "yyy"),
                                        "t_part": variant("t", "-y-")}, diagnostic={"t_probe"})
    rows = {row.reading: (row.within, row.numbers, row.diagnostic, row.chosen) for row in tried.itertuples()}
    assert rows == {HEADLINE: (1, 3, False, False), "t_good": (2, 3, False, True), "t_part": (1, 3, False, False),
                    "t_probe": (3, 3, True, False)}
