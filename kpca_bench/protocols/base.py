"""The contract between the runner and a protocol, and the parsed config entries a protocol reads.

A protocol says how one trial splits a dataset and evaluates one method on the
split. It knows nothing of the config file, the runner or the reports: it is
handed the parsed ``dataset`` entry (:class:`DatasetConfig`), its own typed
options (parsed and checked when the config is loaded), the method entries
(:class:`MethodConfig`), and per cell the method as built (:class:`Method`).
"""

from __future__ import annotations

import itertools
import re
import time
import warnings
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from kpca_bench.devices import to_numpy
from kpca_bench.methods.detector import KernelSubspaceDetector, around_subspace, fitted_subspace
from kpca_bench.methods.registry import estimator_spec, method_spec
from kpca_bench.validation import Problems, declared


@dataclass(frozen=True)
class DatasetConfig:
    """Which data, which classes are inliers / outliers, and how many of each per trial.

    Which of the class and size keys a config must give depends on its protocol
    (:attr:`Protocol.dataset_keys`); the novelty protocol needs all five.
    ``max_rows``: a stratified, seeded subsample of the rows first (None: all).
    ``scaling_rows``: the rows ``scaling`` is fitted on. ``training`` (default, our
    choice): the trial's training rows, as a deployed detector's must be; ``all``:
    the trial's training and test rows together, as Shen & Asgharzadeh's SAS code
    does (``std(wdbc_train//wdbc_test)``, novelty detection example); ``each``: the
    training rows on themselves and the test rows on themselves, a reading of Wang &
    Tanaka's section 4.2 ("The training data is used normalized to the range [0, 1]"),
    which names no scaling for the test half.
    ``draw``: how the novelty protocols pick a trial's rows. ``random`` (default, our
    choice): drawn at random without replacement, anew in each trial. ``file_order``:
    the first ``train_inliers`` rows of the inlier classes in the dataset's row order
    (the order of its data file) for training, the next ``test_inliers`` and the first
    ``test_outliers`` rows of the outlier classes for the test; every trial gets the same
    split. A reading of Li et al., section IV.B.1, which gives how many rows of each class
    are used ("300 samples from class 'won' are used in the training process, and 150
    samples from class 'won' and 150 data from class 'nowin' are used for testing") but
    never says that they are drawn at random, nor how many draws the tables summarise.
    ``first_outliers``: the inliers drawn at random anew in each trial (as ``random``
    draws them), the test outliers the first ``test_outliers`` rows of the outlier
    classes in the dataset's row order, the same in every trial. What Das et al.'s code
    does (``skpca_codes/kspca_fruits2_var.py`` tests on ``outliers[0:111]``), where their
    section V says the test subsets are randomly chosen.
    ``default_classes``: the config named neither inliers nor outliers, so they are
    0 and 1 (:mod:`kpca_bench.datasets.labels`) and the labels must be 0 / 1.
    """

    name: str = declared(doc="a registered dataset ('kpca-bench datasets list'), 'file' or 'openml'")
    options: dict = declared(default_factory=dict, doc="the dataset's loader options (a file's path, an OpenML id)")
    scaling: str = declared(
        "none", choices=("none", "standard", "minmax"), doc="feature scaling, fitted on the rows scaling_rows names"
    )
    inliers: tuple = declared((), doc="the class label(s) of the inliers")
    outliers: tuple = declared((), doc="the class label(s) of the outliers")
    train_inliers: int | None = declared(None, minimum=2, doc="inliers a method is trained on, per trial")
    test_inliers: int | None = declared(None, minimum=1, doc="inliers in the test set, per trial")
    test_outliers: int | None = declared(None, minimum=1, doc="outliers in the test set, per trial")
    max_rows: int | None = declared(None, minimum=2, doc="a stratified, seeded subsample of the rows first (none: all)")
    default_classes: bool = declared(
        False, key=False, doc="the config named neither inliers nor outliers: they are 0 and 1"
    )
    scaling_rows: str = declared(
        "training",
        choices=("training", "all", "each"),
        doc="the rows scaling is fitted on: the training rows, all rows of the trial, "
        "or the training and test rows each on themselves",
    )
    draw: str = declared(
        "random",
        choices=("random", "file_order", "first_outliers"),
        doc="how the novelty protocols pick a trial's rows: at random, in file order, or the outliers in file order",
    )


