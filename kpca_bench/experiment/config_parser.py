"""Experiment configs read: YAML in, the validated dataclasses of :mod:`kpca_bench.experiment.config` out.

The YAML is strict: an unknown key is an error, and every problem in a file is
reported at once, one line each, naming the file, the key and what is accepted.
See ``configs/quickstart.yaml`` for an annotated example.
"""

from __future__ import annotations

import re
from dataclasses import fields
from numbers import Integral, Real
from pathlib import Path
from typing import Any

from kpca_bench.datasets import DATASETS
from kpca_bench.datasets.labels import INLIER, OUTLIER
from kpca_bench.devices import DEVICE_STRINGS, DEVICES, DeviceError, device_name
from kpca_bench.errors import ConfigError
from kpca_bench.experiment.config_file import read_config
from kpca_bench.methods.registry import METHODS, MethodSpec, is_import_path, method_spec
from kpca_bench.methods.scores import OUTLIER_SCORES
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.protocols.base import DatasetConfig, MethodConfig, ThresholdConfig
from kpca_bench.validation import (
    PROFILES,
    RANGE_KEYS,
    Problems,
    accepted_keys,
    address_problem,
    check_keys,
    declaration,
    did_you_mean,
    expand_range,
    integer,
    mapping,
    max_memory_problem,
    profile_problem,
    required_keys,
)
from kpca_bench.experiment.config import (
    RUNNER_PARAMS,
    Config,
    ExecutionConfig,
    OutputConfig,
    ReferenceConfig,
    StatisticsConfig,
    SuiteConfig,
)


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
    spec = DATASETS.get(raw["name"]) if "name" in raw else None
    return (
        spec is not None
        and spec.binary_labels
        and not any(key in raw for key in CLASS_KEYS)
        and all(key in required for key in CLASS_KEYS)
    )


def _parse_dataset(raw, required: tuple[str, ...], problems: Problems, path: str = "dataset") -> DatasetConfig | None:
    raw = mapping(raw, path, problems)
    if raw is None:
        return None
    where = problems.under(path)
    name = raw.get("name")
    if name is not None and name not in DATASETS:
        # The cause first, and alone: which other keys are needed depends on the dataset.
        where.add(
            "name",
            f"unknown dataset {name!r}{did_you_mean(name, DATASETS)}; run 'kpca-bench datasets list' to see them",
        )
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
        where.add(
            "outliers",
            f"classes {sorted(set(inliers) & set(outliers))} are also inliers; name each class on one side only",
        )
    # The size keys given, by name (DatasetConfig's int | None fields), passed on as keyword arguments.
    sizes: dict[str, Any] = {
        key: integer(raw[key], key, where, minimum=declaration(DatasetConfig, key)["minimum"])
        for key in SIZE_KEYS
        if key in raw
    }
    chosen = {key: raw.get(key, default) for key, default in CHOICE_KEYS.items()}
    for key, value in chosen.items():
        if value not in (accepted := declaration(DatasetConfig, key)["choices"]):
            where.add(key, f"unknown {key} {value!r}; accepted: {', '.join(accepted)}")
    if None in sizes.values() or any(key not in raw for key in required) or not isinstance(name, str):
        return None
    return DatasetConfig(
        name=name, inliers=inliers, outliers=outliers, options=options, default_classes=defaulted, **chosen, **sizes
    )


SUITE_KEYS = accepted_keys(SuiteConfig)


def collection_members(collection: str) -> list[str]:
    """The dataset names of a collection, in registry order."""
    return [name for name, spec in DATASETS.items() if spec.collection == collection]


