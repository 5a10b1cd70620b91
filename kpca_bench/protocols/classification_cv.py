"""Classification with every hyper-parameter chosen by cross-validation (Wang & Tanaka, section 4.2).

Wang & Tanaka classify UCI data (Australian, breast-cancer, climate) by an RBF
SVM, alone or on kernel principal components (KPCA, SKPCA-l1, SKPCA-l2,1):
half the rows train and tune, half test; features scaled to [0, 1] on the
training half; ``C_svm``, ``gamma_svm``, the kernel-PCA ``gamma`` and the number
of PCs (1..30) chosen by the best 5-fold CV accuracy on the training half; 10
repeats; accuracy, precision, recall, F1 and sparsity on the test half.

One trial uses the split of :mod:`kpca_bench.protocols.classification`
(stratified, scaled on the training rows) and fits
``GridSearchCV(Pipeline([features, leading, classifier]), search[label], cv)``:

``features``
    The method entry's kernel-PCA estimator. Its fit is cached per fold and
    parameter setting (``Pipeline(memory=...)``), so the classifier's
    candidates and the number of PCs reuse it.
``leading`` (:class:`LeadingComponents`)
    Keeps the first ``n_components`` columns. For methods whose first k
    components do not depend on how many are computed (:data:`NESTED`: exact
    KPCA, and SKPCA-l1, which finds components one after another, Algorithm 1)
    the estimator computes the largest candidate once and the search slices it.
    SKPCA-l2,1 (Algorithm 2) updates all components together, so its
    ``n_components`` candidates are separate fits.
``classifier``
    ``classifier`` option: ``svm`` (scikit-learn ``SVC``) or ``lda``, with params.

Options (``protocol: {name: classification_cv, ...}``): ``train_size``,
``test_size``, ``classes`` as in ``classification``; ``classifier``;
``search``: for every method label, ``{<parameter>: [candidates]}`` with
``classifier__<p>`` (classifier), ``features__<p>`` (kernel-PCA estimator) and
``n_components`` (number of PCs); ``cv`` (default 5, stratified, unshuffled);
``pos_label`` (default: the first class in sorted order) for precision, recall, F1.

**Sparsity.** Each record holds three shares of the training rows, in [0, 1]:
``sample_sparsity``, rows of the refitted feature step's dual coefficients
(its chosen leading columns) that are 0 in every component -- training samples
the model does not use; ``coef_sparsity``, the share of zero coefficients; and
``sv_sparsity``, training rows that are not support vectors of the refitted
SVM. Wang & Tanaka's tables report 0 for KPCA, almost 0 for SKPCA-l1 and a
large share for SKPCA-l2,1 and SVM: their "sparsity" is the share of unused
training samples, ``sample_sparsity`` for the kernel-PCA rows and
``sv_sparsity`` for the SVM row (see ``results/wang_report.md``).

The SVM-alone row is the method ``kpca`` with the linear kernel and all
components (``n_components`` = number of features): centering and rotating the
features leave every distance, hence the RBF SVM, unchanged.
"""

from __future__ import annotations

import tempfile
import time
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from joblib import Memory
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.metrics import accuracy_score, precision_recall_fscore_support
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from kpca_bench.datasets import Dataset
from kpca_bench.errors import ConfigError
from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.registry import METHODS
from kpca_bench.protocols.classification import (
    CLASSIFIERS,
    Split,
    _classifier_option,
    _summary_table,
    _trials_table,
    classification_split,
    metric_box_plot,
)

if TYPE_CHECKING:
    from kpca_bench.config import Config

OPTIONS = ("train_size", "test_size", "classes", "classifier", "search", "cv", "pos_label")
NESTED = ("kpca", "skpca_l1")
FIGURE = "accuracy_box.png"
METRICS = {"accuracy": ("accuracy", 4), "precision": ("precision", 4), "recall": ("recall", 4), "f1": ("F1", 4),
           "sample_sparsity": ("unused samples", 4), "coef_sparsity": ("zero coefficients", 4),
           "sv_sparsity": ("non-SV samples", 4), "n_components": ("PCs chosen", 1), "fit_time": ("search time (s)", 1)}


class LeadingComponents(TransformerMixin, BaseEstimator):
    """Keep the first ``n_components`` columns of a feature matrix (None keeps all)."""

    def __init__(self, n_components=None):
        self.n_components = n_components

    def fit(self, X, y=None):
        self.n_features_in_ = X.shape[1]
        if self.n_components is not None and not 1 <= self.n_components <= X.shape[1]:
            raise ValueError(f"n_components={self.n_components} leading columns of {X.shape[1]} features")
        return self

    def transform(self, X):
        check_is_fitted(self, "n_features_in_")
        return X[:, :self.n_components]


