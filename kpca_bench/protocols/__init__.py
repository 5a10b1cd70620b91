"""Protocols: how one trial splits the data and evaluates a method.

A protocol is a module in this package with three functions, each given the
validated :class:`~kpca_bench.config.Config`: ``check(dataset, config)`` (can
the dataset serve the config's sizes? called once, before any work),
``split(dataset, config, seed)`` (one trial's data) and
``evaluate(detector, split, config)`` (fit, score, measure: the fields of one
result row), plus an optional ``report(config, records, directory)`` that writes
protocol-specific tables and figures from the records. ``options`` names the
keys a config may give under ``protocol:`` (read them from
``config.protocol_options``), ``dataset_keys`` the keys of the ``dataset:``
block it requires, and ``describe(config)`` says in a sentence how a trial
splits the data (for the summary page). Adding a protocol is a module and an entry in
:data:`PROTOCOLS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from kpca_bench.experiments import wang_toy
from kpca_bench.protocols import classification, classification_cv, novelty, robustness, sweep, unsupervised


@dataclass(frozen=True)
class Protocol:
    name: str
    description: str
    check: Callable
    split: Callable
    evaluate: Callable
    describe: Callable
    dataset_keys: tuple[str, ...] = ()
    report: Callable | None = None
    options: tuple[str, ...] = field(default=())


PROTOCOLS = {
    protocol.name: protocol
    for protocol in [
        Protocol("novelty", "train on inliers only, test on a fresh mix of inliers and outliers",
                 novelty.check_novelty_sizes, novelty.novelty_split, novelty.evaluate_novelty, novelty.describe,
                 dataset_keys=novelty.DATASET_KEYS),
        Protocol("novelty_sweep", "novelty splits; AUROC for every model parameter (p or nu) of each kernel parameter",
                 sweep.check_sweep, novelty.novelty_split, sweep.evaluate_sweep, novelty.describe,
                 dataset_keys=novelty.DATASET_KEYS, report=sweep.report_sweep, options=sweep.OPTIONS),
        Protocol("unsupervised", "fit on a contaminated sample without labels, score the same points",
                 unsupervised.check_unsupervised, unsupervised.unsupervised_split,
                 unsupervised.evaluate_unsupervised, unsupervised.describe,
                 dataset_keys=unsupervised.DATASET_KEYS, options=unsupervised.OPTIONS),
        Protocol("robustness", "clean variation explained by kernel-PCA components fitted on corrupted data",
                 robustness.check_robustness, robustness.robustness_split, robustness.evaluate_robustness,
                 robustness.describe, dataset_keys=robustness.DATASET_KEYS, report=robustness.report_robustness,
                 options=robustness.OPTIONS),
        Protocol("classification", "kernel-PCA features then a classifier on a stratified train / test split",
                 classification.check_classification, classification.classification_split,
                 classification.evaluate_classification, classification.describe,
                 report=classification.report_classification, options=classification.OPTIONS),
        Protocol("classification_cv", "classifier on leading kernel-PCA components, every hyper-parameter by CV",
                 classification_cv.check_classification_cv, classification.classification_split,
                 classification_cv.evaluate_classification_cv, classification_cv.describe,
                 report=classification_cv.report_classification_cv, options=classification_cv.OPTIONS),
        Protocol("toy_components", "fit on a whole generated 2-D sample; every component as a contour map",
                 wang_toy.check_toy, wang_toy.toy_split, wang_toy.evaluate_toy, wang_toy.describe,
                 report=wang_toy.report_toy, options=wang_toy.OPTIONS),
    ]
}