def _suite_names(raw: dict, where: Problems) -> tuple[SuiteConfig | None, list[str]]:
    """The ``suite:`` mapping's collection, include and exclude, and the dataset names it selects."""
    collection = raw.get("collection")
    collections = sorted({spec.collection for spec in DATASETS.values()} - {"user", "papers"})
    names = collection_members(collection) if isinstance(collection, str) else []
    if not isinstance(collection, str) or not names:
        where.add("collection", f"unknown collection {collection!r}; accepted: {', '.join(collections)}")
        return None, []
    short = {name.removeprefix(f"{collection}_"): name for name in names}
    lists: dict[str, tuple[str, ...]] = {}
    listed_well = True
    for key in ("include", "exclude"):
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            where.add(key, f"must be a list of dataset names, got {value!r}")
            value = []
        for item in value:
            if item not in names and item not in short:
                listed_well = False
                where.add(
                    key,
                    f"{item!r} is not in collection {collection}{did_you_mean(item, names)}; "
                    f"'kpca-bench datasets list --collection {collection}' lists them",
                )
        lists[key] = tuple(short.get(item, item) for item in value)
    if lists["include"] and lists["exclude"]:
        where.add("exclude", "give include or exclude, not both")
    chosen = [n for n in names if (not lists["include"] or n in lists["include"]) and n not in lists["exclude"]]
    if not chosen and listed_well:
        where.add("", "selects no dataset; include datasets of the collection, or exclude fewer")
    return SuiteConfig(collection=collection, **lists), chosen


def _parse_datasets(
    raw: dict, required: tuple[str, ...], problems: Problems
) -> tuple[tuple[DatasetConfig | None, ...], SuiteConfig | None]:
    """A ``datasets:`` list (entries as ``dataset:``) and / or a ``suite:`` (its other keys apply to
    each of its datasets, e.g. ``scaling``, ``max_rows``, the novelty sizes); None for an entry with a problem."""
    entries: list[DatasetConfig | None] = []
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
            check_keys(
                suite_raw, (*SUITE_KEYS, *(k for k in DATASET_KEYS if k != "name")), required_keys(SuiteConfig), where
            )
            suite, names = _suite_names(suite_raw, where)
            named = {entry.name for entry in entries if entry is not None}
            entries += [
                _parse_dataset({"name": name, **shared}, required, problems, "suite")
                for name in names
                if name not in named
            ]
    return tuple(entries), suite


def _check_setting(spec, setting: dict, train_rows: int | None, where: Problems) -> None:
    """One parameter setting against the estimator's declared constraints and the training rows."""
    for key, message in spec.parameter_problems(setting):
        where.add(key, message)
    k = setting.get("n_components")
    if isinstance(k, Integral) and train_rows is not None and int(k) > train_rows - 1:
        where.add(
            "n_components",
            f"{k} components need more than the {train_rows} training samples; use at most {train_rows - 1}",
        )


def import_folders(source: str) -> tuple[str, ...]:
    """The folder of the config file ``source`` as an absolute path: a class it names by import path is looked for
    there before ``sys.path``; none for a config that is no file (``<dict>``)."""
    return () if not source or source.startswith("<") else (str(Path(source).parent.resolve()),)


