"""A paper's claims get verdicts computed from hand-built stored trials (reproductions/framework/claims.py): holds,
partly, fails, a tie, not run, and a chosen reading that differs from the headline."""

import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml

from kpca_bench.errors import ConfigError
from reproductions.framework.claims import (
    START,
    stored_readings,
    Case,
    case_text,
    claim_verdict,
    claims_analysis,
    claims_held,
    claims_table,
    claims_tally,
    evaluate_claims,
    write_claims_block,
    write_claims_csv,
)
from reproductions.framework.findings import load_claims
from kpca_bench.experiment.store import ResultStore

AHEAD = [0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99]


def run(root: Path, stem: str, values: dict[str, list[float]], metric: str = "auroc") -> Path:
    """A run folder ``root/stem`` whose trials.csv holds ``values`` (method -> one value per trial)."""
    folder = root / stem
    folder.mkdir(parents=True)
    rows = [
        {"method": method, "trial": trial, "status": "ok", metric: value}
        for method, per_trial in values.items()
        for trial, value in enumerate(per_trial)
    ]
    pd.DataFrame(rows).to_csv(folder / "trials.csv", index=False)
    return folder


def claims_file(tmp_path: Path, entries: list[dict]) -> Path:
    reference = tmp_path / "reference"
    reference.mkdir(exist_ok=True)
    (reference / "claims.yaml").write_text(yaml.safe_dump(entries, sort_keys=False))
    return reference


def claim(configs, rule, text="A beats B"):
    return {
        "paper": "Someone et al.",
        "claim": text,
        "source": "Section 5: 'A is better'",
        "configs": configs,
        "rule": rule,
    }


BEATS = {"kind": "beats", "method": "A", "than": ["B"], "metric": "auroc"}


def verdicts(tmp_path, entries, folders, readings=None):
    return evaluate_claims(load_claims(claims_file(tmp_path, entries)), folders, readings or {})


def test_a_method_ahead_in_every_paired_trial_holds_with_the_wilcoxon_p(tmp_path):
    folders = {"one": run(tmp_path, "one", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]})}
    [result] = verdicts(tmp_path, [claim(["one"], BEATS)], folders)

    assert result.holds == "holds"
    [case] = result.headline
    assert (case.outcome, case.ours, case.theirs) == ("holds", pytest.approx(0.945), pytest.approx(0.895))
    # ten pairs all one way: the exact two-sided p is 2 / 2**10
    assert "10 paired trials, Wilcoxon p = 0.00195" in case.detail


def test_holding_on_some_configs_only_is_partly_and_behind_everywhere_fails(tmp_path):
    folders = {
        "one": run(tmp_path, "one", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]}),
        "two": run(tmp_path, "two", {"A": AHEAD, "B": [v + 0.05 for v in AHEAD]}),
    }
    both, behind = verdicts(tmp_path, [claim(["one", "two"], BEATS), claim(["two"], BEATS)], folders)

    assert [case.outcome for case in both.headline] == ["holds", "fails"]
    assert (both.holds, both.verdict) == ("partly", "1 of 2 datasets hold; cases: 1 of 2 hold (1 fails)")
    assert behind.holds == "fails"


def test_trials_that_do_not_separate_the_methods_are_a_tie_and_a_tie_is_no_win(tmp_path):
    mixed = [v + (0.01 if i % 2 else -0.01) for i, v in enumerate(AHEAD)]
    folders = {
        "mixed": run(tmp_path, "mixed", {"A": AHEAD, "B": mixed}),
        "equal": run(tmp_path, "equal", {"A": AHEAD, "B": AHEAD}),
    }
    [result] = verdicts(tmp_path, [claim(["mixed", "equal"], BEATS)], folders)

    assert [case.outcome for case in result.headline] == ["tie", "tie"]
    assert "10 paired trials, Wilcoxon p = 1" in result.headline[0].detail
    assert "all equal" in result.headline[1].detail
    # ties only: the records do not separate the two, which is not the records contradicting the claim
    assert result.holds == "not shown"


def test_a_missing_run_method_or_metric_is_not_run(tmp_path):
    folders = {"ran": run(tmp_path, "ran", {"A": AHEAD}), "absent": tmp_path / "absent"}
    entries = [
        claim(["absent"], BEATS),
        claim(["ran"], BEATS),
        claim(["ran"], {**BEATS, "metric": "f1"}),
        claim(["ran", "absent"], {**BEATS, "than": ["A"]}),
    ]
    absent, no_method, no_metric, some = verdicts(tmp_path, entries, folders)

    assert absent.holds == no_method.holds == no_metric.holds == "not run"
    assert "no method 'B' in the records of ran" in no_method.headline[0].detail
    assert "no f1 in the records of ran" in no_metric.headline[0].detail
    # a case that ran and tied, one that did not run: nothing holds, nothing is contradicted
    assert [case.outcome for case in some.headline] == ["tie", "not run"]
    assert some.holds == "not shown"


