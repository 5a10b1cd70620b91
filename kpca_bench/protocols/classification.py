"""The classification protocol: kernel PCA as a feature step before a classifier.

Shen & Asgharzadeh ("Dimension Reduction": Ionosphere, 18 PCs + LDA; "Fast
KPCA": letter recognition, 200 PCs + LDA) use kernel principal components as
the features of linear discriminant analysis. One trial draws a stratified
random train / test split, scales on the training rows (``dataset.scaling``),
fits ``Pipeline([("features", <method>), ("classifier", <classifier>)])`` on
the training rows and measures it on the test rows.

A method entry is the feature step: any registered kernel-PCA variant (``kpca``,
``nystrom_kpca``, ...), used through its ``transform`` (the component scores).
Plain PCA is ``kpca`` with ``kernel: linear`` (the same scores). Detectors that
are not kernel-PCA variants (``ocsvm``, ...) have no features and are rejected.

Options (``protocol: {name: classification, ...}``):

``train_size`` (required), ``test_size`` (default: every other row)
    Rows per trial, drawn without replacement and stratified by class.
``stratify`` (default true, our choice)
    false draws the rows without regard to class: Wang & Tanaka's "half of the
    entire data" (section 4.2) names no stratification.
``classes`` (default: all)
    The class labels to keep.
``classifier`` (default ``lda``)
    A name of :data:`CLASSIFIERS` or ``{name: ..., params: {...}}``; the
    params go to the scikit-learn estimator, e.g. ``{name: lda, params:
    {priors: [0.5, 0.5]}}`` or ``{name: svm, params: {C: 10}}``.
``search`` (optional), ``cv`` (default 5)
    ``{<pipeline parameter>: [candidates], ...}`` with parameters named as in
    scikit-learn pipelines (``classifier__C``, ``features__sigma``): the
    pipeline is then a ``GridSearchCV`` with ``cv``-fold stratified cross-validation
    on the training rows, refitted on all of them with the best candidate
    (recorded as ``best__<parameter>``). Wang & Tanaka's SVM experiments are
    this with ``classifier: svm``.
``scores`` (default 0)
    When > 0, each record also keeps the first ``scores`` component scores of
    every row of the trial (``component_scores``: training rows then test rows,
    one list per row; fewer if the feature step has fewer components) and the
    class of each of those rows (``score_classes``), so that a figure of the
    scores (Shen & Asgharzadeh, "Visualization", Figure 2) is drawn from the
    records without refitting. The lists stay in the run's records.

Each record holds ``accuracy``, ``error`` (misclassification rate, what the
paper reports), ``fit_time`` (the feature step's fit alone; with a search, the
whole search), ``classifier_fit_time``, ``score_time`` (test transform +
predict), the resolved ``gamma``, ``n_train`` and ``n_test``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

from kpca_bench.datasets import Dataset
from kpca_bench.errors import DataError
from kpca_bench.protocols.base import (
    DatasetConfig,
    Method,
    MethodConfig,
    Protocol,
    ThresholdConfig,
    empty_model,
    kernel_pca_only,
    with_flags,
)
from kpca_bench.protocols.novelty import scale_split
from kpca_bench.validation import Problems, integer

CLASSIFIERS = {"lda": LinearDiscriminantAnalysis, "svm": SVC}
STEPS = ("features", "classifier")
RECORDS = ("accuracy", "error", "classifier_fit_time", "n_classes")


@dataclass(frozen=True)
class Classifier:
    """A classifier of :data:`CLASSIFIERS` and the parameters of its scikit-learn estimator."""

    name: str = "lda"
    params: dict = field(default_factory=dict)

    def build(self):
        return CLASSIFIERS[self.name](**self.params)

    def describe(self) -> str:
        return self.name + (f" {self.params}" if self.params else "")


@dataclass(frozen=True)
class Options:
    """Rows per trial (``test_size`` None: every other row), the classes kept (None: all), the classifier,
    an optional grid ``search`` over pipeline parameters with ``cv``-fold stratified CV, how many
    component ``scores`` of every row each record keeps (0: none), and whether the split is ``stratify``-ed
    by class."""

    train_size: int | None = None
    test_size: int | None = None
    classes: tuple | None = None
    classifier: Classifier = Classifier()
    search: dict = field(default_factory=dict)
    cv: int = 5
    scores: int = 0
    stratify: bool = True


class ParsedOptions(TypedDict, total=False):
    """The keyword arguments of :class:`Options` read from a config's ``protocol:`` mapping, each only when
    given and valid (the others keep their defaults)."""

    train_size: int
    test_size: int
    cv: int
    stratify: bool
    classes: tuple
    scores: int


def parse_split_options(raw: dict, problems: Problems) -> ParsedOptions:
    """``train_size`` (required), ``test_size``, ``classes``, ``cv`` and ``stratify``, checked; the keyword
    arguments of Options."""
    parsed: ParsedOptions = {}
    if "train_size" not in raw:
        problems.add("train_size", "missing (required): the training rows per trial")
    elif (train := integer(raw["train_size"], "train_size", problems, 2)) is not None:
        parsed["train_size"] = train
    if "test_size" in raw and (test := integer(raw["test_size"], "test_size", problems, 1)) is not None:
        parsed["test_size"] = test
    if "cv" in raw and (folds := integer(raw["cv"], "cv", problems, 2)) is not None:
        parsed["cv"] = folds
    if "stratify" in raw:
        if isinstance(raw["stratify"], bool):
            parsed["stratify"] = raw["stratify"]
        else:
            problems.add("stratify", f"must be true or false, got {raw['stratify']!r}")
    classes = raw.get("classes")
    if classes is not None:
        if isinstance(classes, list) and classes and all(isinstance(c, (str, int)) for c in classes):
            parsed["classes"] = tuple(classes)
        else:
            problems.add("classes", f"must be a non-empty list of class labels, got {classes!r}")
    return parsed


def parse_classifier(raw, problems: Problems) -> Classifier:
    """``lda`` or ``{name: svm, params: {C: 10}}``: a known classifier with parameters its estimator has."""
    if isinstance(raw, dict):
        name, params = raw.get("name"), raw.get("params") or {}
    else:
        name, params = raw, {}
    if name not in CLASSIFIERS:
        problems.add(
            "classifier",
            f"unknown classifier {name!r}; accepted: {', '.join(CLASSIFIERS)} (or {{name: ..., params: {{...}}}})",
        )
        return Classifier()
    unknown = sorted(set(params) - set(CLASSIFIERS[name]._get_param_names()))
    if unknown:
        problems.add("classifier.params", f"{name} has no parameter {unknown[0]!r}")
        return Classifier(name)
    return Classifier(name, dict(params))


def parse_options(raw: dict, threshold: ThresholdConfig, problems: Problems) -> Options:
    parsed = parse_split_options(raw, problems)
    search = raw.get("search", {})
    if (
        not isinstance(search, dict)
        or any(not isinstance(v, list) or not v for v in search.values())
        or any(str(key).split("__")[0] not in STEPS for key in search)
    ):
        problems.add(
            "search",
            "must map pipeline parameters (features__<param> or classifier__<param>) to "
            f"non-empty lists of candidates, got {search!r}",
        )
        search = {}
    if "scores" in raw and (scores := integer(raw["scores"], "scores", problems, 0)) is not None:
        parsed["scores"] = scores
    return Options(**parsed, classifier=parse_classifier(raw.get("classifier", "lda"), problems), search=search)


def check_methods(options, methods: tuple[MethodConfig, ...], problems: Problems) -> None:
    kernel_pca_only(
        methods,
        problems,
        "its component scores are the classifier's features; use kpca (kernel: "
        "linear for plain PCA), nystrom_kpca, ...",
    )


def train_rows(data: DatasetConfig, options) -> int | None:
    return options.train_size


@dataclass(frozen=True)
class Split:
    """One trial's labelled training and test rows, scaled on the training rows."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