def _parse_method(
    raw, index: int, train_rows: int | None, problems: Problems, folders: tuple[str, ...] = ()
) -> MethodConfig | None:
    path = f"methods[{index}]"
    raw = mapping(raw, path, problems)
    if raw is None:
        return None
    where = problems.under(path)
    if not check_keys(raw, accepted_keys(MethodConfig), required_keys(MethodConfig), where) and "name" not in raw:
        return None
    name = raw.get("name")
    higher_is = raw.get("higher_is")
    spec: MethodSpec | None
    if is_import_path(name):
        try:
            spec = method_spec(name, higher_is, folders)
        except ConfigError as error:
            where.add("name", str(error))
            return None
    else:
        spec = METHODS.get(name)
        if spec is None:
            where.add(
                "name",
                f"unknown method {name!r}{did_you_mean(name, METHODS)}; accepted: {', '.join(METHODS)}, "
                "or a detector class as 'package.module:Class'",
            )
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
            where.add(
                f"params.{key}",
                f"{name} has no parameter {key!r}{did_you_mean(key, accepted)}; accepted: {', '.join(accepted)}",
            )
    grid = {key: expand_range(values, f"grid.{key}", where) for key, values in grid.items()}
    for key, values in grid.items():
        if isinstance(values, dict) and set(values) == set(RANGE_KEYS):  # a range expand_range refused, reported
            return None
        if not isinstance(values, list) or not values:
            where.add(
                f"grid.{key}", f"must be a non-empty list of values or a range {{start, stop, step}}, got {values!r}"
            )
            return None
    score = raw.get("score")
    if score is not None and (not spec.subspace or score not in OUTLIER_SCORES):
        accepted_scores = ", ".join(OUTLIER_SCORES) if spec.subspace else "none (it scores by itself)"
        where.add("score", f"unknown score {score!r} for {name}; accepted: {accepted_scores}")
    trials = integer(raw["trials"], "trials", where, 1) if "trials" in raw else None
    default_label = spec.estimator.__name__ if spec.class_path else name
    method = MethodConfig(
        name=name,
        label=str(raw.get("label", default_label)),
        params=params,
        grid=grid,
        score=score if spec.subspace else None,
        trials=trials,
        higher_is=higher_is if spec.class_path else None,
        import_folders=folders if spec.class_path else (),
    )
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
        problems.add(
            "protocol", f"unknown protocol {raw!r}{did_you_mean(raw, PROTOCOLS)}; accepted: {', '.join(PROTOCOLS)}"
        )
        return "novelty", {}
    accepted = PROTOCOLS[raw].option_names()
    for key in options:
        if key not in accepted:
            problems.add(
                f"protocol.{key}",
                f"protocol {raw} has no option {key!r}{did_you_mean(key, accepted)}; "
                f"accepted: {', '.join(accepted) or 'none'}",
            )
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
        where.add(
            "rule",
            f"unknown rule {rule!r}{did_you_mean(rule, THRESHOLD_RULES)}; accepted: {', '.join(THRESHOLD_RULES)}",
        )
    quantile = raw.get("quantile", 0.95)
    # 0 < quantile < 1, written with the comparisons numbers.Real declares (<, <=)
    if isinstance(quantile, bool) or not isinstance(quantile, Real) or quantile <= 0 or not quantile < 1:
        where.add("quantile", f"must be a number strictly between 0 and 1, got {quantile!r}")
    return ThresholdConfig(
        rule=rule,
        quantile=float(quantile) if isinstance(quantile, Real) else 0.95,
        value=float(value) if isinstance(value, Real) and not isinstance(value, bool) else None,
    )


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
        problems.add(
            "statistics.posthoc",
            f"unknown post-hoc test {posthoc!r}{did_you_mean(posthoc, POSTHOCS)}; accepted: {', '.join(POSTHOCS)}",
        )
        return StatisticsConfig()
    return StatisticsConfig(posthoc=posthoc)


def _parse_execution(raw, problems: Problems) -> ExecutionConfig:
    raw = mapping(raw, "execution", problems)
    if not raw:
        return ExecutionConfig()
    check_keys(raw, accepted_keys(ExecutionConfig), (), problems.under("execution"))
    backend = raw.get("backend", "local")
    if backend not in BACKENDS:
        problems.add(
            "execution.backend",
            f"unknown backend {backend!r}{did_you_mean(backend, BACKENDS)}; accepted: {', '.join(BACKENDS)}",
        )
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
        problems.add(
            "execution.device",
            f"unknown device {device!r}{did_you_mean(str(device), DEVICES)}; accepted: {DEVICE_STRINGS}",
        )
        device = None
    return ExecutionConfig(
        backend=backend,
        address=address,
        max_memory_mb=float(max_memory_mb) if max_memory_mb is not None else None,
        device=device,
    )


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
            problems.add(
                f"methods.{label}",
                f"no method has this label{did_you_mean(label, labels)}; labels: {', '.join(map(str, labels))}",
            )
    return [_merge(m, overrides[label], "", problems) if label in overrides else m for m, label in zip(methods, labels)]


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
            problems.add(
                f"profiles.{name}", f"unknown profile; accepted: {', '.join(p for p in PROFILES if p != 'full')}"
            )
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
    node = overrides
    path: list[str] = []
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


