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
    Keeps the first ``n_components`` columns. For estimators whose first k
    components do not depend on how many are computed (class attribute
    ``nested_components``: exact KPCA, and SKPCA-l1, which finds components one
    after another, Algorithm 1) the estimator computes the largest candidate
    once and the search slices it.
    SKPCA-l2,1 (Algorithm 2) updates all components together, so its
    ``n_components`` candidates are separate fits.
``classifier``
    ``classifier`` option: ``svm`` (scikit-learn ``SVC``) or ``lda``, with params.

Options (``protocol: {name: classification_cv, ...}``): ``train_size``,
``test_size``, ``classes`` as in ``classification``; ``classifier``;
``search``: for every method label, ``{<parameter>: [candidates]}`` with
``classifier__<p>`` (classifier), ``features__<p>`` (kernel-PCA estimator) and
``n_components`` (number of PCs); ``cv`` (default 5, stratified, unshuffled);
``pos_label`` (default: the first class in sorted order) for precision, recall, F1;
``ties``: which of the candidates that tie for the best CV accuracy (rank 1 in
``cv_results_``) is refitted -- ``first`` (default; scikit-learn's rule, our choice
where the paper states none) takes the first in grid order, ``last`` the last.
Grid order is scikit-learn's ``ParameterGrid``: keys sorted, the last key
varying fastest, each key's candidates in the config's order (so ``first``
takes the smallest ``C`` of a tie on an ascending list). The paper gives no rule.

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
from dataclasses import dataclass

import numpy as np
from joblib import Memory
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.metrics import accuracy_score, precision_recall_fscore_support
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from kpca_bench.devices import to_numpy
from kpca_bench.protocols import classification
from kpca_bench.protocols.base import DatasetConfig, Method, MethodConfig, ThresholdConfig, kernel_pca_only
from kpca_bench.protocols.classification import Split, describe_split, parse_classifier, parse_split_options
from kpca_bench.validation import Problems, declared

TIES = ("first", "last")
RECORDS = (
    "accuracy",
    "precision",
    "recall",
    "f1",
    "sample_sparsity",
    "coef_sparsity",
    "sv_sparsity",
    "n_components",
    "cv_accuracy",
    "n_candidates",
    "n_test_positive",
)


@dataclass(frozen=True)
class Options(classification.Options):
    """The options of ``classification``, but ``search`` maps each method label to its own grid; and
    ``pos_label`` (None: the first class in sorted order), the class precision, recall and F1 are about;
    ``ties``, the rule among candidates tied for the best CV accuracy (see the module docstring)."""

    pos_label: object = None
    ties: str = declared("first", choices=TIES, doc="which of the candidates tied for the best CV accuracy wins")


def parse_options(raw: dict, threshold: ThresholdConfig, problems: Problems) -> Options:
    parsed = parse_split_options(raw, problems)
    searches = raw.get("search") or {}
    if not isinstance(searches, dict):
        problems.add("search", f"must map method labels to {{parameter: [candidates]}}, got {searches!r}")
        searches = {}
    for label, search in searches.items():
        for key, values in (search or {}).items():
            known = key == "n_components" or str(key).split("__")[0] in ("features", "classifier")
            if not known or not isinstance(values, list) or not values:
                problems.add(
                    f"search.{label}.{key}",
                    "give n_components, features__<p> or classifier__<p> with a non-empty list of candidates",
                )
    ties = raw.get("ties", TIES[0])
    if ties not in TIES:
        problems.add("ties", f"must be one of {', '.join(TIES)}, got {ties!r}")
        ties = TIES[0]
    return Options(
        **parsed,
        classifier=parse_classifier(raw.get("classifier", "lda"), problems),
        search={label: dict(search or {}) for label, search in searches.items()},
        pos_label=raw.get("pos_label"),
        ties=ties,
    )


def check_methods(options: Options, methods: tuple[MethodConfig, ...], problems: Problems) -> None:
    """Kernel-PCA variants only; every search names a method label; PCs fit in a CV training fold."""
    kernel_pca_only(methods, problems, "for the classifier alone use kpca with kernel: linear and every component")
    labels = [m.label for m in methods]
    for label, search in options.search.items():
        if label not in labels:
            problems.add(f"protocol.search.{label}", f"no method has this label; labels: {', '.join(labels)}")
        counts = search.get("n_components", [])
        if (
            counts
            and options.train_size is not None
            and max(counts) > options.train_size * (options.cv - 1) // options.cv - 1
        ):
            problems.add(
                f"protocol.search.{label}.n_components",
                f"{max(counts)} PCs need more rows than a CV training fold of {options.train_size} rows has",
            )


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
        return X[:, : self.n_components]