def test_the_chosen_reading_is_evaluated_on_the_variants_run_beside_the_headline(tmp_path):
    folders = {
        "one": run(tmp_path, "one", {"A": AHEAD, "B": [v + 0.05 for v in AHEAD]}),
        "one_literal": run(tmp_path, "one_literal", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]}),
        "two": run(tmp_path, "two", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]}),
    }
    entries = [claim(["one", "two"], BEATS), claim(["two"], BEATS)]
    read, untouched = verdicts(tmp_path, entries, folders, {"one": "one_literal", "two": None})

    assert (read.holds, read.reading_holds) == ("partly", "holds")
    assert [case.runs for case in read.reading] == [("one_literal", "one_literal"), ("two", "two")]
    assert untouched.reading == () and untouched.reading_holds is None
    table = claims_table([read, untouched])
    assert "**partly**: 1 of 2 datasets hold; cases: 1 of 2 hold (1 fails); under the chosen readings: holds" in table
    assert "Under the chosen readings: `one` [runs one_literal]: A 0.945 vs B 0.895" in table


def test_close_and_faster_compare_the_means_with_the_claims_bound(tmp_path):
    folders = {"run": run(tmp_path, "run", {"fast": [1.0, 3.0], "exact": [40.0], "slow": [10.0]}, metric="fit_time")}
    close = {
        "kind": "close",
        "method": "fast",
        "than": ["exact", "slow"],
        "metric": "fit_time",
        "margin": 9,
        "basis": "test",
    }
    faster = {
        "kind": "faster",
        "method": "fast",
        "than": ["exact", "slow"],
        "metric": "fit_time",
        "better": "lower",
        "factor": 10,
        "basis": "an order of magnitude",
    }
    near, quick = verdicts(tmp_path, [claim(["run"], close), claim(["run"], faster)], folders)

    assert [case.outcome for case in near.headline] == ["fails", "holds"]
    assert "|difference| 8.000, margin 9" in near.headline[1].detail
    assert [case.outcome for case in quick.headline] == ["holds", "fails"]
    assert "2 and 1 trials, time ratio 20.00, needs 10" in quick.headline[0].detail


def test_a_label_at_another_config_and_a_lower_is_better_metric(tmp_path):
    folders = {
        "ours": run(tmp_path, "ours", {"A": AHEAD}, metric="error"),
        "theirs": run(tmp_path, "theirs", {"B": [v + 0.05 for v in AHEAD]}, metric="error"),
    }
    rule = {
        "kind": "beats",
        "method": "A",
        "than": ["B@theirs"],
        "metric": "error",
        "better": "lower",
        "configs": ["ours"],
    }
    [result] = verdicts(tmp_path, [claim(["ours", "theirs"], rule)], folders)

    assert result.holds == "holds"
    assert case_text(result.headline[0]).startswith("`ours` [runs ours / theirs]: A 0.945 vs B 0.995 (error; ")


def test_a_sweep_statistic_is_read_from_sweep_statistics(tmp_path):
    folder = tmp_path / "sweep"
    folder.mkdir()
    rows = [
        {"entry": entry, "trial": trial, "statistic": statistic, "auroc": value + (0.1 if entry == "MD" else 0)}
        for trial, value in enumerate(AHEAD)
        for entry in ("MD", "RE")
        for statistic in ("best", "25%")
    ]
    pd.DataFrame(rows).to_csv(folder / "sweep_statistics.csv", index=False)
    rule = {"kind": "beats", "method": "MD", "than": ["RE"], "metric": "auroc_q25"}
    [result] = verdicts(tmp_path, [claim(["sweep"], rule)], {"sweep": folder})

    assert result.holds == "holds"
    assert result.headline[0].ours == pytest.approx(1.045)


