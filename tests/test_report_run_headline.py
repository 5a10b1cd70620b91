"""The headline a single run ends with, on hand-built summaries whose answer is known (a suite's verdict:
tests/test_report_suite.py)."""

import pandas as pd

from kpca_bench.report.run_headline import main_metric, run_headline


def test_auroc_is_the_main_metric_where_it_exists_else_what_the_protocol_reports():
    assert main_metric(pd.DataFrame({"f1_mean": [0.5], "auroc_mean": [0.7]})) == "auroc"
    assert main_metric(pd.DataFrame({"accuracy_mean": [0.9], "fit_time_mean": [1.0]})) == "accuracy"
    assert main_metric(pd.DataFrame({"auroc_mean": [None], "f1_mean": [0.4]})) == "f1"
    assert main_metric(pd.DataFrame({"fit_time_mean": [1.0]})) is None


def test_a_run_headline_names_the_three_best_by_mean_auroc_failed_methods_left_out():
    summary = pd.DataFrame({"method": ["a", "b", "c", "d", "e"], "auroc_mean": [0.61, 0.93, None, 0.75, 0.88]})
    assert run_headline(summary) == "highest mean AUROC (an order, not a test): b 0.930, e 0.880, d 0.750"
