"""Experiment configs: YAML in, validated typed dataclasses out.

The YAML is strict: an unknown key is an error, and every problem in a file is
reported at once, one line each, naming the file, the key and what is accepted.
See ``configs/quickstart.yaml`` for an annotated example.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from numbers import Integral, Real
from pathlib import Path
from typing import Any

from kpca_bench.datasets import DATASETS
from kpca_bench.datasets.labels import INLIER, OUTLIER
from kpca_bench.devices import DEVICE_STRINGS, DEVICES, DeviceError, device_name
from kpca_bench.errors import ConfigError
from kpca_bench.experiment.config_file import read_config
from kpca_bench.methods.registry import METHODS, is_import_path, method_spec
from kpca_bench.methods.scores import OUTLIER_SCORES
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.protocols.base import DatasetConfig, MethodConfig, ThresholdConfig
from kpca_bench.validation import (
    PROFILES,
    RANGE_KEYS,
    Problems,
    accepted_keys,
    address_problem,
    as_keyword,
    check_keys,
    check_run_arguments,
    declaration,
    declared,
    did_you_mean,
    expand_range,
    integer,
    mapping,
    max_memory_problem,
    profile_problem,
    required_keys,
)

DEFAULT_CONFIG_DIR = Path("configs")
# Parameters the runner sets itself, so a config may not.
RUNNER_PARAMS = ("random_state",)


@dataclass(frozen=True)
class OutputConfig:
    """``output:``: which figures the report draws per dataset."""

    figures: tuple[str, ...] = declared(("box", "roc", "sparsity"), choices=("box", "roc", "sparsity"),
                                        doc="the figures drawn per dataset")


@dataclass(frozen=True)
class StatisticsConfig:
    """``statistics:`` of a suite: the post-hoc test whose groups the critical-difference diagram draws,
    ``nemenyi`` (Demšar 2006) or ``wilcoxon_holm`` (Benavoli et al. 2016). It changes no number of a
    cell, so it is not part of the config hash."""

    posthoc: str = declared("nemenyi", choices=("nemenyi", "wilcoxon_holm"),
                            doc="the post-hoc test whose groups the critical-difference diagram draws")


@dataclass(frozen=True)
class ExecutionConfig:
    """Where cells run and within how much memory. It never changes a number,
    so it is not part of the config hash or of any cell key.

    ``backend``: ``local`` (worker processes on this machine, ``--jobs``) or
    ``dask`` (a dask.distributed cluster). ``address``: the Dask scheduler,
    ``tcp://HOST:PORT``, or ``local`` (the default) to start a LocalCluster for the run.
    ``max_memory_mb``: the working-memory budget of each cell in MiB
    (scikit-learn's ``working_memory``); test-vs-train kernels are built and
    scored in row blocks within it. None keeps scikit-learn's default.
    ``device``: where the estimators that compute through the array API (exact
    and Nystrom kernel PCA, and detectors built on them) compute: ``cuda`` for a
    GPU (docs/gpu.md), ``cuda:N`` for the GPU numbered N, ``cpu``; None leaves each estimator's own ``device``.
    """

    backend: str = declared("local", choices=("local", "dask"), doc="where cells run: worker processes here, or Dask")
    address: str | None = declared(None, doc="the Dask scheduler, tcp://HOST:PORT, or 'local' for a LocalCluster")
    max_memory_mb: float | None = declared(None, doc="each cell's working-memory budget in MiB")
    device: str | None = declared(None, doc="where exact and Nystrom kernel PCA compute: cuda (a GPU), cuda:N (the "
                                            "GPU numbered N) or cpu")

    def with_overrides(self, *, scheduler: str | None = None, max_memory_mb: float | None = None) -> "ExecutionConfig":
        """A copy with a scheduler address and / or a memory budget applied (checked by
        :meth:`Config.with_overrides`)."""
        changes = {"max_memory_mb": float(max_memory_mb)} if max_memory_mb is not None else {}
        if scheduler is not None:
            changes.update(backend="dask", address=scheduler)
        return replace(self, **changes)


@dataclass(frozen=True)
class ReferenceConfig:
    """Which published numbers this experiment reproduces (entries of ``reference/numbers.yaml`` in the
    reproduction folder that holds the config file, ``reproductions/<paper>/``).

    ``stand_in``: when the run uses other data than the paper's (a stand-in for a file
    that is not to be had), how it differs; the report marks its numbers with it.
    ``variant_of`` / ``variant``: a variant run (``reproductions/<paper>/configs/variants/``) tests one reading
    of the paper against the headline config ``variant_of`` (a config file stem);
    ``variant`` says which reading, in a phrase. The report sets its numbers beside
    the headline ones.
    """

    paper: str = declared(doc="the paper's name in reproductions/<paper>/reference/numbers.yaml (the config's folder)")
    dataset: str = declared(doc="the paper's dataset whose numbers the run reproduces")
    stand_in: str = declared("", doc="how the run's data differ from the paper's, when they do")
    variant_of: str = declared("", doc="the headline config (a file stem) this variant reads differently")
    variant: str = declared("", doc="which reading of the paper the variant tests, in a phrase")


@dataclass(frozen=True)
class SuiteConfig:
    """``suite:``: every dataset of a named collection (``adbench``), less ``exclude`` or only ``include``."""

    collection: str = declared(doc="a named collection of datasets ('kpca-bench datasets list')")
    include: tuple[str, ...] = declared((), doc="only these datasets of the collection")
    exclude: tuple[str, ...] = declared((), doc="every dataset of the collection but these")


@dataclass(frozen=True, kw_only=True)
class Config:
    """A validated experiment config, with one profile's overrides applied.

    ``protocol_options`` is the ``protocol:`` mapping as written (ranges expanded), which keys the
    cells (less the protocol's report-only options); ``options`` is the protocol's typed options parsed from it (:mod:`kpca_bench.protocols`).
    A config names one ``dataset``, or several (``datasets``, from a ``datasets:`` list and / or a
    ``suite:`` collection; ``dataset`` is then None): each is run as the single-dataset config
    :meth:`members` gives, into its own sub-folder, with the same methods, protocol, trials and seed.
    """

    name: str = declared(doc="the experiment's name, which names its results folder")
    description: str = declared("", doc="what the experiment is for, in a sentence")
    dataset: DatasetConfig | None = declared(doc="the one dataset (or several: datasets or suite)")
    datasets: tuple[DatasetConfig, ...] = declared((), doc="several datasets, each a name or a dataset entry")
    suite: SuiteConfig | None = declared(None, doc="every dataset of a collection (its other keys: dataset keys "
                                                   "shared by all)")
    protocol: str = declared("novelty", doc="a protocol name, or a mapping of its name and options")
    methods: tuple[MethodConfig, ...] = declared(doc="the methods, each run on every trial")
    threshold: ThresholdConfig = declared(default_factory=ThresholdConfig, doc="how F1's cut is chosen")
    trials: int = declared(10, minimum=1, doc="how many splits each method is run on")
    seed: int = declared(0, minimum=0, doc="the seed every random choice derives from")
    output: OutputConfig = declared(default_factory=OutputConfig, doc="the report's figures")
    reference: ReferenceConfig | None = declared(None, doc="the published numbers this experiment reproduces")
    execution: ExecutionConfig = declared(default_factory=ExecutionConfig, doc="where cells run")
    statistics: StatisticsConfig = declared(default_factory=StatisticsConfig, doc="statistics across datasets")
    protocol_options: dict = declared(default_factory=dict, key=False, doc="the protocol: mapping as written")
    options: Any = declared(None, key=False, doc="the protocol's typed options")
    profile: str = declared("full", key=False, doc="the profile applied")
    source: str = declared("", key=False, doc="the config file")

    @property
    def is_suite(self) -> bool:
        """Whether the config names several datasets (a ``datasets:`` list or a ``suite:``)."""
        return bool(self.datasets) or self.suite is not None

    def members(self) -> list[tuple[str, "Config"]]:
        """``(folder name, single-dataset config)`` per dataset of a suite, in config order.

        A member is the config with one dataset, so its cells, split seeds and config hash are
        those of the same experiment written for that dataset alone. Folder names are the dataset
        names (a user's file: its file name; an OpenML dataset: ``openml_<id>``), made unique.
        """
        if not self.is_suite:
            return [(self.name, self)]
        members, seen = [], {}
        for dataset in self.datasets:
            label = member_label(dataset)
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:
                label = f"{label}_{seen[label]}"
            members.append((label, replace(self, dataset=dataset, datasets=(), suite=None)))
        return members

    def with_overrides(self, *, trials: int | None = None, seed: int | None = None, scheduler: str | None = None,
                       max_memory_mb: float | None = None, spell: Callable[[str], str] = as_keyword) -> "Config":
        """A copy with overrides of the caller's (``kpca_bench.run``'s arguments, the command line's options)
        applied; :class:`ConfigError` names a bad one as the caller wrote it (``spell``: ``as_keyword`` or
        ``as_flag`` of :mod:`kpca_bench.validation`)."""
        check_run_arguments({"trials": trials, "seed": seed, "scheduler": scheduler, "max_memory": max_memory_mb},
                            spell)
        changes = {"execution": self.execution.with_overrides(scheduler=scheduler, max_memory_mb=max_memory_mb)}
        if trials is not None:
            if trials > 1 and any(d.draw == "file_order" for d in (self.dataset, *self.datasets) if d is not None):
                raise ConfigError(f"{spell('trials')} {trials}: dataset.draw: file_order takes the same rows in every "
                                  f"trial; leave {spell('trials')} out")
            changes["trials"] = trials
        if seed is not None:
            changes["seed"] = seed
        return replace(self, **changes)

    def fingerprint(self) -> dict:
        """What determines the numbers of a run (not its size, its figures or where it runs)."""
        data = asdict(self)
        for key in ("trials", "output", "source", "description", "reference", "profile", "execution", "options",
                    "datasets", "suite", "statistics"):
            data.pop(key)
        if self.is_suite:
            # Only a suite has these keys, so a single-dataset config's hash is what it always was.
            data["dataset"] = None
            data["datasets"] = [d.identity() for d in self.datasets]
            data["suite"] = asdict(self.suite) if self.suite else None
        else:
            data["dataset"] = self.dataset.identity()
        # Added later (issue 17): only when set, so that the hash of every existing config stays as it was.
        for method in data["methods"]:
            if method["higher_is"] is None:
                del method["higher_is"]
            # An estimator given as an object is named by its class's path already (kpca_bench.run); where a
            # class is looked for changes no number.
            del method["estimator_class"], method["import_folders"]
        return data

    @property
    def folder(self) -> Path | None:
        """The folder of the config file, which relative data paths are read from (None if not from a file)."""
        return Path(self.source).parent if self.source and not self.source.startswith("<") else None

    def config_hash(self) -> str:
        return stable_hash(self.fingerprint())


def stable_hash(obj) -> str:
    """A short content hash of JSON-able data, independent of key order."""
    text = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _labels(value, key: str, problems: Problems) -> tuple:
    if isinstance(value, (str, int)):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(v, (str, int)) for v in value):
        return tuple(value)
    problems.add(key, f"must be a class label or a non-empty list of labels, got {value!r}")
    return ()


DATASET_KEYS = accepted_keys(DatasetConfig)
SIZE_KEYS = tuple(key for key in DATASET_KEYS if declaration(DatasetConfig, key)["minimum"])
# The dataset keys that take one of a few words (scaling, scaling_rows, draw), with their defaults.
CHOICE_KEYS = {f.name: f.default for f in fields(DatasetConfig) if f.metadata["choices"]}
THRESHOLD_RULES = declaration(ThresholdConfig, "rule")["choices"]
FIGURES = declaration(OutputConfig, "figures")["choices"]
POSTHOCS = declaration(StatisticsConfig, "posthoc")["choices"]
BACKENDS = declaration(ExecutionConfig, "backend")["choices"]
CLASS_KEYS = ("inliers", "outliers")


def default_classes(raw: dict, required: tuple[str, ...]) -> bool:
    """Whether the 0 / 1 convention stands in for inliers and outliers: the protocol needs them, the
    config names neither, and the dataset declares that convention."""
    spec = DATASETS.get(raw.get("name"))
    return (spec is not None and spec.binary_labels and not any(key in raw for key in CLASS_KEYS)
            and all(key in required for key in CLASS_KEYS))


def _parse_dataset(raw, required: tuple[str, ...], problems: Problems, path: str = "dataset") -> DatasetConfig | None:
    raw = mapping(raw, path, problems)
    if raw is None:
        return None
    where = problems.under(path)
    name = raw.get("name")
    if name is not None and name not in DATASETS:
        # The cause first, and alone: which other keys are needed depends on the dataset.
        where.add("name", f"unknown dataset {name!r}{did_you_mean(name, DATASETS)}; "
                          "run 'kpca-bench datasets list' to see them")
        check_keys(raw, DATASET_KEYS, (), where)
        return None
    defaulted = default_classes(raw, required)
    if defaulted:
        required = tuple(key for key in required if key not in CLASS_KEYS)
    check_keys(raw, DATASET_KEYS, ("name", *required), where)
    options = mapping(raw.get("options"), "options", where) or {}
    inliers = _labels(raw.get("inliers"), "inliers", where) if "inliers" in raw else ()
    outliers = _labels(raw.get("outliers"), "outliers", where) if "outliers" in raw else ()
    if defaulted:
        inliers, outliers = (INLIER,), (OUTLIER,)
    if set(inliers) & set(outliers):
        where.add("outliers", f"classes {sorted(set(inliers) & set(outliers))} are also inliers; name each class "
                              "on one side only")
    sizes = {key: integer(raw[key], key, where, minimum=declaration(DatasetConfig, key)["minimum"])
             for key in SIZE_KEYS if key in raw}
    chosen = {key: raw.get(key, default) for key, default in CHOICE_KEYS.items()}
    for key, value in chosen.items():
        if value not in (accepted := declaration(DatasetConfig, key)["choices"]):
            where.add(key, f"unknown {key} {value!r}; accepted: {', '.join(accepted)}")
    if None in sizes.values() or any(key not in raw for key in required) or not isinstance(name, str):
        return None
    return DatasetConfig(name=name, inliers=inliers, outliers=outliers, options=options, default_classes=defaulted,
                         **chosen, **sizes)


def member_label(dataset: DatasetConfig) -> str:
    """The sub-folder of a suite's dataset: its name, a user file's stem, or ``openml_<id>``."""
    if dataset.name == "file" and "path" in dataset.options:
        return Path(str(dataset.options["path"])).stem.replace(" ", "_")
    if dataset.name == "openml":
        return f"openml_{dataset.options.get('data_id', dataset.options.get('name', ''))}"
    return dataset.name


SUITE_KEYS = accepted_keys(SuiteConfig)


def collection_members(collection: str) -> list[str]:
    """The dataset names of a collection, in registry order."""
    return [name for name, spec in DATASETS.items() if spec.collection == collection]


def _suite_names(raw: dict, where: Problems) -> tuple[SuiteConfig | None, list[str]]:
    """The ``suite:`` mapping's collection, include and exclude, and the dataset names it selects."""
    collection = raw.get("collection")
    collections = sorted({spec.collection for spec in DATASETS.values()} - {"user", "papers"})
    names = collection_members(collection) if isinstance(collection, str) else []
    if not names:
        where.add("collection", f"unknown collection {collection!r}; accepted: {', '.join(collections)}")
        return None, []
    short = {name.removeprefix(f"{collection}_"): name for name in names}
    lists, listed_well = {}, True
    for key in ("include", "exclude"):
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            where.add(key, f"must be a list of dataset names, got {value!r}")
            value = []
        for item in value:
            if item not in names and item not in short:
                listed_well = False
                where.add(key, f"{item!r} is not in collection {collection}{did_you_mean(item, names)}; "
                               f"'kpca-bench datasets list --collection {collection}' lists them")
        lists[key] = tuple(short.get(item, item) for item in value)
    if lists["include"] and lists["exclude"]:
        where.add("exclude", "give include or exclude, not both")
    chosen = [n for n in names if (not lists["include"] or n in lists["include"]) and n not in lists["exclude"]]
    if not chosen and listed_well:
        where.add("", "selects no dataset; include datasets of the collection, or exclude fewer")
    return SuiteConfig(collection=collection, **lists), chosen


def _parse_datasets(raw: dict, required: tuple[str, ...], problems: Problems
                    ) -> tuple[tuple[DatasetConfig, ...], SuiteConfig | None]:
    """A ``datasets:`` list (entries as ``dataset:``) and / or a ``suite:`` (its other keys apply to
    each of its datasets, e.g. ``scaling``, ``max_rows``, the novelty sizes)."""
    entries = []
    if "datasets" in raw:
        listed = raw["datasets"]
        if not isinstance(listed, list) or not listed:
            problems.add("datasets", "must be a non-empty list of dataset entries (each as dataset:)")
        else:
            for index, entry in enumerate(listed):
                if isinstance(entry, str):
                    entry = {"name": entry}
                entries.append(_parse_dataset(entry, required, problems, f"datasets[{index}]"))
    suite = None
    if "suite" in raw:
        suite_raw = mapping(raw["suite"], "suite", problems)
        if suite_raw is not None:
            where = problems.under("suite")
            shared = {k: v for k, v in suite_raw.items() if k not in SUITE_KEYS}
            check_keys(suite_raw, (*SUITE_KEYS, *(k for k in DATASET_KEYS if k != "name")), required_keys(SuiteConfig),
                       where)
            suite, names = _suite_names(suite_raw, where)
            named = {entry.name for entry in entries if entry is not None}
            entries += [_parse_dataset({"name": name, **shared}, required, problems, "suite")
                        for name in names if name not in named]
    return tuple(entries), suite


def _check_setting(spec, setting: dict, train_rows: int | None, where: Problems) -> None:
    """One parameter setting against the estimator's declared constraints and the training rows."""
    for key, message in spec.parameter_problems(setting):
        where.add(key, message)
    k = setting.get("n_components")
    if isinstance(k, Integral) and train_rows is not None and k > train_rows - 1:
        where.add("n_components", f"{k} components need more than the {train_rows} training samples; "
                                  f"use at most {train_rows - 1}")


def import_folders(source: str) -> tuple[str, ...]:
    """The folder of the config file ``source`` as an absolute path: a class it names by import path is looked for
    there before ``sys.path``; none for a config that is no file (``<dict>``)."""
    return () if not source or source.startswith("<") else (str(Path(source).parent.resolve()),)


def _parse_method(raw, index: int, train_rows: int | None, problems: Problems,
                  folders: tuple[str, ...] = ()) -> MethodConfig | None:
    path = f"methods[{index}]"
    raw = mapping(raw, path, problems)
    if raw is None:
        return None
    where = problems.under(path)
    if not check_keys(raw, accepted_keys(MethodConfig), required_keys(MethodConfig), where) and "name" not in raw:
        return None
    name = raw.get("name")
    higher_is = raw.get("higher_is")
    if is_import_path(name):
        try:
            spec = method_spec(name, higher_is, folders)
        except ConfigError as error:
            where.add("name", str(error))
            return None
    else:
        spec = METHODS.get(name)
        if spec is None:
            where.add("name", f"unknown method {name!r}{did_you_mean(name, METHODS)}; accepted: {', '.join(METHODS)}, "
                              "or a detector class as 'package.module:Class'")
            return None
        if higher_is is not None:
            where.add("higher_is", f"only for a class named by import path; {name} is registered with its sign")
    params = mapping(raw.get("params"), "params", where)
    grid = mapping(raw.get("grid"), "grid", where)
    if params is None or grid is None:
        return None
    accepted = [p for p in spec.param_names() if p not in RUNNER_PARAMS]
    for key in [*params, *grid]:
        if key not in accepted:
            where.add(f"params.{key}", f"{name} has no parameter {key!r}{did_you_mean(key, accepted)}; "
                                       f"accepted: {', '.join(accepted)}")
    grid = {key: expand_range(values, f"grid.{key}", where) for key, values in grid.items()}
    for key, values in grid.items():
        if isinstance(values, dict) and set(values) == set(RANGE_KEYS):  # a range expand_range refused, reported
            return None
        if not isinstance(values, list) or not values:
            where.add(f"grid.{key}", f"must be a non-empty list of values or a range {{start, stop, step}}, "
                                     f"got {values!r}")
            return None
    score = raw.get("score")
    if score is not None and (not spec.subspace or score not in OUTLIER_SCORES):
        accepted_scores = ", ".join(OUTLIER_SCORES) if spec.subspace else "none (it scores by itself)"
        where.add("score", f"unknown score {score!r} for {name}; accepted: {accepted_scores}")
    trials = integer(raw["trials"], "trials", where, 1) if "trials" in raw else None
    default_label = spec.estimator.__name__ if spec.class_path else name
    method = MethodConfig(name=name, label=str(raw.get("label", default_label)), params=params, grid=grid,
                          score=score if spec.subspace else None, trials=trials,
                          higher_is=higher_is if spec.class_path else None,
                          import_folders=folders if spec.class_path else ())
    if not any(key not in accepted for key in [*params, *grid]):
        for setting in method.settings():
            _check_setting(spec, setting, train_rows, where.under("params"))
    return method


def _parse_protocol(raw, problems: Problems) -> tuple[str, dict]:
    """``protocol: NAME`` or ``protocol: {name: NAME, <option>: value, ...}``; a value may be a range."""
    options = {}
    if isinstance(raw, dict):
        options = {k: expand_range(v, f"protocol.{k}", problems) for k, v in raw.items() if k != "name"}
        raw = raw.get("name")
    if not isinstance(raw, str) or raw not in PROTOCOLS:
        problems.add("protocol", f"unknown protocol {raw!r}{did_you_mean(raw, PROTOCOLS)}; "
                                 f"accepted: {', '.join(PROTOCOLS)}")
        return "novelty", {}
    accepted = PROTOCOLS[raw].option_names()
    for key in options:
        if key not in accepted:
            problems.add(f"protocol.{key}", f"protocol {raw} has no option {key!r}{did_you_mean(key, accepted)}; "
                                            f"accepted: {', '.join(accepted) or 'none'}")
    return raw, options


def _parse_threshold(raw, problems: Problems) -> ThresholdConfig:
    raw = mapping(raw, "threshold", problems)
    if not raw:
        return ThresholdConfig()
    where = problems.under("threshold")
    check_keys(raw, accepted_keys(ThresholdConfig), (), where)
    rule = raw.get("rule", "train_quantile")
    value = raw.get("value")
    if (rule == "fixed") != (value is not None):
        where.add("value", "give a value exactly when the rule is fixed (the outlier-score cut)")
    elif value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
        where.add("value", f"must be a number, got {value!r}")
    if rule not in THRESHOLD_RULES:
        where.add("rule", f"unknown rule {rule!r}{did_you_mean(rule, THRESHOLD_RULES)}; "
                          f"accepted: {', '.join(THRESHOLD_RULES)}")
    quantile = raw.get("quantile", 0.95)
    if isinstance(quantile, bool) or not isinstance(quantile, Real) or not 0 < quantile < 1:
        where.add("quantile", f"must be a number strictly between 0 and 1, got {quantile!r}")
    return ThresholdConfig(rule=rule, quantile=float(quantile) if isinstance(quantile, Real) else 0.95,
                           value=float(value) if isinstance(value, Real) and not isinstance(value, bool) else None)


def _parse_output(raw, problems: Problems) -> OutputConfig:
    raw = mapping(raw, "output", problems)
    if not raw:
        return OutputConfig()
    check_keys(raw, accepted_keys(OutputConfig), (), problems.under("output"))
    figures = raw.get("figures", list(FIGURES))
    if not isinstance(figures, list) or any(f not in FIGURES for f in figures):
        problems.add("output.figures", f"must be a list drawn from {', '.join(FIGURES)}, got {figures!r}")
        return OutputConfig()
    return OutputConfig(figures=tuple(figures))


def _parse_statistics(raw, several: bool, problems: Problems) -> StatisticsConfig:
    raw = mapping(raw, "statistics", problems)
    if not raw:
        return StatisticsConfig()
    if not several:
        problems.add("statistics", "statistics across datasets need several datasets (datasets: or suite:); remove it")
    check_keys(raw, accepted_keys(StatisticsConfig), (), problems.under("statistics"))
    posthoc = raw.get("posthoc", "nemenyi")
    if posthoc not in POSTHOCS:
        problems.add("statistics.posthoc", f"unknown post-hoc test {posthoc!r}{did_you_mean(posthoc, POSTHOCS)}; "
                                           f"accepted: {', '.join(POSTHOCS)}")
        return StatisticsConfig()
    return StatisticsConfig(posthoc=posthoc)


def _parse_execution(raw, problems: Problems) -> ExecutionConfig:
    raw = mapping(raw, "execution", problems)
    if not raw:
        return ExecutionConfig()
    check_keys(raw, accepted_keys(ExecutionConfig), (), problems.under("execution"))
    backend = raw.get("backend", "local")
    if backend not in BACKENDS:
        problems.add("execution.backend", f"unknown backend {backend!r}{did_you_mean(backend, BACKENDS)}; "
                                        f"accepted: {', '.join(BACKENDS)}")
    address = raw.get("address")
    if address is not None and backend != "dask":
        problems.add("execution.address", "a scheduler address needs backend: dask")
    elif address is not None and (problem := address_problem(address)):
        problems.add("execution.address", problem)
    max_memory_mb = raw.get("max_memory_mb")
    if max_memory_mb is not None and (problem := max_memory_problem(max_memory_mb)):
        problems.add("execution.max_memory_mb", problem)
        max_memory_mb = None
    if backend == "dask" and address is None:
        address = "local"
    device = raw.get("device")
    if device is not None and not _is_device(device):
        problems.add("execution.device", f"unknown device {device!r}{did_you_mean(str(device), DEVICES)}; "
                                         f"accepted: {DEVICE_STRINGS}")
        device = None
    return ExecutionConfig(backend=backend, address=address,
                           max_memory_mb=float(max_memory_mb) if max_memory_mb is not None else None, device=device)


def _is_device(device) -> bool:
    """Whether a config's ``device`` is a string naming a device (:func:`kpca_bench.devices.device_name`)."""
    try:
        return isinstance(device, str) and device_name(device) is not None
    except DeviceError:
        return False


TOP_LEVEL = (*accepted_keys(Config), "profiles")


def _merge(base: dict, overrides: dict, path: str, problems: Problems) -> dict:
    """``base`` with ``overrides`` applied; ``methods`` overrides are keyed by method label."""
    merged = dict(base)
    for key, value in overrides.items():
        if key == "methods" and path == "" and isinstance(value, dict):
            merged["methods"] = _merge_methods(base.get("methods") or [], value, problems)
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            merged[key] = _merge(base[key], value, f"{path}.{key}", problems)
        else:
            merged[key] = value
    return merged


def _merge_methods(methods: list, overrides: dict, problems: Problems) -> list:
    labels = _method_labels(methods)
    for label in overrides:
        if label not in labels:
            problems.add(f"methods.{label}", f"no method has this label{did_you_mean(label, labels)}; "
                                             f"labels: {', '.join(map(str, labels))}")
    return [_merge(m, overrides[label], "", problems) if label in overrides else m
            for m, label in zip(methods, labels)]


def _method_labels(methods) -> list:
    """Each method entry's label (its name if it has none), as profiles key their method overrides."""
    if not isinstance(methods, list):
        return []
    return [m.get("label", m.get("name")) if isinstance(m, dict) else None for m in methods]


def _declared_profiles(raw: dict, problems: Problems) -> dict:
    """The ``profiles:`` mapping, its unknown profile names reported."""
    profiles = mapping(raw.get("profiles"), "profiles", problems) or {}
    for name in profiles:
        if name not in PROFILES or name == "full":
            problems.add(f"profiles.{name}", f"unknown profile; accepted: {', '.join(p for p in PROFILES if p != 'full')}")
    return profiles


def _apply_profile(raw: dict, profile: str, profiles: dict, problems: Problems) -> dict:
    """The raw config as the profile sees it. ``full`` is the file as written; another (declared)
    profile applies the overrides under ``profiles.<name>`` (smaller sizes, fewer trials)."""
    raw = {k: v for k, v in raw.items() if k != "profiles"}
    if profile == "full":
        return raw
    overrides = mapping(profiles[profile], f"profiles.{profile}", problems) or {}
    return _merge(raw, overrides, "", problems.under(f"profiles.{profile}"))


_KEY_PARTS = re.compile(r"\.|(?=\[)")


def _profile_key(key: str, overrides: dict, methods) -> str | None:
    """The path under a profile's overrides that set the merged config's ``key`` (``trials``,
    ``methods[1].params.nu`` as ``methods.<label>.params.nu``), or None if the profile did not set it."""
    node, path = overrides, []
    parts = [part for part in _KEY_PARTS.split(key) if part]
    for position, part in enumerate(parts):
        if not isinstance(node, dict):  # the profile replaced this value whole
            return ".".join(path) + "".join(p if p.startswith("[") else f".{p}" for p in parts[position:])
        if part.startswith("[") and path == ["methods"]:
            labels = _method_labels(methods)
            index = int(part[1:-1])
            part = labels[index] if index < len(labels) else part
        if part not in node:
            return None
        node = node[part]
        path.append(str(part))
    return ".".join(path)


def _check_profile(raw: dict, name: str, profiles: dict, problems: Problems, source: str) -> Config:
    """Profile ``name``'s config; the problems it brings beyond those of the file as written are added to
    ``problems``, each named by its path under ``profiles.<name>``."""
    found = Problems()
    config = _parse_fields(_apply_profile(raw, name, profiles, found), name, source, found)
    overrides = profiles[name] if isinstance(profiles[name], dict) else {}
    for key, message in found.items:
        if key.startswith("profiles"):
            problems.add(key, message)
        elif (key, message) not in problems.items:
            under = _profile_key(key, overrides, raw.get("methods"))
            if under is None:
                problems.add(f"profiles.{name}", f"{key}: {message}")
            else:
                problems.add(f"profiles.{name}.{under}", message)
    return config


def _parse_reference(raw, problems: Problems) -> ReferenceConfig | None:
    raw = mapping(raw, "reference", problems)
    if not raw:
        return None
    if not check_keys(raw, accepted_keys(ReferenceConfig), required_keys(ReferenceConfig), problems.under("reference")):
        return None
    return ReferenceConfig(paper=str(raw["paper"]), dataset=str(raw["dataset"]), stand_in=str(raw.get("stand_in", "")),
                           variant_of=str(raw.get("variant_of", "")), variant=str(raw.get("variant", "")))


def _raise_if_any(problems: Problems, source: str) -> None:
    if problems.items:
        raise ConfigError("\n".join(f"{source}: {key}: {message}" if key else f"{source}: {message}"
                                     for key, message in problems.items))


def parse_config(raw, source: str = "<config>", profile: str = "full") -> Config:
    """Validate a config already read from YAML, the methods' and protocol's parameters included.

    Every profile is validated, whichever is asked for; a problem a profile brings is named by its
    path under ``profiles.<name>``. Raises :class:`ConfigError` listing every problem, one line each.
    A detector class named by import path is looked for in the folder of the config file ``source`` first
    (as pytest imports from its rootdir), here and wherever its cells run (:func:`import_folders`).
    """
    problems = Problems()
    if not isinstance(raw, dict):
        problems.add("", f"must be a YAML mapping with keys {', '.join(TOP_LEVEL)}")
        _raise_if_any(problems, source)
    if problem := profile_problem(profile):
        raise ConfigError(problem)
    profiles = _declared_profiles(raw, problems)
    configs = {"full": _parse_fields(_apply_profile(raw, "full", profiles, problems), "full", source, problems)}
    for name in profiles:
        if name in PROFILES and name != "full":
            configs[name] = _check_profile(raw, name, profiles, problems, source)
    if profile not in configs:
        problems.add("profiles", f"no {profile!r} profile; add profiles: {{{profile}: {{trials: 2, ...}}}} "
                                 "with the overrides that make it small")
    _raise_if_any(problems, source)
    return configs[profile]


def _parse_fields(raw: dict, profile: str, source: str, problems: Problems) -> Config:
    """The config of ``raw`` (a profile already applied); its problems go to ``problems``."""
    several = "datasets" in raw or "suite" in raw
    check_keys(raw, TOP_LEVEL, tuple(key for key in required_keys(Config) if not (several and key == "dataset")),
               problems)
    if several and "dataset" in raw:
        problems.add("dataset", "give dataset (one) or datasets / suite (several), not both")
    name = raw.get("name")
    if name is not None and (not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum()):
        quote = "; YAML reads it as a number, so quote it" if isinstance(name, (int, float)) else ""
        problems.add("name", f"must be a word of letters, digits, '-' and '_' (it names the results folder), "
                             f"got {name!r}{quote}")
    protocol_name, protocol_options = _parse_protocol(raw.get("protocol", "novelty"), problems)
    protocol = PROTOCOLS[protocol_name]
    threshold = _parse_threshold(raw.get("threshold"), problems)
    options = protocol.parse_options(protocol_options, threshold, problems.under("protocol"))
    dataset = _parse_dataset(raw.get("dataset"), protocol.dataset_keys, problems) if "dataset" in raw else None
    datasets, suite = _parse_datasets(raw, protocol.dataset_keys, problems) if several else ((), None)
    methods_raw = raw.get("methods")
    methods = []
    if "methods" in raw and (not isinstance(methods_raw, list) or not methods_raw):
        problems.add("methods", "must be a non-empty list of methods (each with at least a name)")
    elif methods_raw:
        known = [protocol.train_rows(d, options) for d in ((dataset,) if dataset else datasets) if d is not None]
        train_rows = min((rows for rows in known if rows is not None), default=None)
        folders = import_folders(source)
        methods = [_parse_method(m, i, train_rows, problems, folders) for i, m in enumerate(methods_raw)]
    labels = [m.label for m in methods if m is not None]
    for label in {label for label in labels if labels.count(label) > 1}:
        problems.add("methods", f"label {label!r} is used twice; give each entry its own label")
    if methods and None not in methods:
        protocol.check_methods(options, tuple(methods), problems)
    trials = _declared_integer(raw, "trials", problems)
    _check_draw([d for d in (dataset, *datasets) if d is not None], protocol, trials, problems)
    seed = _declared_integer(raw, "seed", problems)
    output = _parse_output(raw.get("output"), problems)
    description = raw.get("description", "")
    reference = _parse_reference(raw.get("reference"), problems)
    execution = _parse_execution(raw.get("execution"), problems)
    statistics = _parse_statistics(raw.get("statistics"), several, problems)
    return Config(name=name, description=str(description), dataset=dataset, protocol=protocol_name,
                  protocol_options=protocol_options, options=options, methods=tuple(methods), threshold=threshold,
                  trials=trials, seed=seed, output=output, reference=reference, execution=execution,
                  profile=profile, source=source, datasets=tuple(datasets), suite=suite, statistics=statistics)


def _declared_integer(raw: dict, key: str, problems: Problems) -> int | None:
    """The top-level integer ``key`` (its declared default if absent), at least its declared minimum."""
    declared = Config.__dataclass_fields__[key]
    return integer(raw.get(key, declared.default), key, problems, declared.metadata["minimum"])


def _check_draw(datasets: list[DatasetConfig], protocol, trials, problems: Problems) -> None:
    """``dataset.draw`` other than random only where the novelty split reads it; ``file_order`` with one trial
    (every trial's rows would be the same)."""
    draws = {d.draw for d in datasets} - {"random"}
    if not draws:
        return
    if not protocol.reads_draw:
        for draw in sorted(draws):
            problems.add("dataset.draw", f"{draw} is read by the novelty protocols only, not {protocol.name}; remove it")
    elif "file_order" in draws and isinstance(trials, int) and trials > 1:
        problems.add("trials", "dataset.draw: file_order takes the same rows in every trial; set trials: 1")


def load_config(path, profile: str = "full") -> Config:
    """Read and validate a YAML config file (UTF-8, no key given twice), with a profile's overrides applied;
    a path that is no file may name a packaged config (``quickstart``, :func:`~.packaged.find_config`)."""
    path, raw = read_config(path)
    return parse_config(raw, source=str(path), profile=profile)
