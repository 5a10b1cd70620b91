"""The summary table of a run: a method whose trials are flagged is marked with why, a fit stopped on its
iteration limit as not converged; F1 beside its cut and why it is low where the cut makes it so."""

import pandas as pd

from kpca_bench.report.tables import (
    degenerate_marks,
    DEGENERATE_NOTE,
    f1_cut_lines,
    F1_CUT_NOTE,
    figure_marks,
    markdown_row,
    markdown_table,
    not_converged_lines,
    not_converged_marks,
    NOT_CONVERGED_NOTE,
    summary_frame,
    summary_markdown,
    summary_table_markdown,
    trials_used,
)

EMPTY = "no components: 15 of 15 empty"


def hand_trials() -> pd.DataFrame:
    """Two trials of KPCA (sound), Wang-Tanaka (a model without components in both), and a one-trial sweep point."""
    rows = [
        {"method": "KPCA", "trial": t, "status": "ok", "auroc": 0.99, "sparsity": 100.0, "degenerate": ""}
        for t in (0, 1)
    ]
    rows += [
        {"method": "Wang-Tanaka", "trial": t, "status": "ok", "auroc": 0.96, "sparsity": 0.0, "degenerate": EMPTY}
        for t in (0, 1)
    ]
    rows += [{"method": "sweep (lam1=1)", "trial": 0, "status": "ok", "auroc": 0.9, "sparsity": 5.0, "degenerate": ""}]
    return pd.DataFrame(rows)


def test_the_summary_counts_the_flagged_trials_and_marks_the_method():
    summary = summary_frame(hand_trials(), {"KPCA": 2, "Wang-Tanaka": 2, "sweep (lam1=1)": 1})
    assert summary.set_index("method")["degenerate"].to_dict() == {"KPCA": 0, "Wang-Tanaka": 2, "sweep (lam1=1)": 0}
    assert degenerate_marks(summary) == {"Wang-Tanaka": "no components"}
    table = summary_table_markdown(summary)
    assert f"| Wang-Tanaka **({EMPTY}: 2 of 2 trials)** | 2 / 2 |" in table
    assert "| KPCA | 2 / 2 |" in table
    page = summary_markdown(summary, title="t", facts=[], figures=[])
    assert DEGENERATE_NOTE in page


def test_a_summary_without_flags_has_no_marks_and_no_note():
    trials = hand_trials().query("method == 'KPCA'")
    summary = summary_frame(trials, {"KPCA": 2})
    assert degenerate_marks(summary) == {}
    assert DEGENERATE_NOTE not in summary_markdown(summary, title="t", facts=[], figures=[])


def test_trials_used_names_a_single_trial_or_counts_them():
    trials = hand_trials()
    assert trials_used(trials, ["sweep (lam1=1)"]) == "trial 0"
    assert trials_used(trials, ["KPCA"]) == "mean of 2 trials"


LIMIT = "stopped at max_iter = 6 (ConvergenceWarning)"


def skpca_trials() -> pd.DataFrame:
    """Three trials of SKPCA, two stopped on max_iter, and two of KPCA (converged, no flag)."""
    rows = [
        {
            "method": "SKPCA RE",
            "trial": t,
            "status": "ok",
            "auroc": 0.8,
            "degenerate": "",
            "not_converged": LIMIT if t < 2 else "",
        }
        for t in range(3)
    ]
    rows += [
        {"method": "KPCA RE", "trial": t, "status": "ok", "auroc": 0.9, "degenerate": "", "not_converged": None}
        for t in range(2)
    ]
    rows += [{"method": "KPCA RE", "trial": 2, "status": "failed", "not_converged": LIMIT}]  # a failure counts not
    return pd.DataFrame(rows)