def sparsity_shares(dual_coef: np.ndarray) -> dict:
    """``sample_sparsity`` (share of all-zero rows) and ``coef_sparsity`` (share of zero entries) of a dual-coefficient matrix."""
    zero = dual_coef == 0
    return {"sample_sparsity": float(np.mean(zero.all(axis=1))), "coef_sparsity": float(np.mean(zero))}


def method_entry(estimator, config: Config):
    """The config's method entry that built ``estimator`` (same registered class, a setting's parameters).

    The runner hands a protocol the built estimator only; the search grid belongs to the entry's label.
    """
    params = estimator.get_params()
    matches = [m for m in config.methods if type(estimator) is METHODS[m.name].estimator
               and any(all(params.get(k) == v for k, v in s.items()) for s in m.settings())]
    if len(matches) != 1:
        raise ConfigError(f"{config.source}: methods: {len(matches)} entries match a {type(estimator).__name__} "
                          f"with {params}; give each entry distinct parameters")
    return matches[0]


def make_search(features, method_name: str, search: dict, config: Config, memory) -> GridSearchCV:
    """The unfitted model of one cell: a cross-validated grid search over feature step, PCs and classifier.

    ``n_components`` candidates go to ``leading`` for :data:`NESTED` methods (whose
    estimator then computes the largest candidate once) and to the estimator otherwise.
    """
    grid = {key: list(values) for key, values in search.items() if key != "n_components"}
    counts = search.get("n_components")
    if counts is not None and method_name in NESTED:
        features = clone(features).set_params(n_components=max(counts))
        grid["leading__n_components"] = list(counts)
    elif counts is not None:
        grid["features__n_components"] = list(counts)
    name, params = _classifier_option(config)
    pipeline = Pipeline([("features", features), ("leading", LeadingComponents()),
                         ("classifier", CLASSIFIERS[name](**params))], memory=memory)
    cv = StratifiedKFold(n_splits=config.protocol_options.get("cv", 5))
    return GridSearchCV(pipeline, grid, cv=cv, refit=True)


def check_classification_cv(dataset: Dataset, config: Config) -> None:
    """Sizes, classifier and every method's search are usable; all problems at once, before any work."""
    options, source = config.protocol_options, config.source
    problems = []
    train = options.get("train_size")
    if isinstance(train, bool) or not isinstance(train, Integral) or train < 2:
        problems.append(f"{source}: protocol.train_size: must be an integer >= 2, got {train!r}")
    name, params = _classifier_option(config)
    if name not in CLASSIFIERS:
        problems.append(f"{source}: protocol.classifier: unknown classifier {name!r}; accepted: {', '.join(CLASSIFIERS)}")
    searches = options.get("search") or {}
    labels = [m.label for m in config.methods]
    for label in searches:
        if label not in labels:
            problems.append(f"{source}: protocol.search.{label}: no method has this label; labels: {', '.join(labels)}")
    for method in config.methods:
        if not METHODS[method.name].subspace:
            problems.append(f"{source}: methods: {method.label} ({method.name}) is not a kernel-PCA variant; "
                            "for the classifier alone use kpca with kernel: linear and every component")
        search = searches.get(method.label) or {}
        for key, values in search.items():
            known = key == "n_components" or key.split("__")[0] in ("features", "classifier")
            if not known or not isinstance(values, list) or not values:
                problems.append(f"{source}: protocol.search.{method.label}.{key}: give n_components, features__<p> "
                                "or classifier__<p> with a non-empty list of candidates")
        counts = search.get("n_components", [])
        folds = options.get("cv", 5)
        if isinstance(train, Integral) and counts and max(counts) > train * (folds - 1) // folds - 1:
            problems.append(f"{source}: protocol.search.{method.label}.n_components: {max(counts)} PCs need more "
                            f"rows than a CV training fold of {train} rows has")
    if problems:
        raise ConfigError("\n".join(problems))


def describe(config: Config) -> str:
    options = config.protocol_options
    name, params = _classifier_option(config)
    return (f"stratified random split into {options['train_size']} training and "
            f"{options.get('test_size', 'all other')} test rows, drawn anew in each of {config.trials} trials "
            f"(seed {config.seed}); {name}{f' {params}' if params else ''} on each method's leading components, "
            f"every hyper-parameter chosen by {options.get('cv', 5)}-fold CV accuracy on the training rows "
            "(grids in the config)")