# How a config's trials relate to its rows, by ``draw`` (only the novelty protocols read it; elsewhere it is random).
TRIALS_DRAWN = {
    "random": "drawn anew in each of {trials} trials",
    "file_order": "{trials} trial",
    "first_outliers": "the inliers drawn anew in each of {trials} trials",
}


@dataclass(frozen=True)
class ThresholdConfig:
    """How an outlier score becomes a yes/no decision for F1.

    ``train_quantile`` (default): flag test points whose score exceeds the
    ``quantile`` of the training (inlier) scores; uses no test labels, as a
    deployed detector must. ``test_prior``: flag as many test points as there
    are outliers in the test set (uses the outlier count). ``test_oracle``: the
    threshold that maximises F1 on the test set; an upper bound, labelled as
    an oracle wherever it is reported. ``fixed``: a given ``value`` of the
    outlier score (a paper's published cut).
    """

    rule: str = declared(
        "train_quantile",
        choices=("train_quantile", "fixed", "test_prior", "test_oracle"),
        doc="how the outlier-score cut for F1 is chosen",
    )
    quantile: float = declared(0.95, doc="the quantile of the training scores (rule train_quantile)")
    value: float | None = declared(None, doc="the outlier-score cut (rule fixed)")

    @property
    def is_oracle(self) -> bool:
        return self.rule in ("test_prior", "test_oracle")

    def describe(self) -> str:
        if self.rule == "train_quantile":
            return f"{self.quantile:g} quantile of training scores"
        if self.rule == "fixed":
            return f"fixed outlier-score cut {self.value:g}"
        if self.rule == "test_prior":
            return "test outlier count (oracle: uses test labels)"
        return "best F1 on test set (oracle: uses test labels)"


@dataclass(frozen=True)
class MethodConfig:
    """One entry of ``methods``: a registered method (or a class's import path), a label and its parameter grid.

    ``params`` holds fixed values and ``grid`` lists values to sweep; every
    combination of the grid is one *setting*, run on every trial. ``higher_is``:
    the declared sign of a class named by import path (None: known or not needed).
    ``estimator_class``: the class of an estimator given as an object (``kpca_bench.run(methods=...)``),
    carried to the workers by pickling rather than imported by its ``name``. ``import_folders``: where a class
    named by import path is looked for before ``sys.path`` (the config's folder), in every process that builds it.
    """

    name: str = declared(doc="a registered method ('kpca-bench methods') or a detector class as 'package.module:Class'")
    label: str = declared(required=False, doc="the name in tables and figures (default: the method's name)")
    params: dict = declared(default_factory=dict, doc="fixed parameter values")
    grid: dict = declared(
        default_factory=dict,
        doc="parameter values to sweep (a list or {start, stop, step}); each combination is a setting",
    )
    score: str | None = declared(None, doc="the outlier score of a kernel-PCA variant")
    trials: int | None = declared(None, minimum=1, doc="run this entry on the first trials only")
    higher_is: str | None = declared(
        None, choices=("normal", "outlier"), doc="what higher scores of a class named by import path mean"
    )
    estimator_class: type | None = declared(
        None,
        key=False,
        doc="the class of an estimator given as an object "
        "(kpca_bench.run(methods=...)), carried to the workers by pickling",
    )
    import_folders: tuple[str, ...] = declared(
        (), key=False, doc="the folders a class named by import path is looked for in first (the config's folder)"
    )

    def spec(self):
        """The method's :class:`~kpca_bench.methods.registry.MethodSpec` (built from the import path for a class)."""
        if self.estimator_class is not None:
            return estimator_spec(self.estimator_class, self.higher_is)
        return method_spec(self.name, self.higher_is, self.import_folders)

    def settings(self) -> list[dict]:
        """Every parameter setting of this entry: ``params`` updated by one grid point."""
        keys = list(self.grid)
        return [
            {**self.params, **dict(zip(keys, values))} for values in itertools.product(*(self.grid[k] for k in keys))
        ]

    def setting_label(self, setting: dict) -> str:
        """The label plus the swept values, e.g. ``SKPCA (l1_ratio=0.7)``."""
        swept = [k for k, values in self.grid.items() if len(values) > 1]
        if not swept:
            return self.label
        return f"{self.label} (" + ", ".join(f"{k}={setting[k]}" for k in swept) + ")"

    def swept_parameter(self) -> str | None:
        """The first parameter whose grid has more than one value (e.g. a kernel width), or None."""
        return next((key for key, values in self.grid.items() if len(values) > 1), None)


