"""Protocols: how one trial splits the data and evaluates a method (the contract: :mod:`.base`).

Adding a protocol is one module in this package and one entry in :data:`PROTOCOLS`
(plus a report module and a line in :data:`kpca_bench.report.PROTOCOL_REPORTS` if its
records need tables of their own).
"""

from __future__ import annotations

from kpca_bench.protocols import (
    adbench,
    classification,
    classification_cv,
    novelty,
    robustness,
    sweep,
    toy_components,
    unsupervised,
)
from kpca_bench.protocols.base import (
    DatasetConfig,
    Method,
    MethodConfig,
    Protocol,
    ThresholdConfig,
    no_method_checks,
    train_rows_of,
    train_rows_unknown,
)

PROTOCOLS: dict[str, Protocol] = {
    protocol.name: protocol
    for protocol in [
        Protocol("novelty", "train on inliers only, test on a fresh mix of inliers and outliers",
                 novelty.Options, novelty.parse_options, no_method_checks, novelty.check_novelty_sizes,
                 novelty.novelty_split, novelty.evaluate_novelty, novelty.describe, train_rows_of,
                 dataset_keys=novelty.DATASET_KEYS, records=novelty.RECORDS),
        Protocol("novelty_sweep", "novelty splits; AUROC for every model parameter (p or nu) of each kernel parameter",
                 sweep.Options, sweep.parse_options, sweep.check_methods, novelty.check_novelty_sizes,
                 novelty.novelty_split, sweep.evaluate_sweep, novelty.describe, train_rows_of,
                 dataset_keys=novelty.DATASET_KEYS, records=sweep.RECORDS, report_only_options=sweep.REPORT_ONLY),
        Protocol("unsupervised", "fit on a contaminated sample without labels, score the same points",
                 unsupervised.Options, unsupervised.parse_options, no_method_checks, unsupervised.check_unsupervised,
                 unsupervised.unsupervised_split, unsupervised.evaluate_unsupervised, unsupervised.describe,
                 unsupervised.train_rows, dataset_keys=unsupervised.DATASET_KEYS, records=novelty.RECORDS),
        Protocol("adbench", "ADBench's unsupervised setting: stratified 70/30 split, fit on the 70 % without labels",
                 adbench.Options, adbench.parse_options, no_method_checks, adbench.check_adbench,
                 adbench.adbench_split, adbench.evaluate_adbench, adbench.describe, train_rows_unknown,
                 dataset_keys=adbench.DATASET_KEYS, records=adbench.RECORDS),
        Protocol("robustness", "clean variation explained by kernel-PCA components fitted on corrupted data",
                 robustness.Options, robustness.parse_options, robustness.check_methods, robustness.check_robustness,
                 robustness.robustness_split, robustness.evaluate_robustness, robustness.describe, train_rows_of,
                 dataset_keys=robustness.DATASET_KEYS, records=robustness.RECORDS),
        Protocol("classification", "kernel-PCA features then a classifier on a stratified train / test split",
                 classification.Options, classification.parse_options, classification.check_methods,
                 classification.check_classification, classification.classification_split,
                 classification.evaluate_classification, classification.describe, classification.train_rows,
                 records=classification.RECORDS),
        Protocol("classification_cv", "classifier on leading kernel-PCA components, every hyper-parameter by CV",
                 classification_cv.Options, classification_cv.parse_options, classification_cv.check_methods,
                 classification.check_classification, classification.classification_split,
                 classification_cv.evaluate_classification_cv, classification_cv.describe,
                 classification.train_rows, records=classification_cv.RECORDS),
        Protocol("toy_components", "fit on a whole generated 2-D sample; every component as a contour map",
                 toy_components.Options, toy_components.parse_options, toy_components.check_methods,
                 toy_components.check_toy, toy_components.toy_split, toy_components.evaluate_toy,
                 toy_components.describe, train_rows_unknown, records=toy_components.RECORDS),
    ]
}

__all__ = ["DatasetConfig", "Method", "MethodConfig", "PROTOCOLS", "Protocol", "ThresholdConfig"]