def test_claim_verdict_and_tally():
    def cases(*outcomes):
        """One case per outcome, each on its own config (``config:outcome`` puts it on ``config``)."""
        return [
            Case(o.partition(":")[0] if ":" in o else str(i), "A", "B", "auroc", o.rpartition(":")[2])
            for i, o in enumerate(outcomes)
        ]

    assert claim_verdict(cases("holds", "holds")) == "holds"
    assert claim_verdict(cases("holds", "tie", "not run")) == "partly"
    assert claim_verdict(cases("tie", "fails")) == "fails"
    assert claim_verdict(cases("tie", "not testable", "against a degenerate model")) == "not shown"
    assert claim_verdict(cases("not run")) == claim_verdict([]) == "not run"
    # a config holds only if all its cases do
    assert claim_verdict(cases("x:holds", "x:tie")) == "not shown"
    assert claim_verdict(cases("x:holds", "x:fails", "y:holds")) == "partly"
    assert claims_tally([]) == "–"


def test_a_claim_without_a_rule_keeps_its_verdict_by_hand(tmp_path):
    hand = {
        "paper": "Someone et al.",
        "claim": "Figure 2 looks right",
        "source": "Figure 2",
        "configs": [],
        "holds": "partly",
        "verdict": "in structure",
        "evidence": "the scatter matches",
    }
    [result] = verdicts(tmp_path, [hand], {})

    assert (result.computed, result.holds, result.verdict) == (False, "partly", "by hand: in structure")
    assert (
        "| Figure 2 looks right | Figure 2 | **partly**, by hand: in structure | the scatter matches |  |"
        in claims_table([result])
    )
    assert claims_tally([result]) == "0 of 1 (1 partly)"


def test_bad_claims_are_reported_all_at_once(tmp_path):
    entries = [
        claim(["one"], {**BEATS, "kind": "wins"}),
        claim(["one"], {"kind": "close", "method": "A", "than": ["B"], "metric": "auroc"}),
        claim(["one"], {**BEATS, "than": ["B@elsewhere"], "colour": "red"}),
        {"paper": "P", "claim": "c", "source": "s", "configs": [], "holds": "maybe", "verdict": "v", "evidence": "e"},
        {"paper": "P", "claim": "c", "source": "s", "configs": []},
    ]
    with pytest.raises(ConfigError) as error:
        load_claims(claims_file(tmp_path, entries))

    message = str(error.value)
    for part in (
        "entry 0: rule: kind must be one of beats, not_worse, steadier, close, faster, bound, most, got 'wins'",
        "entry 1: rule: kind close needs a number margin",
        "entry 2: rule: unknown key 'colour'",
        "entry 2: rule: config 'elsewhere' is not in the claim's configs",
        "entry 3: holds must be one of holds, partly, not shown, fails, not run, not assessed, got 'maybe'",
        "entry 4: a claim without a rule needs a verdict by hand",
    ):
        assert part in message


def test_the_claims_block_replaces_itself_and_keeps_the_prose_around_it(tmp_path):
    folders = {"one": run(tmp_path, "one", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]})}
    [result] = verdicts(tmp_path, [claim(["one"], BEATS)], folders)
    report = tmp_path / "report.md"
    report.write_text("# Report\n\nProse.\n")

    write_claims_block(report, [result])
    write_claims_block(report, [result])

    text = report.read_text()
    assert text.startswith("# Report\n\nProse.\n\n" + START)
    assert (
        text.count(START) == 1
        and "| A beats B | Section 5: 'A is better' | holds: 1 of 1 datasets hold; cases: 1 of 1 hold |" in text
    )
    assert "Wilcoxon signed-rank" in text


CONFIG = textwrap.dedent("""\
    name: {name}
    dataset: {{name: digits, inliers: [0], outliers: [1], train_inliers: 40, test_inliers: 20, test_outliers: 20}}
    methods:
      - {{name: kpca, label: A}}
    """)


def test_a_papers_claims_analysis_writes_each_configs_readme(tmp_path):
    folder = tmp_path / "reproductions" / "toy"
    (folder / "configs").mkdir(parents=True)
    (folder / "__init__.py").write_text(
        "from reproductions.framework.loader import Reproduction\n\n"
        "REPRODUCTION = Reproduction(reference='Someone et al.', citation='A. Toy.')\n"
    )
    for name in ("one", "two"):
        (folder / "configs" / f"{name}.yaml").write_text(CONFIG.format(name=name))
    (folder / "reference").mkdir()
    (folder / "reference" / "claims.yaml").write_text(yaml.safe_dump([claim(["one"], BEATS), claim(["two"], BEATS)]))
    results = tmp_path / "results"
    run(results, "one", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]})
    (results / "one" / "README.md").write_text("# one\n")

    written = claims_analysis("{config}/README.md")(results, sorted((folder / "configs").glob("*.yaml")))

    assert written == [results / "one" / "README.md"]
    text = written[0].read_text()
    assert "`one`: A 0.945 vs B 0.895" in text and "`two`" not in text


