"""reproductions.framework.readings: the headline count and the readings beside it, on hand-built tables whose answers are
known."""

from __future__ import annotations

import pandas as pd
import pytest

from reproductions.framework.readings import (
    BY_CHECK,
    BY_CONSTRUCTION,
    BY_VARIANT,
    DEGENERATE,
    FLOOR_ONLY,
    HEADLINE,
    NOT_EXPLAINED,
    NOT_RUN,
    WITHIN,
    chosen_readings,
    one_direction,
    only_redrawn,
    readings,
    readings_tried,
    sensitivity,
)

OURS = {"y": 0.5, "f": 0.55, "n": 0.9, "-": float("nan")}


def headline(table: str, holds: str, **columns) -> pd.DataFrame:
    """A headline comparison of ``table``: one number per character of ``holds`` (metric m0, m1, ...), 'y' within its
    statistical part (ours = the paper's 0.5), 'f' inside the floor only (0.55: statistical part 0.03, floor and
    tolerance 0.1), 'n' outside (0.9), '-' not run."""
    frame = pd.DataFrame(
        {
            "config": f"reproductions/p/configs/{table}.yaml",
            "method": "M",
            "metric": [f"m{i}" for i in range(len(holds))],
            "reference": 0.5,
            "ours": [OURS[c] for c in holds],
            "tolerance": 0.1,
            "statistical": 0.03,
            "floor": 0.1,
        }
    )
    frame["delta"] = frame["ours"] - frame["reference"]
    frame["ok"] = frame["delta"].abs() <= frame["tolerance"]
    return frame.assign(**columns)


def variant(table: str, holds: str) -> pd.DataFrame:
    """A variant's comparison rows, as :func:`headline`'s less the tolerance's parts (a variant's run knows only the
    whole tolerance), ``config`` the table's stem; '-' leaves the number out."""
    frame = headline(table, holds).drop(columns=["statistical", "floor"]).assign(config=table)
    return frame.dropna(subset=["ours"])


def test_the_headline_counts_the_headline_run_alone_and_the_best_reading_is_only_labelled():
    comparison = headline("t", "ynnn")
    verdicts = readings(comparison, {"t_good": variant("t", "yyyn"), "t_poor": variant("t", "nnny")})

    assert verdicts["within_headline"].sum() == 1
    assert set(verdicts["best_reading"]) == {"t_good"}
    assert verdicts["within_best_reading"].sum() == 3
    assert list(verdicts["outcome"]) == [WITHIN, BY_VARIANT, BY_VARIANT, BY_VARIANT]
    assert verdicts["within_any_reading"].sum() == 4
    assert list(verdicts["ours_under_best"]) == [0.5, 0.5, 0.5, 0.9]


def test_within_means_within_the_statistical_part_and_the_floor_alone_is_its_own_outcome():
    comparison = headline("t", "yfn")
    verdicts = readings(comparison, {})
    assert verdicts["within_headline"].tolist() == [True, False, False]
    assert verdicts["floor_only"].tolist() == [False, True, False]
    assert list(verdicts["outcome"]) == [WITHIN, FLOOR_ONLY, NOT_EXPLAINED]


def test_a_reading_is_held_to_the_statistical_part_too():
    """The variant's rows carry the whole tolerance only; 'f' there is inside the floor, not within."""
    comparison = headline("t", "nn")
    tried = readings_tried(comparison, {"t_read": variant("t", "fy")})
    assert dict(zip(tried["reading"], tried["within"])) == {HEADLINE: 0, "t_read": 1}


def test_a_number_without_a_statistical_part_is_held_to_its_whole_tolerance():
    comparison = headline("t", "yf", statistical=[0.03, float("nan")])
    assert readings(comparison, {})["within_headline"].tolist() == [True, True]


@pytest.mark.parametrize(
    ("variants", "chosen"),
    [
        ({"t_b": "yyn", "t_a": "yyn"}, "t_a"),  # a tie between variants: the first by name
        ({"t_a": "nyn"}, HEADLINE),  # a tie with the headline: the headline
    ],
)
def test_the_best_reading_ties_go_to_the_headline_then_to_the_variant_first_by_name(variants, chosen):
    comparison = headline("t", "ynn" if chosen == HEADLINE else "nnn")
    verdicts = readings(comparison, {stem: variant("t", holds) for stem, holds in variants.items()})
    assert set(verdicts["best_reading"]) == {chosen}


