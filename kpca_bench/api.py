"""The library's entry points: ``kpca_bench.run(config, methods=..., out=...) -> Results``, and
``kpca_bench.load(folder) -> Results``, which reads the same tables back from a finished run's folder.

The flow goes one way: the experiment layer runs the cells and returns what it did
(:func:`~kpca_bench.experiment.runner.run_experiment`), the report layer writes the tables and
figures from that outcome (:func:`~kpca_bench.report.write_outcome_report`), and :func:`run`
returns them as DataFrames. The command line's ``run`` calls :func:`run` and renders its result.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from kpca_bench.errors import ConfigError
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config, parse_config
from kpca_bench.experiment.progress import make_progress, print_notice
from kpca_bench.experiment.runner import RunOutcome, run_experiment
from kpca_bench.methods.registry import class_path
from kpca_bench.protocols import MethodConfig
from kpca_bench.report import Tables, write_outcome_report
from kpca_bench.report.loaded import read_run
from kpca_bench.validation import run_argument_problems

DEFAULT_OUT = Path("results")


@dataclass(frozen=True)
class Results:
    """What :func:`run` returns: the run's tables as DataFrames, its folder and what it did.

    Attributes
    ----------
    records : one row per cell (method setting x trial), as ``trials.csv``; a suite's rows carry a
        ``dataset`` column. Failed cells are rows with ``status`` ``failed`` and their ``error``.
    summary : as ``summary.csv``: mean and std per method (a suite: per dataset and method, a ``dataset`` column
        beside ``method``).
    folder : the results folder, ``<out>/<name>/`` (``<out>/<profile>/<name>/`` for a reduced profile).
    config : the config as run (its methods and overrides included).
    outcome : cells planned, reused and run, the failed cells' records and a suite's skipped datasets.
    datasets : a suite's table of one row per dataset and method (``datasets.csv``); None for one dataset.
    ranks : a suite's average ranks with bootstrap intervals (``ranks.csv``); None for one dataset.
    statistics : a suite's pairwise Wilcoxon–Holm tests of AUROC (``wilcoxon_holm.csv``; empty when the
        datasets are too few); None for one dataset.
    verdict : a suite's verdict as ``headline.md`` holds it, what the tests support first; None for one dataset.
    """

    records: pd.DataFrame
    summary: pd.DataFrame
    folder: Path
    config: Config
    outcome: RunOutcome
    datasets: pd.DataFrame | None = None
    ranks: pd.DataFrame | None = None
    statistics: pd.DataFrame | None = None
    verdict: str | None = None

    @classmethod
    def of(cls, config: Config, outcome: RunOutcome, tables: Tables) -> "Results":
        """The results of a run of ``config`` that ended with ``outcome`` and whose report has ``tables``."""
        return cls(
            records=tables.trials,
            summary=tables.summary,
            folder=outcome.directory,
            config=config,
            outcome=outcome,
            datasets=tables.datasets,
            ranks=tables.ranks,
            statistics=tables.statistics,
            verdict=tables.verdict,
        )

    @property
    def failures(self) -> list[dict]:
        """The records of the cells that failed (empty when every cell finished)."""
        return self.outcome.failures


def run(
    config,
    *,
    methods: Mapping[str, object] | None = None,
    out=None,
    jobs: int = 1,
    profile: str = "full",
    offline: bool = False,
    quiet: bool = True,
    trials: int | None = None,
    seed: int | None = None,
    scheduler: str | None = None,
    max_memory: float | None = None,
    retry_failed: bool = True,
    fail_fast: bool = False,
    wait: bool = True,
    reuse_from=None,
    html: bool = True,
    notify: Callable[[str], None] = print_notice,
) -> Results:
    """Run an experiment (one dataset, or a suite of them), write its tables and figures, and return them.

    Parameters
    ----------
    config : path of a YAML config, a dict of the same keys, or a :class:`~kpca_bench.experiment.config.Config`.
    methods : estimator objects by label, added to the config's methods (one of the same label is replaced):
        scikit-learn-style detectors (``fit``, ``score_samples`` higher = more normal) or PyOD ones
        (``decision_function`` higher = more anomalous); wrap any other in
        :class:`~kpca_bench.methods.interop.SignedDetector` to state its sign. Each cell builds its own copy
        from the object's class and ``get_params()`` (``random_state`` set from the cell's seed where it
        takes one), in worker processes too: classes defined in ``__main__`` or a notebook travel by value
        (cloudpickle). A cell's key holds ``"module:QualifiedClassName"`` and ``get_params(deep=False)``, so
        the same class with the same parameters resumes and reuses the same cells; give parameters plain
        values (numbers, strings) for keys that stay the same across sessions.
    out : results root (default ``results``, in the current folder).
    jobs : cells run in parallel (joblib worker processes; with ``scheduler``, a Dask cluster's).
    profile : the config's profile, ``full`` or ``quick`` (ignored for a ``Config``, which has one).
    offline : never download data; use only the local data folders.
    quiet : no progress lines on stderr.
    trials, seed, scheduler, max_memory : override the config's (as the command line's options).
    retry_failed, fail_fast, wait, reuse_from : as ``kpca-bench run``'s ``--retry-failed``, ``--fail-fast``,
        ``--no-wait`` (negated) and ``--reuse-from``.
    html : also write the run's tables and figures as one HTML page, ``report.html`` in its folder (as
        ``kpca-bench run`` does unless given ``--no-html``).
    notify : receives the messages that are not progress (default: printed on stderr).

    Returns
    -------
    Results
        The tables as DataFrames, the folder, and the outcome. Failed cells do not raise: they are in
        ``failures`` (and in the tables).

    Raises
    ------
    ConfigError
        A config or a ``methods`` entry that is not valid, listing every problem.
    KeyboardInterrupt
        On Ctrl-C, after the tables of what finished are written; calling again resumes.
    """
    check_arguments(
        config,
        methods,
        notify,
        jobs=jobs,
        trials=trials,
        seed=seed,
        profile=profile,
        out=out,
        reuse_from=reuse_from,
        scheduler=scheduler,
        max_memory=max_memory,
        offline=offline,
        quiet=quiet,
        retry_failed=retry_failed,
        fail_fast=fail_fast,
        wait=wait,
        html=html,
    )
    config = with_methods(as_config(config, profile), methods or {})
    config = config.with_overrides(trials=trials, seed=seed, scheduler=scheduler, max_memory_mb=max_memory)
    outcome = run_experiment(
        config,
        DEFAULT_OUT if out is None else out,
        jobs=jobs,
        offline=offline,
        progress=make_progress(quiet),
        retry_failed=retry_failed,
        fail_fast=fail_fast,
        wait=wait,
        notify=notify,
        reuse_from=reuse_from,
    )
    tables = write_outcome_report(config, outcome, html=html)
    if outcome.stopped_by is not None:
        raise outcome.stopped_by
    return Results.of(config, outcome, tables)


def load(
    folder,
    *,
    config=None,
    methods: Mapping[str, object] | None = None,
    profile: str = "full",
    notify: Callable[[str], None] = print_notice,
) -> Results:
    """The tables of a finished run, read from its results folder: what :func:`run` returned when it wrote it.

    Parameters
    ----------
    folder : the run's results folder, ``<out>/<name>/`` (a suite's too), as :attr:`Results.folder` names it.
    config, methods, profile : as given to :func:`run`, needed only where no file holds them: a config given as a
        dict or a :class:`~kpca_bench.experiment.config.Config`, and methods given as estimator objects. Without
        them, the config is the one the folder's ``run.json`` holds. The run's trials and seed are the folder's.
    notify : receives a line for each state file that is damaged and set aside (default: printed on stderr).

    Returns
    -------
    Results
        The records, the summary and a suite's tables across datasets, computed from the folder's records
        (``records.parquet``) under the config in its ``run.json``; its ``outcome`` that of a run that found
        every stored cell (``n_run`` 0). Nothing is run or written.

    Raises
    ------
    ConfigError
        A ``config`` or ``methods`` that is not valid, as :func:`run` says it.
    KpcaBenchError
        One line, if ``folder`` is not a results folder or holds no records of its config's cells, or if its
        run had a config or methods that no file holds and they are not given.
    """
    problems = [
        problem
        for problem in (
            folder_problem(folder),
            methods_problem(methods),
            None if config is None else config_problem(config),
        )
        if problem
    ]
    if problems:
        raise ConfigError("\n".join(problems))
    given = None if config is None else with_methods(as_config(config, profile), methods or {})
    config, outcome, tables = read_run(folder, notify=notify, given=given)
    return Results.of(config, outcome, tables)


def check_arguments(config, methods, notify, **arguments) -> None:
    """:class:`ConfigError` listing every argument of :func:`run` that is not valid, each named as the caller
    wrote it (``trials``, not ``--trials``), before any work; the command line's options go through the same
    checks (:func:`~kpca_bench.validation.run_argument_problems`)."""
    problems = [problem for problem in (config_problem(config), methods_problem(methods)) if problem]
    problems += run_argument_problems(arguments)
    if not callable(notify):
        problems.append(f"notify: must be a function that takes a message, got {notify!r}")
    if problems:
        raise ConfigError("\n".join(problems))


def folder_problem(folder) -> str | None:
    """What is wrong with :func:`load`'s ``folder`` argument, or None if it is a path."""
    if isinstance(folder, (str, os.PathLike)):
        return None
    return f"folder: must be the path of a run's results folder (str or pathlib.Path), got {type(folder).__name__}"


