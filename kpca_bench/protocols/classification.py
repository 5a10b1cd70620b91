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

Each record holds ``accuracy``, ``error`` (misclassification rate, what the
paper reports), ``fit_time`` (the feature step's fit alone; with a search, the
whole search), ``classifier_fit_time``, ``score_time`` (test transform +
predict) and the resolved ``gamma``. The report replaces the generic outlier
tables (their F1 / threshold columns do not apply) with ``trials.csv``,
``summary.csv`` (``accuracy_mean``, ``error_mean``, ... per method, the
columns ``kpca-bench check`` compares with ``results/reference/papers.yaml``),
``summary.md`` and ``error_box.png``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

from kpca_bench.datasets import Dataset
from kpca_bench.errors import ConfigError, DataError
from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.registry import METHODS
from kpca_bench.protocols.novelty import SCALERS

if TYPE_CHECKING:
    from kpca_bench.config import Config

OPTIONS = ("train_size", "test_size", "classes", "classifier", "search", "cv")
CLASSIFIERS = {"lda": LinearDiscriminantAnalysis, "svm": SVC}
STEPS = ("features", "classifier")
METRICS = {"accuracy": ("accuracy", 4), "error": ("misclassification rate", 4),
           "fit_time": ("feature fit time (s)", 2), "classifier_fit_time": ("classifier fit time (s)", 2)}
FIGURE = "error_box.png"