def test_a_papers_claims_analysis_takes_the_readings_report_wrote_beside_report_md(tmp_path):
    folder = tmp_path / "reproductions" / "toy"
    (folder / "__init__.py").parent.mkdir(parents=True)
    (folder / "__init__.py").write_text(
        "from reproductions.framework.loader import Reproduction\n\n"
        "REPRODUCTION = Reproduction(reference='Someone et al.', citation='A. Toy.')\n"
    )
    (folder / "configs" / "variants").mkdir(parents=True)
    (folder / "configs" / "one.yaml").write_text(CONFIG.format(name="one"))
    (folder / "configs" / "variants" / "one_literal.yaml").write_text(CONFIG.format(name="one_literal"))
    (folder / "reference").mkdir()
    (folder / "reference" / "claims.yaml").write_text(yaml.safe_dump([claim(["one"], BEATS)]))
    results = tmp_path / "results"
    run(results, "one", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]})
    run(results, "one_literal", {"A": [v - 0.1 for v in AHEAD]})
    (results / "one" / "README.md").write_text("# one\n")
    analyse = claims_analysis("{config}/README.md")
    configs = [folder / "configs" / "one.yaml"]

    assert "under the chosen readings" not in analyse(results, configs)[0].read_text()
    (results / "readings.csv").write_text(
        "table,reading,within,numbers,diagnostic,chosen\none,headline,0,1,False,False\none,one_literal,1,1,False,True\n"
    )
    assert stored_readings(results) == {"one": "one_literal"}
    assert "under the chosen readings: fails" in analyse(results, configs)[0].read_text()


def test_steadier_compares_the_spread_over_the_trials_with_the_brown_forsythe_test(tmp_path):
    steady = [0.90 + 0.001 * (i % 2) for i in range(10)]
    wild = [0.90 + 0.1 * (-1) ** i * (i + 1) / 10 for i in range(10)]
    folders = {
        "run": run(tmp_path, "run", {"A": steady, "B": wild, "C": [v + 0.0005 for v in reversed(steady)]}, metric="f1")
    }
    rule = {"kind": "steadier", "method": "A", "than": ["B", "C"], "metric": "f1"}
    rule_back = {**rule, "method": "B", "than": ["A"]}
    [forth, back] = verdicts(tmp_path, [claim(["run"], rule), claim(["run"], rule_back)], folders)

    assert [case.outcome for case in forth.headline] == ["holds", "tie"]
    assert "Brown-Forsythe p = " in forth.headline[0].detail
    assert back.holds == "fails"


def test_report_names_a_bad_claim_in_one_line_and_exits_2(tmp_path):
    from typer.testing import CliRunner

    from reproductions.framework.cli import app

    folder = tmp_path / "reproductions" / "toy"
    (folder / "reference").mkdir(parents=True)
    (folder / "__init__.py").write_text(
        "from reproductions.framework.loader import Reproduction\n\n"
        "REPRODUCTION = Reproduction(reference='Someone et al.', citation='A. Toy.')\n"
    )
    (folder / "reference" / "claims.yaml").write_text(yaml.safe_dump([claim([], {**BEATS, "kind": "wins"})]))

    result = CliRunner().invoke(
        app,
        [
            "report",
            "--out",
            str(tmp_path / "results"),
            "--configs",
            str(tmp_path),
            "--reproductions",
            str(tmp_path / "reproductions"),
        ],
    )

    assert result.exit_code == 2
    assert result.output.startswith("error: ") and "kind must be one of beats" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_a_method_the_variant_did_not_rerun_is_read_from_the_headline_run(tmp_path):
    folders = {
        "one": run(tmp_path, "one", {"A": AHEAD, "B": [v + 0.05 for v in AHEAD]}),
        "one_converge": run(tmp_path, "one_converge", {"A": [v + 0.10 for v in AHEAD]}),
    }
    [result] = verdicts(tmp_path, [claim(["one"], BEATS)], folders, {"one": "one_converge"})

    assert (result.holds, result.reading_holds) == ("fails", "holds")
    assert result.reading[0].runs == ("one_converge", "one")
    assert case_text(result.reading[0]).startswith("`one` [runs one_converge / one]: A 1.045 vs B 0.995")