def make_pipeline(features, options: Options):
    """The unfitted estimator of one cell: feature step + classifier, in a grid search if the options ask."""
    pipeline = Pipeline([("features", features), ("classifier", options.classifier.build())])
    if not options.search:
        return pipeline
    return GridSearchCV(pipeline, options.search, cv=StratifiedKFold(n_splits=options.cv), refit=True)


def _row_indices(dataset: Dataset, classes) -> np.ndarray:
    if classes is None:
        return np.arange(len(dataset.y))
    missing = [c for c in classes if c not in dataset.class_names]
    if missing:
        raise DataError(
            f"dataset {dataset.name} has no class {missing[0]!r} (protocol.classes); "
            f"its classes are {list(dataset.class_names)}"
        )
    return np.flatnonzero(np.isin(dataset.y, classes))


def _sizes(options, n_rows: int) -> tuple[int, int]:
    return options.train_size, options.test_size if options.test_size is not None else n_rows - options.train_size


def check_classification(dataset: Dataset, data: DatasetConfig, options) -> None:
    """The classes exist and hold the rows a trial draws."""
    rows = _row_indices(dataset, options.classes)
    train, test = _sizes(options, len(rows))
    if train + max(test, 1) > len(rows):
        raise DataError(
            f"protocol: train_size {train} + test_size {test} is more than the {len(rows)} rows of "
            f"dataset {dataset.name}; lower protocol.train_size or protocol.test_size"
        )