# The outlier score of a kernel-PCA variant whose entry names none.
DEFAULT_SCORE = "reconstruction_error"


@dataclass
class FitShare:
    """The one fit of a *fit group*: cells of one trial that differ only in the outlier score of a subspace
    method (:func:`~kpca_bench.experiment.planning.plan_cells`). The first cell to fit keeps here the fitted
    kernel-PCA variant (or the error its fit raised), how long the fit took and the warnings the fit raised;
    every cell of the group then builds its detector around that one fit with its own score
    (:func:`~kpca_bench.methods.detector.around_subspace`), or raises that error, and sees the fit's
    warnings as if it had fitted (the warnings of scoring the training points stay each cell's own)."""

    estimator: Any = None
    error: Exception | None = None
    fit_seconds: float | None = None
    fit_warnings: list = field(default_factory=list)

    @property
    def done(self) -> bool:
        """Whether a cell has fitted (or tried to)."""
        return self.estimator is not None or self.error is not None

    def fitted_detector(self, method: Method, X):
        """``method``'s detector fitted on ``X``, around the group's one fit (made now if no cell has made it)."""
        if not self.done:
            self._fit(method.detector(), X)
        self._warn_again()
        if self.error is not None:
            raise self.error
        return around_subspace(method.detector(), self.estimator, X)

    def _fit(self, detector: KernelSubspaceDetector, X) -> None:
        start = time.perf_counter()
        caught: list = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.estimator = fitted_subspace(detector, X)
        except Exception as error:  # noqa: BLE001 - kept for the group's cells, each of which raises it
            self.error = error
        finally:
            self.fit_seconds = time.perf_counter() - start
            self.fit_warnings = list(caught)

    def _warn_again(self) -> None:
        """Issue the fit's warnings in the calling cell (each cell's record counts its own)."""
        for caught in self.fit_warnings:
            warnings.warn_explicit(caught.message, caught.category, caught.filename, caught.lineno)


@dataclass(frozen=True)
class Method:
    """What a cell hands a protocol: the entry's label and registered name, the estimator built for one
    setting (unfitted), and for a kernel-PCA variant (``subspace``) the outlier score its entry names.
    ``fit_share``: the fit the cell shares with the other cells of its fit group (None: it fits alone)."""

    label: str
    name: str
    estimator: Any
    subspace: bool
    score: str | None = None
    fit_share: FitShare | None = None

    def detector(self):
        """An unfitted outlier detector: the estimator itself, or a kernel-PCA variant scored in its subspace."""
        if self.subspace:
            return KernelSubspaceDetector(self.estimator, outlier_score=self.score or DEFAULT_SCORE)
        return self.estimator

    def fitted_detector(self, X):
        """:meth:`detector` fitted on ``X``, or for a cell of a fit group its share of the group's one fit
        (:class:`FitShare`); what a protocol that shares fits (:attr:`Protocol.shares_fits`) calls."""
        if self.fit_share is not None:
            return self.fit_share.fitted_detector(self, X)
        detector = self.detector()
        detector.fit(X)
        return detector