def test_the_verdicts_are_data_one_row_per_case_and_reading(tmp_path):
    folders = {
        "one": run(tmp_path, "one", {"A": AHEAD, "B": [v + 0.05 for v in AHEAD]}),
        "one_literal": run(tmp_path, "one_literal", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]}),
    }
    hand = {
        "paper": "Someone et al.",
        "claim": "Figure 2",
        "source": "Figure 2",
        "configs": [],
        "holds": "partly",
        "verdict": "in structure",
        "evidence": "e",
    }
    results = verdicts(tmp_path, [claim(["one"], BEATS), hand], folders, {"one": "one_literal"})

    frame = pd.read_csv(write_claims_csv(tmp_path / "claims.csv", results))

    assert frame[["reading", "verdict", "outcome", "runs"]].fillna("").values.tolist() == [
        ["headline", "fails", "fails", "one / one"],
        ["chosen", "holds", "holds", "one_literal / one_literal"],
        ["by hand", "partly", "", ""],
    ]
    assert frame.loc[0, "ours"] == pytest.approx(0.945) and frame.loc[0, "theirs"] == pytest.approx(0.995)


def test_a_computed_claims_evidence_follows_its_numbers(tmp_path):
    folders = {"one": run(tmp_path, "one", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]})}
    entry = {**claim(["one"], BEATS), "evidence": "B has no components here."}
    [result] = verdicts(tmp_path, [entry], folders)

    assert "Wilcoxon p = 0.00195): holds. B has no components here. |" in claims_table([result])


def test_too_few_trials_for_any_p_below_alpha_are_not_testable(tmp_path):
    one = [0.9]
    folders = {
        "single": run(tmp_path, "single", {"A": one, "B": [0.5]}),
        "few": run(tmp_path, "few", {"A": AHEAD[:5], "B": [v - 0.05 for v in AHEAD[:5]]}),
        "six": run(tmp_path, "six", {"A": AHEAD[:6], "B": [v - 0.05 for v in AHEAD[:6]]}),
    }
    [result] = verdicts(tmp_path, [claim(["single", "few", "six"], BEATS)], folders)

    # one pair, five pairs: the exact two-sided p is at least 1/16 (never < 0.05); six all one way give 1/32
    assert [case.outcome for case in result.headline] == ["not testable", "not testable", "holds"]
    assert "1 paired trials: too few for the Wilcoxon test" in result.headline[0].detail


def test_sides_from_different_runs_are_compared_unpaired_with_the_mann_whitney_u_test(tmp_path):
    # the variant re-ran A on other splits: trial 0 of one run is not trial 0 of the other, so no pairing by trial
    folders = {
        "one": run(tmp_path, "one", {"A": AHEAD, "B": [v + 0.001 for v in reversed(AHEAD)]}),
        "one_order": run(tmp_path, "one_order", {"A": [v + 0.002 for v in reversed(AHEAD)]}),
        "one_single": run(tmp_path, "one_single", {"A": [0.99]}),
    }
    [order] = verdicts(tmp_path, [claim(["one"], BEATS)], folders, {"one": "one_order"})
    [single] = verdicts(tmp_path, [claim(["one"], BEATS)], folders, {"one": "one_single"})

    # paired by trial number the two would be ten pairs all one way (p = 0.002): a pairing of different splits
    [case] = order.reading
    assert case.runs == ("one_order", "one") and case.outcome == "tie"
    assert "10 and 10 trials from different runs, unpaired, Mann-Whitney U p = " in case.detail
    # one trial against ten: the smallest two-sided U p is 2/11
    assert (
        single.reading[0].outcome == "not testable"
        and "1 and 10 trials from different runs" in single.reading[0].detail
    )


def test_spread_with_one_trial_a_constant_side_and_no_common_trial(tmp_path):
    folders = {
        "one": run(tmp_path, "one", {"A": [0.9], "B": [0.8]}, metric="f1"),
        "flat": run(tmp_path, "flat", {"A": [0.9] * 10, "B": [0.9 + 1e-16 * (i % 2) for i in range(10)]}, metric="f1"),
    }
    steadier = {"kind": "steadier", "method": "A", "than": ["B"], "metric": "f1"}
    [single, flat] = verdicts(tmp_path, [claim(["one"], steadier), claim(["flat"], steadier)], folders)

    assert single.headline[0].outcome == "not testable"
    assert (flat.headline[0].outcome, flat.headline[0].detail) == ("tie", "no spread in either")
    from reproductions.framework.claim_outcomes import paired_outcome

    assert paired_outcome(pd.Series([0.9], index=[0]), pd.Series([0.8], index=[1]), "higher") == (
        "not run",
        "no trial in common",
    )


