"""The summary table of a run: a method whose trials are flagged is marked with why (issue 32)."""

import pandas as pd

from kpca_bench.report.tables import (DEGENERATE_NOTE, degenerate_marks, summary_frame, summary_markdown,
                                      summary_table_markdown, trials_used)

EMPTY = "no components: 15 of 15 empty"


def hand_trials() -> pd.DataFrame:
    """Two trials of KPCA (sound), Wang-Tanaka (a model without components in both), and a one-trial sweep point."""
    rows = [{"method": "KPCA", "trial": t, "status": "ok", "auroc": 0.99, "sparsity": 100.0, "degenerate": ""}
            for t in (0, 1)]
    rows += [{"method": "Wang-Tanaka", "trial": t, "status": "ok", "auroc": 0.96, "sparsity": 0.0, "degenerate": EMPTY}
             for t in (0, 1)]
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