class Protocol:
    """A protocol: its options and the methods of one trial; one subclass per protocol, one instance in
    :data:`kpca_bench.protocols.PROTOCOLS`.

    Attributes
    ----------
    name, description : the ``protocol:`` value and one line for listings.
    options : the options dataclass (its fields are the keys a config may give under ``protocol:``).
    dataset_keys : the keys of the ``dataset:`` entry the protocol needs.
    records : the measured fields of its records.
    report_only_options : options that change only how the report summarises the records, never a
        cell's numbers: left out of the cell keys, so a config that differs from another only in them
        reuses its cells (:func:`~kpca_bench.experiment.planning.plan_cells`).
    reads_draw : its split reads ``dataset.draw`` (the novelty splits).
    shares_fits : its ``evaluate`` fits through :meth:`Method.fitted_detector`, so that the cells of a fit
        group (:class:`FitShare`) can share one fit; a subclass that defines its own ``evaluate`` does not,
        unless it says so.
    """

    name: str
    description: str
    options: type
    dataset_keys: tuple[str, ...] = ()
    records: tuple[str, ...] = ()
    report_only_options: tuple[str, ...] = ()
    reads_draw: bool = False
    shares_fits: bool = False

    def __init_subclass__(cls, **kwargs):
        # A subclass with its own evaluate shares fits only if it says so: it may not fit through fitted_detector.
        super().__init_subclass__(**kwargs)
        if "evaluate" in cls.__dict__ and "shares_fits" not in cls.__dict__:
            cls.shares_fits = False

    def parse_options(self, raw: dict, threshold: ThresholdConfig, problems: Problems):
        """The typed options of the config's ``protocol:`` mapping (ranges expanded) and the top-level
        ``threshold``, every bad value reported to ``problems`` (keys relative to ``protocol``)."""
        return self.options(threshold=threshold)

    def check_methods(self, options, methods: tuple[MethodConfig, ...], problems: Problems) -> None:
        """Which method entries the protocol can run, at config load, before any data (keys from the top
        of the config: ``methods[2].name``); every entry by default."""

    def check_data(self, dataset, data: DatasetConfig, options) -> None:
        """Whether the loaded dataset can serve the protocol; raises :class:`~kpca_bench.errors.DataError`
        or :class:`~kpca_bench.errors.ConfigError`."""
        raise NotImplementedError

    def split(self, dataset, data: DatasetConfig, options, seed: int):
        """One trial's data."""
        raise NotImplementedError

    def evaluate(self, method: Method, split, options) -> dict:
        """Fit, score and measure one method on one split: the fields of its record."""
        raise NotImplementedError

    def describe(self, data: DatasetConfig, options) -> str:
        """A sentence on how a trial splits the data."""
        raise NotImplementedError

    def train_rows(self, data: DatasetConfig, options) -> int | None:
        """Rows a method is fitted on, when known before the data load (bounds ``n_components``);
        by default known only once the data are loaded (None)."""
        return None

    def option_names(self) -> tuple[str, ...]:
        """The keys a config may give under ``protocol:`` (the top-level ``threshold`` is not one)."""
        return tuple(option.name for option in fields(self.options) if option.name != "threshold")


NON_FINITE_SCORES = {
    "status": "failed",
    "error_type": "NonFiniteScores",
    "error": "the method produced NaN or infinite scores; scale the features "
    "(dataset.scaling: standard or minmax) or change the method's parameters",
}
"""The record of a cell whose scores are not all finite: a failed cell, since no metric can be computed."""


def constant_scores(scores) -> dict:
    """``{"degenerate": "constant scores"}`` if every score is equal up to rounding, else ``{}``.

    Equal scores rank nothing (AUROC 0.5, every point above or below any cut): the cell finished,
    but its numbers say nothing about the method, so its record is flagged rather than failed.
    ``scores`` of two dimensions hold one column per model parameter of a sweep (test points x
    parameters): flagged when every column is constant, whatever the columns' levels (a Mahalanobis
    distance summed over ``p`` components grows with ``p``, so its all-0.5 cells are constant per
    column only).
    """
    scores = np.asarray(scores, dtype=float)
    columns = scores.reshape(len(scores), -1) if scores.ndim else scores.reshape(1, 1)
    if not columns.size:
        return {"degenerate": "constant scores"}
    spread = np.ptp(columns, axis=0)
    flat = spread <= ROUNDING * np.max(np.abs(columns), axis=0, initial=0.0)
    return {"degenerate": "constant scores"} if np.all(flat) else {}