def test_a_case_against_a_model_flagged_degenerate_is_no_win_and_says_so(tmp_path):
    folder = run(tmp_path, "one", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]})
    pd.DataFrame(
        {
            "method": ["A", "B"],
            "trials": [10, 10],
            "degenerate": [0, 10],
            "degenerate_reason": ["", "no components: 15 of 15 empty"],
        }
    ).to_csv(folder / "summary.csv", index=False)
    [result] = verdicts(tmp_path, [claim(["one"], BEATS)], {"one": folder})

    [case] = result.headline
    assert case.outcome == "against a degenerate model" and result.holds != "holds"
    assert case.degenerate == "B: no components: 15 of 15 empty; in 10 of 10 trials"
    assert (
        "degenerate model: B: no components: 15 of 15 empty; in 10 of 10 trials): against a degenerate model"
        in case_text(case)
    )
    frame = pd.read_csv(write_claims_csv(tmp_path / "claims.csv", [result]))
    assert frame.loc[0, "degenerate"] == "B: no components: 15 of 15 empty; in 10 of 10 trials"


def test_a_claim_whose_cases_all_tie_is_not_shown_not_fails(tmp_path):
    mixed = [v + (0.01 if i % 2 else -0.01) for i, v in enumerate(AHEAD)]
    folders = {
        stem: run(tmp_path, stem, {"A": AHEAD, "B": mixed, "C": list(reversed(mixed))}) for stem in ("one", "two")
    }
    [tied] = verdicts(tmp_path, [claim(["one", "two"], {**BEATS, "than": ["B", "C"]})], folders)

    assert {case.outcome for case in tied.headline} == {"tie"}
    assert tied.holds == "not shown"
    assert claims_tally([tied]) == "0 of 1 (1 not shown)"


def test_a_claim_holds_per_dataset_first_a_win_over_one_method_is_not_a_dataset(tmp_path):
    # "A attains the highest AUC on one, two and three": A beats B on two only, and is beaten by C everywhere
    behind, ahead = [v + 0.05 for v in AHEAD], [v - 0.05 for v in AHEAD]
    folders = {
        "one": run(tmp_path, "one", {"A": AHEAD, "B": behind, "C": behind}),
        "two": run(tmp_path, "two", {"A": AHEAD, "B": ahead, "C": behind}),
        "three": run(tmp_path, "three", {"A": AHEAD, "B": behind, "C": behind}),
    }
    [highest] = verdicts(tmp_path, [claim(["one", "two", "three"], {**BEATS, "than": ["B", "C"]})], folders)

    assert [case.outcome for case in highest.headline].count("holds") == 1
    assert highest.holds == "fails"
    assert highest.verdict.startswith("0 of 3 datasets hold; cases: 1 of 6 hold")


def sweep_run(root: Path, stem: str, best: dict[str, list[float]], constant_only: dict[str, list[bool]]) -> Path:
    """A sweep run folder whose sweep_statistics.csv holds each entry's best per trial and its constant-score flag."""
    folder = root / stem
    folder.mkdir(parents=True)
    rows = [
        {
            "entry": entry,
            "trial": trial,
            "statistic": "best",
            "auroc": value,
            "constant_only": constant_only.get(entry, [False] * len(values))[trial],
        }
        for entry, values in best.items()
        for trial, value in enumerate(values)
    ]
    pd.DataFrame(rows).to_csv(folder / "sweep_statistics.csv", index=False)
    return folder


def test_a_win_over_a_best_reached_by_constant_score_cells_alone_is_no_win(tmp_path):
    # Li's SPECTF: RE's and OCSVM's best 0.500 come from cells whose every model parameter scored 0.5
    folders = {
        "spectf": sweep_run(
            tmp_path, "spectf", {"MD": [0.8] * 10, "RE": [0.5] * 10, "OCSVM": [0.4] * 10}, {"RE": [True] * 9 + [False]}
        )
    }
    rule = {"kind": "beats", "method": "MD", "than": ["RE", "OCSVM"], "metric": "auroc_best"}
    [result] = verdicts(tmp_path, [claim(["spectf"], rule)], folders)

    against_re, against_ocsvm = result.headline
    assert (against_re.outcome, against_ocsvm.outcome) == ("against a degenerate model", "holds")
    assert (
        "its best comes from cells whose every model parameter gave constant scores alone in 9 of 10 trials"
        in against_re.degenerate
    )
    assert result.holds == "not shown"