def config_problem(config) -> str | None:
    """What is wrong with :func:`run`'s ``config`` argument, or None if it is a path, a mapping or a Config."""
    if isinstance(config, (Config, Mapping, str, os.PathLike)):
        return None
    return (
        f"config: must be a path of a YAML config (str or pathlib.Path), a dict of its keys or a Config, "
        f"got {type(config).__name__}"
    )


def methods_problem(methods) -> str | None:
    """What is wrong with :func:`run`'s ``methods`` argument, or None if it is None or a mapping."""
    if methods is None or isinstance(methods, Mapping):
        return None
    if isinstance(methods, (list, tuple)):
        example = (
            ", ".join(f"{name!r}: {name}()" for name in dict.fromkeys(type(m).__name__ for m in methods))
            or "'iforest': IsolationForest()"
        )
        return (
            f"methods: give a dict of label -> estimator, e.g. methods={{{example}}}, not a "
            f"{type(methods).__name__} (the label names the method in every table)"
        )
    return f"methods: must be a dict of label -> estimator, got {type(methods).__name__}"


def as_config(config, profile: str = "full") -> Config:
    """A :class:`Config` from a path, a dict or a config (returned as it is)."""
    if isinstance(config, Config):
        return config
    if isinstance(config, Mapping):
        return parse_config(dict(config), source="<dict>", profile=profile)
    if (problem := config_problem(config)) is not None:
        raise ConfigError(problem)
    return load_config(config, profile)