def sparsity_shares(dual_coef: np.ndarray) -> dict:
    """``sample_sparsity`` (share of all-zero rows) and ``coef_sparsity`` (share of zero entries) of a dual-coefficient matrix."""
    zero = dual_coef == 0
    return {"sample_sparsity": float(np.mean(zero.all(axis=1))), "coef_sparsity": float(np.mean(zero))}


def last_best_index(cv_results: dict) -> int:
    """The last candidate in grid order among those tied for the best mean CV score (``ties: last``)."""
    return int(np.flatnonzero(cv_results["rank_test_score"] == 1)[-1])


def make_search(features, search: dict, options: Options, memory) -> GridSearchCV:
    """The unfitted model of one cell: a cross-validated grid search over feature step, PCs and classifier.

    ``n_components`` candidates go to ``leading`` for estimators with nested components (which then
    compute the largest candidate once) and to the estimator otherwise. ``options.ties`` picks the refitted
    candidate among tied ones (scikit-learn's own rule for ``first``).
    """
    grid = {key: list(values) for key, values in search.items() if key != "n_components"}
    counts = search.get("n_components")
    if counts is not None and getattr(features, "nested_components", False):
        features = clone(features).set_params(n_components=max(counts))
        grid["leading__n_components"] = list(counts)
    elif counts is not None:
        grid["features__n_components"] = list(counts)
    pipeline = Pipeline(
        [("features", features), ("leading", LeadingComponents()), ("classifier", options.classifier.build())],
        memory=memory,
    )
    refit = last_best_index if options.ties == "last" else True
    return GridSearchCV(pipeline, grid, cv=StratifiedKFold(n_splits=options.cv), refit=refit)


def describe(data: DatasetConfig, options: Options) -> str:
    ties = ", ties to the last candidate in grid order" if options.ties == "last" else ""
    return (
        f"{describe_split(options)}; {options.classifier.describe()} on each method's leading components, "
        f"every hyper-parameter chosen by {options.cv}-fold CV accuracy on the training rows (grids in the "
        f"config{ties})"
    )


def evaluate_classification_cv(method: Method, split: Split, options: Options) -> dict:
    """Search, refit on all training rows, measure on the test rows."""
    search = options.search.get(method.label) or {}
    with tempfile.TemporaryDirectory(prefix="kpca-bench-cv-") as cache:
        model = make_search(clone(method.estimator), search, options, Memory(cache, verbose=0))
        start = time.perf_counter()
        model.fit(split.X_train, split.y_train)
        fit_time = time.perf_counter() - start
    scored = time.perf_counter()
    predicted = model.predict(split.X_test)
    score_time = time.perf_counter() - scored
    best = model.best_estimator_
    classes = np.unique(split.y_train)
    pos_label = options.pos_label if options.pos_label is not None else classes[0].item()
    precision, recall, f1, _ = precision_recall_fscore_support(
        split.y_test, predicted, pos_label=pos_label, average="binary", zero_division=0
    )
    # A model fitted on a device keeps its arrays there: its coefficients are read on the host.
    dual_coef = to_numpy(best["features"].dual_coef_)
    k = best["leading"].n_components or dual_coef.shape[1]
    classifier = best["classifier"]
    sv = 1.0 - len(classifier.support_) / len(split.y_train) if hasattr(classifier, "support_") else float("nan")
    gamma = best["features"].gamma_
    return {
        "accuracy": float(accuracy_score(split.y_test, predicted)),
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
        **sparsity_shares(dual_coef[:, :k]),
        "sv_sparsity": float(sv),
        "n_components": int(k),
        "cv_accuracy": float(model.cv_results_["mean_test_score"][model.best_index_]),
        "n_candidates": len(model.cv_results_["params"]),
        "fit_time": fit_time,
        "score_time": score_time,
        **({"gamma": float(gamma)} if gamma is not None else {}),
        "n_train": len(split.y_train),
        "n_test": len(split.y_test),
        "n_test_positive": int(np.sum(split.y_test == pos_label)),
        **{f"best__{key}": value for key, value in model.best_params_.items()},
        "status": "ok",
    }


class ClassificationCV(classification.Classification):
    name = "classification_cv"
    description = "classifier on leading kernel-PCA components, every hyper-parameter by CV"
    options = Options
    records = RECORDS
    parse_options = staticmethod(parse_options)
    check_methods = staticmethod(check_methods)
    evaluate = staticmethod(evaluate_classification_cv)
    describe = staticmethod(describe)