# Scores closer than this, relative to their size, differ by rounding alone.
ROUNDING = 8 * np.finfo(float).eps

# The start of the flag of a fitted model without a usable component (every component empty).
NO_COMPONENTS = "no components"


def empty_model(model) -> dict:
    """``{"degenerate": "no components: M of M empty"}`` if every component of a fitted kernel-PCA
    model is empty, else ``{}``.

    A component is empty when it has no non-zero coefficient (``empty_components_`` of the sparse ADMM
    models, ``n_nonzero_ == 0`` of the elastic-net ones). With all of them empty the model explains no
    variance and its outlier score is the distance to the kernel mean: the cell finished, but its numbers
    are not the method's, so its record is flagged.
    """
    model = getattr(model, "estimator_", model)
    empty = getattr(model, "empty_components_", None)
    if empty is None and getattr(model, "n_nonzero_", None) is not None:
        empty = to_numpy(model.n_nonzero_) == 0
    if empty is not None:
        empty = to_numpy(empty)
    if empty is None or not np.size(empty) or not np.all(empty):
        return {}
    return {"degenerate": f"{NO_COMPONENTS}: {np.size(empty)} of {np.size(empty)} empty"}


# The fields of a record that flag its numbers: why they do not measure the method (``degenerate``), and why its
# fit is not the method's converged one (``not_converged``, :func:`iteration_limit`).
FLAG_FIELDS = ("degenerate", "not_converged")


def with_flags(record: dict, *flags: dict) -> dict:
    """``record`` with the reasons of ``flags`` (each ``{}``, ``{"degenerate": reason}`` or
    ``{"not_converged": reason}``) added to its own of the same field, joined by "; "."""
    joined = {}
    for name in FLAG_FIELDS:
        reasons = [reason for reason in (record.get(name), *(f.get(name) for f in flags)) if reason]
        if reasons:
            joined[name] = "; ".join(reasons)
    return {**record, **joined}


# A ConvergenceWarning that names the iteration limit a fit stopped on: "max_iter=6", "max_outer_iter=300"
# (scikit-learn's solvers and this package's iterative methods) or the block eigensolver's "after 30 restarts".
ITERATION_LIMIT = re.compile(r"(?P<name>max_\w+)\s*=\s*(?P<value>\d+)|stopped after (?P<restarts>\d+) restarts")


def iteration_limit(messages, n_iter=None) -> dict:
    """``{"not_converged": "stopped at max_iter = 6 (ConvergenceWarning)"}`` if one of ``messages`` (those of the
    ``ConvergenceWarning`` warnings of a cell) says the fit stopped on its iteration limit, else ``{}``.

    Such a fit finished, but on its limit rather than its tolerance: its numbers are those of an unconverged
    model, so its record is flagged (as :func:`constant_scores` flags a degenerate one). ``n_iter``, the record's
    iterations, is named when it differs from the limit (a limit per component or per restart).
    """
    for message in messages:
        found = ITERATION_LIMIT.search(message or "")
        if found is None:
            continue
        name, value = ("max_restarts", found["restarts"]) if found["restarts"] else (found["name"], found["value"])
        ran = f", {n_iter:g} iterations" if isinstance(n_iter, (int, float)) and n_iter != int(value) else ""
        return {"not_converged": f"stopped at {name} = {value}{ran} (ConvergenceWarning)"}
    return {}


def kernel_pca_only(methods: tuple[MethodConfig, ...], problems: Problems, why: str) -> None:
    """A problem for every entry whose method is not a kernel-PCA variant; ``why`` says what the protocol needs."""
    for index, method in enumerate(methods):
        if not method.spec().subspace:
            problems.add(f"methods[{index}].name", f"{method.name} is not a kernel-PCA variant: {why}")