def describe_split(options) -> str:
    test = options.test_size if options.test_size is not None else "all other"
    classes = f" of classes {list(options.classes)}" if options.classes else ""
    kind = "stratified random" if options.stratify else "random (not stratified)"
    return f"{kind} split into {options.train_size} training and {test} test rows{classes}"


def describe(data: DatasetConfig, options: Options) -> str:
    tuning = f", tuned by {options.cv}-fold CV over {options.search}" if options.search else ""
    return (
        f"{describe_split(options)}; each method's component scores are the features of "
        f"{options.classifier.describe()}{tuning}"
    )


def classification_split(dataset: Dataset, data: DatasetConfig, options, seed: int) -> Split:
    """A random split of the chosen classes (stratified unless ``options.stratify`` is false), scaled by
    :func:`~kpca_bench.protocols.novelty.scale_split`."""
    rows = _row_indices(dataset, options.classes)
    train_size, test_size = _sizes(options, len(rows))
    train, test = train_test_split(
        rows,
        train_size=train_size,
        test_size=test_size,
        stratify=dataset.y[rows] if options.stratify else None,
        random_state=seed,
    )
    X_train, X_test = scale_split(data, dataset.X[train], dataset.X[test])
    return Split(X_train=X_train, y_train=dataset.y[train], X_test=X_test, y_test=dataset.y[test])


def component_scores(features, split: Split, n_scores: int) -> dict:
    """The first ``n_scores`` component scores and the class of every row, training rows then test rows."""
    X = np.vstack([split.X_train, split.X_test])
    y = np.concatenate([split.y_train, split.y_test])
    return {"component_scores": features.transform(X)[:, :n_scores].tolist(), "score_classes": y.tolist()}


def evaluate_classification(method: Method, split: Split, options: Options) -> dict:
    """Fit feature step and classifier on the training rows; accuracy on the test rows.

    Without a search the two steps are fitted one after the other so that the
    feature step's fit time is its own. With ``options.scores`` the record also
    holds the component scores of every row (:func:`component_scores`).
    """
    model = make_pipeline(clone(method.estimator), options)
    start = time.perf_counter()
    if isinstance(model, GridSearchCV):
        model.fit(split.X_train, split.y_train)
        feature_fit = classifier_fit = time.perf_counter() - start
        fitted = model.best_estimator_
        extra = {f"best__{key}": value for key, value in model.best_params_.items()}
    else:
        model["features"].fit(split.X_train)
        feature_fit = time.perf_counter() - start
        model["classifier"].fit(model["features"].transform(split.X_train), split.y_train)
        classifier_fit = time.perf_counter() - start - feature_fit
        fitted, extra = model, {}
    scored = time.perf_counter()
    predicted = model.predict(split.X_test)
    accuracy = float(np.mean(predicted == split.y_test))
    score_time = time.perf_counter() - scored
    gamma = getattr(fitted["features"], "gamma_", None)
    scores = component_scores(fitted["features"], split, options.scores) if options.scores else {}
    record = {
        "accuracy": accuracy,
        "error": 1.0 - accuracy,
        "fit_time": feature_fit,
        "classifier_fit_time": classifier_fit,
        "score_time": score_time,
        "n_classes": int(len(np.unique(split.y_train))),
        **({"gamma": float(gamma)} if gamma else {}),
        "n_train": len(split.y_train),
        "n_test": len(split.y_test),
        **extra,
        **scores,
        "status": "ok",
    }
    return with_flags(record, empty_model(fitted["features"]))


class Classification(Protocol):
    name = "classification"
    description = "kernel-PCA features then a classifier on a stratified train / test split"
    options = Options
    # Typed as Protocol's, not as this protocol's own: classification_cv, a subclass, has its own records, and
    # evaluates and describes with its own options.
    records: tuple[str, ...] = RECORDS
    parse_options = staticmethod(parse_options)
    check_methods = staticmethod(check_methods)
    check_data = staticmethod(check_classification)
    split = staticmethod(classification_split)
    evaluate: Callable[..., dict] = staticmethod(evaluate_classification)
    describe: Callable[..., str] = staticmethod(describe)
    train_rows = staticmethod(train_rows)