def evaluate_classification_cv(detector, split: Split, config: Config) -> dict:
    """Search, refit on all training rows, measure on the test rows."""
    features = clone(detector.estimator if isinstance(detector, KernelSubspaceDetector) else detector)
    entry = method_entry(features, config)
    search = (config.protocol_options.get("search") or {}).get(entry.label) or {}
    with tempfile.TemporaryDirectory(prefix="kpca-bench-cv-") as cache:
        model = make_search(features, entry.name, search, config, Memory(cache, verbose=0))
        start = time.perf_counter()
        model.fit(split.X_train, split.y_train)
        fit_time = time.perf_counter() - start
    scored = time.perf_counter()
    predicted = model.predict(split.X_test)
    score_time = time.perf_counter() - scored
    best = model.best_estimator_
    classes = np.unique(split.y_train)
    pos_label = config.protocol_options.get("pos_label", classes[0].item())
    precision, recall, f1, _ = precision_recall_fscore_support(split.y_test, predicted, pos_label=pos_label,
                                                               average="binary", zero_division=0)
    k = best["leading"].n_components or best["features"].dual_coef_.shape[1]
    classifier = best["classifier"]
    sv = 1.0 - len(classifier.support_) / len(split.y_train) if hasattr(classifier, "support_") else float("nan")
    gamma = best["features"].gamma_
    return {"accuracy": float(accuracy_score(split.y_test, predicted)), "precision": float(precision),
            "recall": float(recall), "f1": float(f1), **sparsity_shares(best["features"].dual_coef_[:, :k]),
            "sv_sparsity": float(sv), "n_components": int(k), "cv_accuracy": float(model.best_score_),
            "n_candidates": len(model.cv_results_["params"]), "fit_time": fit_time, "score_time": score_time,
            **({"gamma": float(gamma)} if gamma is not None else {}),
            **{f"best__{key}": value for key, value in model.best_params_.items()}, "status": "ok"}


def _markdown(config: Config, summary: pd.DataFrame, references: dict, facts: list[str]) -> str:
    header = ["method", "trials", *(label for label, _ in METRICS.values())]
    lines = [f"# {config.name}: {config.dataset.name}", "", *[f"- {fact}" for fact in facts], "",
             "Mean ± standard deviation over trials; the paper's number (its table) in brackets where it gives one.",
             "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, row in summary.iterrows():
        cells = [str(row["method"]), str(row["trials"])]
        for metric, (_, digits) in METRICS.items():
            std = 0.0 if pd.isna(row[f"{metric}_std"]) else row[f"{metric}_std"]
            cell = f"{row[f'{metric}_mean']:.{digits}f} ± {std:.{digits}f}"
            ref = references.get((str(row["method"]), f"{metric}_mean"))
            cells.append(cell + (f" [{ref['value']:.4f}]" if ref else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def report_classification_cv(config: Config, records: list[dict], directory) -> None:
    """``trials.csv``, ``summary.csv`` and ``summary.md`` with the paper's numbers beside ours (``config.reference``)."""
    from kpca_bench.report.reference import load_references, reference_values
    from kpca_bench.results import write_atomic

    directory = Path(directory)
    trials = _trials_table(config, records)
    if not (trials["status"] == "ok").any():
        return
    summary = _summary_table(trials, METRICS)
    reference = config.reference
    references = reference_values(load_references(directory.parent), paper=reference.paper,
                                  dataset=reference.dataset) if reference else {}
    versions = records[0].get("versions", {})
    facts = [f"dataset: `{config.dataset.name}`; scaling: {config.dataset.scaling} (fitted on the training rows)",
             f"protocol: {config.protocol}: {describe(config)}",
             f"paper: {reference.paper}, {reference.dataset}" if reference else "paper: none named",
             f"config hash `{config.config_hash()}`; versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())]
    metric_box_plot(trials, list(summary["method"].astype(str)), f"{config.name}: {config.dataset.name}",
                    directory / FIGURE, column="accuracy", ylabel="test accuracy")
    write_atomic(directory / "trials.csv", trials.to_csv(index=False))
    write_atomic(directory / "summary.csv", summary.to_csv(index=False))
    write_atomic(directory / "summary.md", _markdown(config, summary, references, facts) + f"\n![{FIGURE}]({FIGURE})\n")