def with_methods(config: Config, methods: Mapping[str, object]) -> Config:
    """``config`` with each estimator object of ``methods`` as the method entry of its label (:func:`method_entry`),
    replacing an entry of the same label in place and adding the others at the end."""
    entries = {label: method_entry(label, estimator) for label, estimator in methods.items()}
    kept = [entries.pop(m.label) if m.label in entries else m for m in config.methods]
    return replace(config, methods=(*kept, *entries.values()))


def method_entry(label: str, estimator) -> MethodConfig:
    """The method entry of an estimator object: named by its class's path, with ``get_params(deep=False)``
    as its parameters; :class:`ConfigError` if it is no outlier detector or has no ``get_params``."""
    if not isinstance(label, str) or not label:
        raise ConfigError(f"methods: a label must be a non-empty string, got {label!r}")
    if isinstance(estimator, type):
        raise ConfigError(f"methods[{label!r}]: give an instance, e.g. {estimator.__name__}(), not the class")
    if not callable(getattr(estimator, "get_params", None)):
        raise ConfigError(
            f"methods[{label!r}]: {type(estimator).__name__} has no get_params(); derive it from "
            "sklearn.base.BaseEstimator (or PyOD's BaseDetector)"
        )
    entry = MethodConfig(
        name=class_path(type(estimator)),
        label=label,
        params=estimator.get_params(deep=False),
        estimator_class=type(estimator),
    )
    entry.spec()  # refuses a class that is no outlier detector, here rather than in every cell
    return entry