def test_not_worse_holds_on_a_tie_and_fails_where_the_other_is_ahead(tmp_path):
    folders = {
        "tie": run(tmp_path, "tie", {"A": AHEAD, "B": AHEAD}),
        "behind": run(tmp_path, "behind", {"A": AHEAD, "B": [v + 0.05 for v in AHEAD]}),
        "ahead": run(tmp_path, "ahead", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]}),
    }
    rule = {**BEATS, "kind": "not_worse"}
    [result] = verdicts(tmp_path, [claim(["tie", "behind", "ahead"], rule)], folders)

    assert [case.outcome for case in result.headline] == ["holds", "fails", "holds"]
    assert result.holds == "partly"


def test_bound_holds_where_every_trial_is_beyond_it(tmp_path):
    folders = {
        "sparse": run(tmp_path, "sparse", {"A": [3.0, 5.0, 11.9]}, metric="sparsity"),
        "dense": run(tmp_path, "dense", {"A": [3.0, 12.0]}, metric="sparsity"),
    }
    below = {
        "kind": "bound",
        "method": "A",
        "metric": "sparsity",
        "better": "lower",
        "bound": 12,
        "basis": "the abstract's 12 %",
    }
    above = {**below, "better": "higher", "bound": 0}
    under, over = verdicts(tmp_path, [claim(["sparse", "dense"], below), claim(["sparse"], above)], folders)

    assert [case.outcome for case in under.headline] == ["holds", "fails"]
    assert under.headline[1].detail == "1 of 2 trials < 12 (largest 12.0)"
    assert under.headline[0].other == "bound 12" and under.holds == "partly"
    assert over.holds == "holds" and "3 of 3 trials > 0 (smallest 3.000)" in over.headline[0].detail


def test_a_bound_needs_its_number_and_no_than(tmp_path):
    with pytest.raises(ConfigError, match="kind bound needs a number bound"):
        load_claims(claims_file(tmp_path, [claim(["one"], {"kind": "bound", "method": "A", "metric": "f1"})]))


def sweep_cells(
    root: Path, stem: str, cells: dict[str, list[list[float]]], constant: dict[str, list[float]] = {}
) -> Path:
    """A sweep run whose trials.csv holds one row per cell: entry -> per trial, AUROC per sigma (1, 2, ...)."""
    folder = root / stem
    folder.mkdir(parents=True)
    rows = [
        {
            "entry": entry,
            "method": f"{entry} (sigma={sigma + 1})",
            "trial": trial,
            "status": "ok",
            "auroc": value,
            "param_sigma": sigma + 1.0,
            "param_kernel": "rbf",
            "degenerate": "constant scores" if sigma + 1.0 in constant.get(entry, []) else "",
        }
        for entry, trials in cells.items()
        for trial, values in enumerate(trials)
        for sigma, value in enumerate(values)
    ]
    pd.DataFrame(rows).to_csv(folder / "trials.csv", index=False)
    return folder


def test_most_counts_the_kernel_parameter_values_where_the_method_is_ahead(tmp_path):
    folders = {
        "most": sweep_cells(
            tmp_path, "most", {"MD": [[0.8, 0.7, 0.4], [0.9, 0.8, 0.3]], "RE": [[0.6, 0.6, 0.6], [0.6, 0.6, 0.6]]}
        ),
        "mixed": sweep_cells(
            tmp_path, "mixed", {"MD": [[0.8, 0.7, 0.4], [0.5, 0.5, 0.9]], "RE": [[0.6, 0.6, 0.6], [0.6, 0.6, 0.6]]}
        ),
        # ahead at one value of three, and at the other two only over RE's constant-score cells
        "flat": sweep_cells(tmp_path, "flat", {"MD": [[0.8, 0.7, 0.4]], "RE": [[0.5, 0.5, 0.6]]}, {"RE": [1.0, 2.0]}),
    }
    rule = {"kind": "most", "method": "MD", "than": ["RE"], "metric": "auroc"}
    [result] = verdicts(tmp_path, [claim(["most", "mixed", "flat"], rule)], folders)

    assert [case.outcome for case in result.headline] == ["holds", "tie", "fails"]
    assert "ahead at 67%-67% of 3 kernel parameter values in 2 trials" in result.headline[0].detail
    assert (
        "ahead at 0%-0% of 1 kernel parameter values in 1 trials (up to 2 beside a constant-score cell left out)"
        in result.headline[2].detail
    )


