"""The headline a run ends with, on hand-built summaries and rank tables whose answer is known."""

import pandas as pd

from kpca_bench.report.run_headline import main_metric, run_headline, suite_headline


def test_auroc_is_the_main_metric_where_it_exists_else_what_the_protocol_reports():
    assert main_metric(pd.DataFrame({"f1_mean": [0.5], "auroc_mean": [0.7]})) == "auroc"
    assert main_metric(pd.DataFrame({"accuracy_mean": [0.9], "fit_time_mean": [1.0]})) == "accuracy"
    assert main_metric(pd.DataFrame({"auroc_mean": [None], "f1_mean": [0.4]})) == "f1"
    assert main_metric(pd.DataFrame({"fit_time_mean": [1.0]})) is None


def test_a_run_headline_names_the_three_best_by_mean_auroc_failed_methods_left_out():
    summary = pd.DataFrame({"method": ["a", "b", "c", "d", "e"], "auroc_mean": [0.61, 0.93, None, 0.75, 0.88]})
    assert run_headline(summary) == "best by mean AUROC: b 0.930, e 0.880, d 0.750"


def test_a_suite_headline_names_the_best_average_ranks():
    ranks = pd.DataFrame({"method": ["kNN", "KPCA", "LOF", "PCA"], "rank_auroc": [2.5, 1.25, 3.0, 3.25],
                          "auroc_mean": [0.8, 0.9, 0.7, 0.6]})
    assert suite_headline(ranks) == ("best average AUROC rank across datasets: 1. KPCA 1.25 (mean AUROC 0.900), "
                                     "2. kNN 2.50 (mean AUROC 0.800), 3. LOF 3.00 (mean AUROC 0.700)")
    assert suite_headline(None) is None and suite_headline(ranks.iloc[:0]) is None