def _check_profile(raw: dict, name: str, profiles: dict, problems: Problems, source: str) -> Config | None:
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
    return ReferenceConfig(
        paper=str(raw["paper"]),
        dataset=str(raw["dataset"]),
        stand_in=str(raw.get("stand_in", "")),
        variant_of=str(raw.get("variant_of", "")),
        variant=str(raw.get("variant", "")),
    )


def _raise_if_any(problems: Problems, source: str) -> None:
    if problems.items:
        raise ConfigError(
            "\n".join(
                f"{source}: {key}: {message}" if key else f"{source}: {message}" for key, message in problems.items
            )
        )


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
        problems.add(
            "profiles",
            f"no {profile!r} profile; add profiles: {{{profile}: {{trials: 2, ...}}}} "
            "with the overrides that make it small",
        )
    _raise_if_any(problems, source)
    config = configs[profile]
    assert config is not None, "a field without a problem was left unparsed"
    return config


def _parse_fields(raw: dict, profile: str, source: str, problems: Problems) -> Config | None:
    """The config of ``raw`` (a profile already applied); its problems go to ``problems`` (None where a field has
    one)."""
    several = "datasets" in raw or "suite" in raw
    check_keys(
        raw, TOP_LEVEL, tuple(key for key in required_keys(Config) if not (several and key == "dataset")), problems
    )
    if several and "dataset" in raw:
        problems.add("dataset", "give dataset (one) or datasets / suite (several), not both")
    name = raw.get("name")
    if name is not None and (not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum()):
        quote = "; YAML reads it as a number, so quote it" if isinstance(name, (int, float)) else ""
        problems.add(
            "name", f"must be a word of letters, digits, '-' and '_' (it names the results folder), got {name!r}{quote}"
        )
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
    parsed = tuple(m for m in methods if m is not None)
    labels = [m.label for m in parsed]
    for label in {label for label in labels if labels.count(label) > 1}:
        problems.add("methods", f"label {label!r} is used twice; give each entry its own label")
    if methods and len(parsed) == len(methods):
        protocol.check_methods(options, parsed, problems)
    trials = _declared_integer(raw, "trials", problems)
    _check_draw([d for d in (dataset, *datasets) if d is not None], protocol, trials, problems)
    seed = _declared_integer(raw, "seed", problems)
    output = _parse_output(raw.get("output"), problems)
    description = raw.get("description", "")
    reference = _parse_reference(raw.get("reference"), problems)
    execution = _parse_execution(raw.get("execution"), problems)
    statistics = _parse_statistics(raw.get("statistics"), several, problems)
    entries = tuple(d for d in datasets if d is not None)
    if (
        not isinstance(name, str)
        or trials is None
        or seed is None
        or len(parsed) < len(methods)
        or len(entries) < len(datasets)
    ):
        return None  # each was reported as a problem, so parse_config raises
    return Config(
        name=name,
        description=str(description),
        dataset=dataset,
        protocol=protocol_name,
        protocol_options=protocol_options,
        options=options,
        methods=parsed,
        threshold=threshold,
        trials=trials,
        seed=seed,
        output=output,
        reference=reference,
        execution=execution,
        profile=profile,
        source=source,
        datasets=entries,
        suite=suite,
        statistics=statistics,
    )


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
            problems.add(
                "dataset.draw", f"{draw} is read by the novelty protocols only, not {protocol.name}; remove it"
            )
    elif "file_order" in draws and isinstance(trials, int) and trials > 1:
        problems.add("trials", "dataset.draw: file_order takes the same rows in every trial; set trials: 1")


def load_config(path, profile: str = "full") -> Config:
    """Read and validate a YAML config file (UTF-8, no key given twice), with a profile's overrides applied;
    a path that is no file may name a packaged config (``quickstart``, :func:`~.packaged.find_config`)."""
    path, raw = read_config(path)
    return parse_config(raw, source=str(path), profile=profile)