@dataclass(frozen=True)
class Split:
    """One trial's labelled training and test rows, scaled on the training rows."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray

    @property
    def is_outlier(self) -> np.ndarray:
        """All False: no test row is an outlier. The runner counts test rows through it (``n_test_inliers``)."""
        return np.zeros(len(self.y_test), dtype=bool)


def _classifier_option(config: Config) -> tuple[str, dict]:
    option = config.protocol_options.get("classifier", "lda")
    if isinstance(option, str):
        return option, {}
    return option.get("name"), dict(option.get("params") or {})


def make_pipeline(features, config: Config):
    """The unfitted estimator of one cell: feature step + classifier, in a grid search if the config asks."""
    name, params = _classifier_option(config)
    pipeline = Pipeline([("features", features), ("classifier", CLASSIFIERS[name](**params))])
    search = config.protocol_options.get("search")
    if not search:
        return pipeline
    cv = StratifiedKFold(n_splits=config.protocol_options.get("cv", 5))
    return GridSearchCV(pipeline, search, cv=cv, refit=True)


def _row_indices(dataset: Dataset, config: Config) -> np.ndarray:
    classes = config.protocol_options.get("classes")
    if classes is None:
        return np.arange(len(dataset.y))
    missing = [c for c in classes if c not in dataset.class_names]
    if missing:
        raise DataError(f"dataset {dataset.name} has no class {missing[0]!r} (protocol.classes); "
                        f"its classes are {list(dataset.class_names)}")
    return np.flatnonzero(np.isin(dataset.y, classes))


def _sizes(config: Config, n_rows: int) -> tuple[int, int]:
    train = config.protocol_options["train_size"]
    return train, config.protocol_options.get("test_size", n_rows - train)


def check_classification(dataset: Dataset, config: Config) -> None:
    """Every option and method is usable on this dataset; all problems at once, before any work."""
    options, source = config.protocol_options, config.source
    problems = []

    def positive_int(key, minimum):
        value = options.get(key)
        if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
            problems.append(f"{source}: protocol.{key}: must be an integer >= {minimum}, got {value!r}")
            return False
        return True

    if "train_size" not in options:
        problems.append(f"{source}: protocol.train_size: missing (required): the training rows per trial")
    sizes_ok = positive_int("train_size", 2) if "train_size" in options else False
    if "test_size" in options:
        sizes_ok = positive_int("test_size", 1) and sizes_ok
    if "cv" in options:
        positive_int("cv", 2)
    name, params = _classifier_option(config)
    if name not in CLASSIFIERS:
        problems.append(f"{source}: protocol.classifier: unknown classifier {name!r}; accepted: "
                        f"{', '.join(CLASSIFIERS)} (or {{name: ..., params: {{...}}}})")
    else:
        unknown = sorted(set(params) - set(CLASSIFIERS[name]._get_param_names()))
        if unknown:
            problems.append(f"{source}: protocol.classifier.params: {name} has no parameter {unknown[0]!r}")
    search = options.get("search", {})
    if not isinstance(search, dict) or any(not isinstance(v, list) or not v for v in search.values()) \
            or any(key.split("__")[0] not in STEPS for key in search):
        problems.append(f"{source}: protocol.search: must map pipeline parameters (features__<param> or "
                        f"classifier__<param>) to non-empty lists of candidates, got {search!r}")
    for index, method in enumerate(config.methods):
        if not METHODS[method.name].subspace:
            problems.append(f"{source}: methods[{index}].name: {method.name} is not a kernel-PCA variant, so it "
                            "has no features to classify on; use kpca (kernel: linear for plain PCA), "
                            "nystrom_kpca, ...")
    try:
        rows = _row_indices(dataset, config)
    except DataError as error:
        problems.append(str(error))
        rows = None
    if rows is not None and sizes_ok:
        train, test = _sizes(config, len(rows))
        if train + max(test, 1) > len(rows):
            problems.append(f"{source}: protocol: train_size {train} + test_size {test} is more than the "
                            f"{len(rows)} rows of dataset {dataset.name}")
        for index, method in enumerate(config.methods):
            for setting in method.settings():
                k = setting.get("n_components")
                if isinstance(k, Integral) and k > train - 1:
                    problems.append(f"{source}: methods[{index}].params.n_components: {k} components need more "
                                    f"than the {train} training rows; use at most {train - 1}")
    if problems:
        raise ConfigError("\n".join(problems))


def describe(config: Config) -> str:
    options = config.protocol_options
    test = options.get("test_size", "all other")
    classes = options.get("classes")
    name, params = _classifier_option(config)
    classifier = name + (f" {params}" if params else "")
    search = options.get("search")
    tuning = f", tuned by {options.get('cv', 5)}-fold CV over {search}" if search else ""
    return (f"stratified random split into {options['train_size']} training and {test} test rows"
            f"{f' of classes {list(classes)}' if classes else ''}, drawn anew in each of {config.trials} trials "
            f"(seed {config.seed}); each method's component scores are the features of {classifier}{tuning}")


def classification_split(dataset: Dataset, config: Config, seed: int) -> Split:
    """A stratified random split of the chosen classes; scaling fitted on the training rows."""
    rows = _row_indices(dataset, config)
    train_size, test_size = _sizes(config, len(rows))
    train, test = train_test_split(rows, train_size=train_size, test_size=test_size, stratify=dataset.y[rows],
                                   random_state=seed)
    X_train, X_test = dataset.X[train], dataset.X[test]
    if config.dataset.scaling in SCALERS:
        scaler = SCALERS[config.dataset.scaling]().fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    return Split(X_train=X_train, y_train=dataset.y[train], X_test=X_test, y_test=dataset.y[test])


def evaluate_classification(detector, split: Split, config: Config) -> dict:
    """Fit feature step and classifier on the training rows; accuracy on the test rows.

    The runner builds every subspace method as a detector; its unfitted
    kernel-PCA estimator is the feature step. Without a search the two steps
    are fitted one after the other so that the feature step's fit time is its own.
    """
    features = clone(detector.estimator if isinstance(detector, KernelSubspaceDetector) else detector)
    model = make_pipeline(features, config)
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
    gamma = getattr(fitted["features"], "gamma_", None)
    return {"accuracy": accuracy, "error": 1.0 - accuracy, "fit_time": feature_fit,
            "classifier_fit_time": classifier_fit, "score_time": time.perf_counter() - scored,
            "n_classes": int(len(np.unique(split.y_train))), **({"gamma": float(gamma)} if gamma else {}),
            **extra, "status": "ok"}


def _trials_table(config: Config, records: list[dict]) -> pd.DataFrame:
    order = [m.setting_label(s) for m in config.methods for s in m.settings()]
    rows = [{**{k: v for k, v in r.items() if k != "params" and not isinstance(v, (list, dict))},
             **{f"param_{k}": v for k, v in r["params"].items()}} for r in records]
    frame = pd.DataFrame(rows).drop(columns=["n_test_outliers"], errors="ignore")
    frame = frame.rename(columns={"n_test_inliers": "n_test"})
    frame["method"] = pd.Categorical(frame["method"], categories=order, ordered=True)
    return frame.sort_values(["method", "trial"]).reset_index(drop=True)


def _summary_table(trials: pd.DataFrame, metrics=METRICS) -> pd.DataFrame:
    ok = trials[trials["status"] == "ok"]
    grouped = ok.groupby("method", observed=True)[list(metrics)]
    summary = grouped.agg(["mean", "std"])
    summary.columns = [f"{metric}_{stat}" for metric, stat in summary.columns]
    summary.insert(0, "trials", grouped.size())
    return summary.reset_index()


def _markdown(config: Config, summary: pd.DataFrame, references: dict, facts: list[str]) -> str:
    header = ["method", "trials", *(label for label, _ in METRICS.values())]
    if references:
        header.insert(4, "paper (misclassification)")
    lines = [f"# {config.name}: {config.dataset.name}", "", *[f"- {fact}" for fact in facts], "",
             "Mean ± standard deviation over trials.", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, row in summary.iterrows():
        cells = [str(row["method"]), str(row["trials"])]
        for metric, (_, digits) in METRICS.items():
            std = 0.0 if pd.isna(row[f"{metric}_std"]) else row[f"{metric}_std"]
            cells.append(f"{row[f'{metric}_mean']:.{digits}f} ± {std:.{digits}f}")
        if references:
            ref = references.get((str(row["method"]), "error_mean"))
            cells.insert(4, "–" if ref is None else f"{ref['value']:.4f} ({ref['source']})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines + ["", f"![{FIGURE}]({FIGURE})", ""])


def metric_box_plot(trials: pd.DataFrame, methods: list[str], title: str, path: Path, *, column: str = "error",
                    ylabel: str = "test misclassification rate") -> None:
    """One box per method of a per-trial metric, every trial drawn as a dot."""
    from kpca_bench.report.plots import _save, plt

    data = [trials.loc[(trials["method"] == m) & (trials["status"] == "ok"), column].to_numpy() for m in methods]
    fig, ax = plt.subplots(figsize=(max(4.8, 1.6 + 1.4 * len(methods)), 4.4))
    ax.boxplot(data, tick_labels=methods)
    for position, values in enumerate(data, start=1):
        ax.plot(np.full(len(values), position), values, "o", ms=3, alpha=0.6, color="tab:blue")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}: {ylabel} over {max(len(d) for d in data)} trials", fontsize=10)
    ax.tick_params(axis="x", labelrotation=15)
    ax.grid(axis="y", alpha=0.3)
    _save(fig, path)


def report_classification(config: Config, records: list[dict], directory) -> None:
    """Accuracy tables, the paper's numbers beside ours (``config.reference``), and the error box plot."""
    # Imported here: kpca_bench.report imports the config module, which imports this package.
    from kpca_bench.report.reference import load_references, reference_values
    from kpca_bench.results import write_atomic

    directory = Path(directory)
    trials = _trials_table(config, records)
    if not (trials["status"] == "ok").any():
        return
    summary = _summary_table(trials)
    reference = config.reference
    references = reference_values(load_references(directory.parent), paper=reference.paper,
                                  dataset=reference.dataset) if reference else {}
    versions = records[0].get("versions", {})
    scaling = config.dataset.scaling + (" (fitted on the training rows)" if config.dataset.scaling in SCALERS else "")
    facts = [f"dataset: `{config.dataset.name}`; scaling: {scaling}",
             f"protocol: {config.protocol}: {describe(config)}",
             f"paper: {reference.paper}, {reference.dataset}" if reference else "paper: none named",
             f"config hash `{config.config_hash()}`; versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())]
    methods = [m for m in summary["method"].astype(str)]
    metric_box_plot(trials, methods, f"{config.name}: {config.dataset.name}", directory / FIGURE)
    write_atomic(directory / "trials.csv", trials.to_csv(index=False))
    write_atomic(directory / "summary.csv", summary.to_csv(index=False))
    write_atomic(directory / "summary.md", _markdown(config, summary, references, facts))