def test_a_metric_stored_per_setting_gives_one_case_per_setting_kept(tmp_path):
    folder = tmp_path / "robust"
    folder.mkdir()
    rows = [
        {
            "entry": entry,
            "trial": trial,
            "width": width,
            "corruption": corruption,
            "explained_variation": value + (0.1 if entry == "L1" and width == 5 else 0),
        }
        for trial, value in enumerate(AHEAD)
        for entry in ("L1", "L2")
        for width in (1, 5)
        for corruption in (0.0, 0.1)
    ]
    pd.DataFrame(rows).to_csv(folder / "robustness.csv", index=False)
    rule = {
        "kind": "beats",
        "method": "L1",
        "than": ["L2"],
        "metric": "explained_variation",
        "settings": {"corruption": [0.1]},
    }
    [result] = verdicts(tmp_path, [claim(["robust"], rule)], {"robust": folder})

    assert [(case.setting, case.outcome) for case in result.headline] == [
        ("width 1, corruption 0.1", "tie"),
        ("width 5, corruption 0.1", "holds"),
    ]
    assert result.holds == "partly" and result.verdict.startswith("1 of 2 settings hold")


def test_claims_held_counts_the_claims_that_hold_among_those_assessed(tmp_path):
    folders = {"one": run(tmp_path, "one", {"A": AHEAD, "B": [v - 0.05 for v in AHEAD]})}
    by_hand = {
        "paper": "P",
        "claim": "c",
        "source": "s",
        "configs": [],
        "holds": "not assessed",
        "verdict": "a figure: no record measures it",
        "evidence": "e",
    }
    results = verdicts(
        tmp_path, [claim(["one"], BEATS), claim(["absent"], BEATS), by_hand], {**folders, "absent": tmp_path / "absent"}
    )

    assert claims_held(results) == (1, 1)


def test_the_other_side_may_be_read_on_another_metric(tmp_path):
    folder = run(tmp_path, "one", {"A": AHEAD, "B": [0.1] * 10}, metric="sample_sparsity")
    trials = pd.read_csv(folder / "trials.csv").assign(sv_sparsity=lambda t: t["sample_sparsity"] * 0 + 0.5)
    trials.to_csv(folder / "trials.csv", index=False)
    rule = {"kind": "beats", "method": "A", "than": ["B"], "metric": "sample_sparsity", "than_metric": "sv_sparsity"}
    [result] = verdicts(tmp_path, [claim(["one"], rule)], {"one": folder})

    assert result.headline[0].theirs == pytest.approx(0.5) and result.holds == "holds"


REPO = Path(__file__).resolve().parents[1]


def test_every_claim_of_the_five_papers_is_computed_or_says_why_not():
    claims = {
        paper: load_claims(REPO / "reproductions" / paper / "reference")
        for paper in ("das", "kim", "li", "sas", "wang")
    }
    assert sum(map(len, claims.values())) >= 48
    for paper, entries in claims.items():
        for entry in entries:
            assert entry.rule or (entry.holds and entry.verdict and entry.evidence), (paper, entry.claim)
            assert entry.source, (paper, entry.claim)
    # Kim's are computed wherever the records hold the numbers: by hand only what no record measures
    assert {entry.holds for entry in claims["kim"] if not entry.rule} == {"not assessed"}
    assert sum(bool(entry.rule) for entry in claims["kim"]) == 5


def test_li_spectf_committed_records_flag_the_constant_cells_and_the_claim_counts_no_win_over_them(tmp_path):

    from kpca_bench.experiment.config_parser import load_config
    from kpca_bench.report.sweep import statistics_frame, sweep_frame

    records = ResultStore(REPO / "results" / "li_spectf").records()
    flat = [r for r in records if r["status"] == "ok" and set(r["auroc_by_model_param"]) == {0.5}]
    assert {r["entry"] for r in flat} == {"MD", "RE", "OCSVM"}
    assert all(r.get("degenerate") == "constant scores" for r in flat)
    frame = sweep_frame(load_config(REPO / "reproductions" / "li" / "configs" / "li_spectf.yaml"), records)
    folder = tmp_path / "li_spectf"
    folder.mkdir()
    statistics_frame(frame).to_csv(folder / "sweep_statistics.csv", index=False)
    [highest] = [c for c in load_claims(REPO / "reproductions" / "li" / "reference") if "SPECTF, Thyroid" in c.claim]
    spectf = replace_configs(highest, ["li_spectf"])
    [result] = evaluate_claims([spectf], {"li_spectf": folder})

    assert [(case.other, case.outcome) for case in result.headline] == [
        ("RE", "against a degenerate model"),
        ("OCSVM", "against a degenerate model"),
    ]
    assert result.holds == "not shown"


def replace_configs(entry, configs):
    from dataclasses import replace

    return replace(entry, configs=tuple(configs), rule=tuple(replace(c, configs=tuple(configs)) for c in entry.rule))