def test_the_summary_counts_the_fits_stopped_on_their_limit_and_marks_them_in_tables_and_figures():
    summary = summary_frame(skpca_trials(), {"SKPCA RE": 3, "KPCA RE": 3})
    assert summary.set_index("method")["not_converged"].to_dict() == {"SKPCA RE": 2, "KPCA RE": 0}
    assert summary.set_index("method")["not_converged_reason"].to_dict() == {"SKPCA RE": LIMIT, "KPCA RE": ""}
    assert not_converged_marks(summary) == {"SKPCA RE": "not converged 2/3"}
    assert figure_marks(summary) == {"SKPCA RE": "not converged 2/3"}
    table = summary_table_markdown(summary)
    assert "| SKPCA RE **(not converged, stopped at max_iter = 6: 2 of 3 trials)** | 3 / 3 |" in table
    assert "| KPCA RE **(incomplete)** | 2 / 3 |" in table
    assert NOT_CONVERGED_NOTE in summary_markdown(summary, title="t", facts=[], figures=[])


def test_a_figure_label_carries_both_flags_of_a_method():
    trials = skpca_trials().assign(degenerate=lambda f: ["constant scores: x"] * 3 + [""] * 3)
    summary = summary_frame(trials, {"SKPCA RE": 3, "KPCA RE": 3})
    assert figure_marks(summary) == {"SKPCA RE": "constant scores; not converged 2/3"}


def test_a_summary_without_unconverged_fits_has_no_mark_no_note_and_no_verdict_line():
    trials = skpca_trials().query("method == 'KPCA RE'")
    summary = summary_frame(trials, {"KPCA RE": 3})
    assert not_converged_marks(summary) == {}
    assert NOT_CONVERGED_NOTE not in summary_markdown(summary, title="t", facts=[], figures=[])
    assert not_converged_lines(trials, ["KPCA RE"]) == []


def test_the_verdict_line_counts_a_methods_fits_stopped_on_their_limit_over_its_finished_fits():
    trials = pd.concat([skpca_trials().assign(dataset="a"), skpca_trials().assign(dataset="b")])
    assert not_converged_lines(trials, ["KPCA RE", "SKPCA RE"]) == [
        "SKPCA RE: 4 of 6 fits stopped at max_iter = 6 (not converged: its numbers are not those of the method's "
        "converged solution)"
    ]


def f1_records(method, f1, prior, rule="train_quantile"):
    return [
        {
            "method": method,
            "status": "ok",
            "f1": f1,
            "recall": f1 / 2,
            "auroc": 0.84,
            "threshold_rule": rule,
            "f1_by_rule": {"train_quantile": f1, "test_prior": prior, "test_oracle": prior + 0.1},
        }
        for _ in (0, 1)
    ]


def test_f1_far_below_its_test_prior_f1_is_explained_by_the_cut_under_the_table():
    records = f1_records("KPCA MD", 0.031, 0.45) + f1_records("KPCA RE", 0.30, 0.45)
    records += f1_records("oracle", 0.01, 0.45, rule="test_prior")  # its cut uses the test labels already
    records += [{"method": "KPCA MD", "status": "failed"}]
    assert f1_cut_lines(records, ["KPCA RE", "KPCA MD", "oracle"]) == [
        "KPCA MD: F1 0.031 at the config's cut, 0.450 at the test-prior cut (recall 0.015 at the config's cut; "
        "AUROC 0.840)"
    ]
    summary = summary_frame(pd.DataFrame([r for r in records if "f1" in r]), {"KPCA RE": 2, "KPCA MD": 2, "oracle": 2})
    page = summary_markdown(
        summary,
        title="t",
        facts=[],
        figures=[],
        threshold="0.95 quantile of training scores",
        f1_notes=f1_cut_lines(records, ["KPCA MD"]),
    )
    assert "| method | trials | failed | F1 (cut: 0.95 quantile of training scores) |" in page
    assert F1_CUT_NOTE in page and "- KPCA MD: F1 0.031" in page
    assert F1_CUT_NOTE not in summary_markdown(summary, title="t", facts=[], figures=[])


def test_one_helper_writes_every_markdown_table():
    assert markdown_table(["method", "AUROC"], [["KPCA", 0.9], ["LOF", "–"]]) == [
        "| method | AUROC |",
        "|---|---|",
        "| KPCA | 0.9 |",
        "| LOF | – |",
    ]
    assert markdown_row(["a", ""]) == "| a |  |"