def test_a_diagnostic_reading_never_counts_even_when_it_holds_every_number():
    comparison = headline("t", "ynn")
    verdicts = readings(
        comparison, {"t_probe": variant("t", "yyy"), "t_read": variant("t", "yyn")}, diagnostic={"t_probe"}
    )

    assert set(verdicts["best_reading"]) == {"t_read"}
    assert verdicts["within_any_reading"].sum() == 2
    assert list(verdicts["outcome"]) == [WITHIN, BY_VARIANT, NOT_EXPLAINED]


def test_a_number_a_variant_did_not_compute_is_not_within_under_it():
    comparison = headline("t", "yyynn")
    verdicts = readings(comparison, {"t_part": variant("t", "---yy")})
    assert set(verdicts["best_reading"]) == {HEADLINE}
    assert verdicts["within_best_reading"].sum() == 3


@pytest.mark.parametrize(
    ("check", "explained"),
    [
        ({"inconsistent": [True], "beyond_tolerance": [True]}, True),
        (
            {"inconsistent": [True], "beyond_tolerance": [False]},
            False,
        ),  # inconsistent, but within tolerance of a reading
        ({"inconsistent": [False], "beyond_tolerance": [True]}, False),
        ({"inconsistent": [True], "margin": [0.001]}, True),  # das_consistency's margin is beyond the tolerance
        ({"inconsistent": [False], "margin": [-0.02]}, False),
        ({"inconsistent": [True]}, False),  # a check that does not say how far explains nothing
    ],
)
def test_a_check_explains_a_number_only_where_it_shows_the_paper_beyond_tolerance_of_every_reading(check, explained):
    comparison = headline("t", "yn")
    checks = [pd.DataFrame({"config": ["t"], "method": ["M"], "metric": ["m1"], **check})]
    verdicts = readings(comparison, {}, checks)
    assert verdicts.at[1, "outcome"] == (BY_CHECK if explained else NOT_EXPLAINED)
    assert verdicts.at[0, "outcome"] == WITHIN


@pytest.mark.parametrize(
    ("covers", "explained"),
    [
        (None, True),  # no readings column: the check measured the headline runs
        ("t_read", False),  # another reading's runs say nothing of the headline's
        ("t, t_read", True),
    ],
)
def test_a_check_explains_a_number_only_where_it_covers_the_headline_run(covers, explained):
    comparison = headline("t", "nnn")
    check = {"config": ["t"], "method": ["M"], "metric": ["m2"], "inconsistent": [True], "beyond_tolerance": [True]}
    checks = [pd.DataFrame(check if covers is None else {**check, "readings": [covers]})]
    verdicts = readings(comparison, {"t_read": variant("t", "yyn")}, checks)
    assert verdicts.at[2, "outcome"] == (BY_CHECK if explained else NOT_EXPLAINED)


def test_a_number_equal_by_construction_or_not_run_is_counted_as_reproduced_nowhere():
    comparison = headline("t", "yy-", by_construction=["", "always 0 for both", ""])
    verdicts = readings(comparison, {"t_read": variant("t", "yyy")})

    assert list(verdicts["outcome"]) == [WITHIN, BY_CONSTRUCTION, NOT_RUN]
    for column in ("within_headline", "within_best_reading", "within_any_reading"):
        assert verdicts[column].tolist() == [True, False, False], column


def test_a_number_on_a_degenerate_model_is_counted_as_reproduced_nowhere():
    comparison = headline("t", "yyn", degenerate=["", "no components: 15 of 15 empty", None])
    verdicts = readings(comparison, {"t_read": variant("t", "yyy")})

    assert list(verdicts["outcome"]) == [WITHIN, DEGENERATE, BY_VARIANT]
    assert verdicts["within_headline"].tolist() == [True, False, False]


def test_every_reading_tried_is_listed_with_its_count_and_the_best_marked():
    comparison = headline("t", "ynn")
    tried = readings_tried(
        comparison,
        {"t_good": variant("t", "yyn"), "t_probe": variant("t", "yyy"), "t_part": variant("t", "-y-")},
        diagnostic={"t_probe"},
    )
    rows = {row.reading: (row.within, row.numbers, row.diagnostic, row.chosen) for row in tried.itertuples()}
    assert rows == {
        HEADLINE: (1, 3, False, False),
        "t_good": (2, 3, False, True),
        "t_part": (1, 3, False, False),
        "t_probe": (3, 3, True, False),
    }
    assert chosen_readings(comparison, {"t_good": variant("t", "yyn")}) == {"t": "t_good"}


def test_the_sensitivity_gives_per_table_the_headline_and_the_range_and_mean_over_counted_readings():
    """p1: headline 1, readings 3 and 2 (and a diagnostic 3, left out); p2: headline 3, a reading 0."""
    comparison = pd.concat([headline("p1", "ynn"), headline("p2", "yyy")], ignore_index=True)
    variants = {
        "p1_order": variant("p1", "yyy"),
        "p1_scale": variant("p1", "yyn"),
        "p1_probe": variant("p1", "yyy"),
        "p2_order": variant("p2", "nnn"),
    }
    spread = sensitivity(readings_tried(comparison, variants, diagnostic={"p1_probe"})).set_index("table")

    assert spread.loc["p1"].to_dict() == {"numbers": 3, "headline": 1, "readings": 3, "low": 1, "high": 3, "mean": 2.0}
    assert spread.loc["p2"].to_dict() == {"numbers": 3, "headline": 3, "readings": 2, "low": 0, "high": 3, "mean": 1.5}


def shifted(deltas: list[float], statistical: float = 0.02) -> pd.DataFrame:
    """A table ``t`` whose numbers deviate by ``deltas`` from a paper value of 0.5."""
    frame = pd.DataFrame(
        {
            "config": "t.yaml",
            "method": "M",
            "metric": [f"m{i}" for i in range(len(deltas))],
            "reference": 0.5,
            "delta": deltas,
            "tolerance": 0.05,
            "statistical": statistical,
        }
    )
    return frame.assign(ours=frame["reference"] + frame["delta"], ok=frame["delta"].abs() <= 0.05)


@pytest.mark.parametrize(
    ("deltas", "found"),
    [
        ([0.011, 0.02, 0.015, 0.03, 0.012, 0.011], ("above", 6, 6)),  # six beyond one SE (0.01), all above
        ([-0.011, -0.02, -0.015, -0.03, -0.012, -0.011, 0.04], ("below", 6, 7)),  # 6 of 7: p = 0.125: not found
        ([0.011, 0.02, 0.015, 0.03, 0.012], None),  # five: a sign test cannot reach 0.05
        ([0.011, 0.02, 0.015, 0.03, 0.012, 0.009, 0.009], None),  # two are within one SE: five remain
        ([0.011, -0.02, 0.015, -0.03, 0.012, -0.011], None),  # both ways
    ],
)
def test_a_table_whose_deviations_point_one_way_beyond_their_standard_error_is_found(deltas, found):
    table = one_direction(shifted(deltas))
    if found is None or found[1] < found[2]:
        assert table.empty
        return
    row = table.iloc[0]
    assert (row["table"], row["direction"], row["same"], row["beyond"]) == ("t", *found)
    assert row["p"] == pytest.approx(2 * 0.5**6)
    assert (row["smallest"], row["largest"]) == (0.011, 0.03)


def test_one_way_deviations_of_many_numbers_are_found_even_with_one_the_other_way():
    table = one_direction(shifted([-0.011] * 17 + [0.05]))
    assert table[["direction", "same", "beyond"]].values.tolist() == [["below", 17, 18]]


def test_numbers_not_counted_are_left_out_of_the_one_direction_rule():
    comparison = shifted([0.011] * 6).assign(by_construction=["always 0", "", "", "", "", ""])
    assert one_direction(comparison).empty


@pytest.mark.parametrize(
    ("change", "redrawn"),
    [
        ({"seed": 1}, True),
        ({"trials": 30, "seed": 7}, True),
        ({"name": "x_v", "description": "other", "reference": "variant"}, True),  # no change to what it computes
        ({"seed": 1, "dataset": {"draw": "file_order"}}, False),
        ({"protocol": "sweep"}, False),
    ],
)
def test_a_variant_that_only_redraws_the_headlines_splits_is_no_reading(change, redrawn):
    base = {
        "name": "x",
        "description": "",
        "dataset": {"draw": "random"},
        "protocol": "novelty",
        "seed": 0,
        "trials": 10,
        "reference": "headline",
    }
    assert only_redrawn(base, {**base, **change}) is redrawn
