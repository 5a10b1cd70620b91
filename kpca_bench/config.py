"""Experiment configs: YAML in, validated typed dataclasses out.

The YAML is strict: an unknown key is an error, and every problem in a file is
reported at once, one line each, naming the file, the key and what is accepted.
See ``configs/quickstart.yaml`` for an annotated example.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
from dataclasses import asdict, dataclass, field, replace
from numbers import Integral, Real
from pathlib import Path

import yaml

from kpca_bench.datasets import DATASETS
from kpca_bench.errors import ConfigError
from kpca_bench.methods.registry import METHODS
from kpca_bench.methods.scores import OUTLIER_SCORES
from kpca_bench.protocols import PROTOCOLS

THRESHOLD_RULES = ("train_quantile", "fixed", "test_prior", "test_oracle")
FIGURES = ("box", "roc", "sparsity")
SCALINGS = ("none", "standard", "minmax")
BACKENDS = ("local", "dask")
# Parameters the runner sets itself, so a config may not.
RUNNER_PARAMS = ("random_state",)


@dataclass(frozen=True)
class DatasetConfig:
    """Which data, which classes are inliers / outliers, and how many of each per trial.

    Which of the class and size keys a config must give depends on its protocol
    (``Protocol.dataset_keys``); the novelty protocol needs all five.
    """

    name: str
    options: dict = field(default_factory=dict)
    scaling: str = "none"
    inliers: tuple = ()
    outliers: tuple = ()
    train_inliers: int | None = None
    test_inliers: int | None = None
    test_outliers: int | None = None


@dataclass(frozen=True)
class MethodConfig:
    """One entry of ``methods``: a registered method, a label and its parameter grid.

    ``params`` holds fixed values and ``grid`` lists values to sweep; every
    combination of the grid is one *setting*, run on every trial.
    """

    name: str
    label: str
    params: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    score: str | None = None
    trials: int | None = None

    def settings(self) -> list[dict]:
        """Every parameter setting of this entry: ``params`` updated by one grid point."""
        keys = list(self.grid)
        return [{**self.params, **dict(zip(keys, values))}
                for values in itertools.product(*(self.grid[k] for k in keys))]

    def setting_label(self, setting: dict) -> str:
        """The label plus the swept values, e.g. ``SKPCA (l1_ratio=0.7)``."""
        swept = [k for k, values in self.grid.items() if len(values) > 1]
        if not swept:
            return self.label
        return f"{self.label} (" + ", ".join(f"{k}={setting[k]}" for k in swept) + ")"


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

    rule: str = "train_quantile"
    quantile: float = 0.95
    value: float | None = None

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
class OutputConfig:
    figures: tuple[str, ...] = FIGURES


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
    """

    backend: str = "local"
    address: str | None = None
    max_memory_mb: float | None = None

    def with_overrides(self, *, scheduler: str | None = None, max_memory_mb: float | None = None) -> "ExecutionConfig":
        """A copy with the command line's ``--scheduler`` / ``--max-memory`` applied (checked here)."""
        problems = []
        if scheduler is not None and (problem := address_problem(scheduler)):
            problems.append(f"--scheduler: {problem}")
        if max_memory_mb is not None and (problem := max_memory_problem(max_memory_mb)):
            problems.append(f"--max-memory: {problem}")
        if problems:
            raise ConfigError("\n".join(problems))
        changes = {"max_memory_mb": float(max_memory_mb)} if max_memory_mb is not None else {}
        if scheduler is not None:
            changes.update(backend="dask", address=scheduler)
        return replace(self, **changes)


def address_problem(address) -> str | None:
    """What is wrong with a Dask scheduler address, or None if it is usable."""
    if address == "local" or (isinstance(address, str) and "://" in address and not address.endswith("://")):
        return None
    return f"must be 'local' (start a LocalCluster) or a scheduler address such as tcp://HOST:8786, got {address!r}"


def max_memory_problem(value) -> str | None:
    """What is wrong with a memory budget in MiB, or None if it is usable."""
    if isinstance(value, Real) and not isinstance(value, bool) and value > 0 and math.isfinite(value):
        return None
    return f"must be a positive number of MiB (e.g. 512), got {value!r}"


@dataclass(frozen=True)
class ReferenceConfig:
    """Which published numbers this experiment reproduces (entries of ``results/reference/papers.yaml``)."""

    paper: str
    dataset: str


@dataclass(frozen=True)
class Config:
    """A validated experiment config, with one profile's overrides applied."""

    name: str
    dataset: DatasetConfig
    methods: tuple[MethodConfig, ...]
    description: str = ""
    protocol: str = "novelty"
    protocol_options: dict = field(default_factory=dict)
    threshold: ThresholdConfig = field(default_factory=ThresholdConfig)
    trials: int = 10
    seed: int = 0
    output: OutputConfig = field(default_factory=OutputConfig)
    reference: ReferenceConfig | None = None
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    profile: str = "full"
    source: str = ""

    def with_overrides(self, *, trials: int | None = None, seed: int | None = None, scheduler: str | None = None,
                       max_memory_mb: float | None = None) -> "Config":
        """A copy with command-line overrides applied."""
        changes = {"execution": self.execution.with_overrides(scheduler=scheduler, max_memory_mb=max_memory_mb)}
        if trials is not None:
            changes["trials"] = trials
        if seed is not None:
            changes["seed"] = seed
        return Config(**{**self.__dict__, **changes})

    def fingerprint(self) -> dict:
        """What determines the numbers of a run (not its size, its figures or where it runs)."""
        data = asdict(self)
        for key in ("trials", "output", "source", "description", "reference", "profile", "execution"):
            data.pop(key)
        return data

    def config_hash(self) -> str:
        return stable_hash(self.fingerprint())


def stable_hash(obj) -> str:
    """A short content hash of JSON-able data, independent of key order."""
    text = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class _Errors:
    """Collects every problem in one file, each as one line ``file: key: message``."""

    def __init__(self, source: str):
        self.source = source
        self.lines: list[str] = []

    def add(self, key: str, message: str) -> None:
        self.lines.append(f"{self.source}: {key}: {message}" if key else f"{self.source}: {message}")

    def raise_if_any(self) -> None:
        if self.lines:
            raise ConfigError("\n".join(self.lines))


def _did_you_mean(word, choices) -> str:
    close = difflib.get_close_matches(str(word), list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_keys(mapping: dict, allowed, required, path: str, errors: _Errors) -> bool:
    ok = True
    for key in mapping:
        if key not in allowed:
            errors.add(f"{path}.{key}".lstrip("."),
                       f"unknown key{_did_you_mean(key, allowed)}; accepted: {', '.join(allowed)}")
            ok = False
    for key in required:
        if key not in mapping:
            errors.add(f"{path}.{key}".lstrip("."), "missing (required)")
            ok = False
    return ok


def _mapping(value, path: str, errors: _Errors) -> dict | None:
    if value is None:
        return {}
    if not isinstance(value, dict):
        errors.add(path, f"must be a mapping (key: value lines), got {type(value).__name__}")
        return None
    return value


def _int(value, path: str, errors: _Errors, minimum: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, Integral):
        errors.add(path, f"must be an integer >= {minimum}, got {value!r}")
        return None
    if value < minimum:
        errors.add(path, f"must be >= {minimum}, got {value}")
        return None
    return int(value)


def _labels(value, path: str, errors: _Errors) -> tuple:
    if isinstance(value, (str, int)):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(v, (str, int)) for v in value):
        return tuple(value)
    errors.add(path, f"must be a class label or a non-empty list of labels, got {value!r}")
    return ()


DATASET_KEYS = ("name", "options", "scaling", "inliers", "outliers", "train_inliers", "test_inliers",
                "test_outliers")


def _parse_dataset(raw, required: tuple[str, ...], errors: _Errors) -> DatasetConfig | None:
    raw = _mapping(raw, "dataset", errors)
    if raw is None:
        return None
    _check_keys(raw, DATASET_KEYS, ("name", *required), "dataset", errors)
    name = raw.get("name")
    if name is not None and name not in DATASETS:
        errors.add("dataset.name", f"unknown dataset {name!r}{_did_you_mean(name, DATASETS)}; "
                                   "run 'kpca-bench datasets list' to see them")
    options = _mapping(raw.get("options"), "dataset.options", errors) or {}
    inliers = _labels(raw.get("inliers"), "dataset.inliers", errors) if "inliers" in raw else ()
    outliers = _labels(raw.get("outliers"), "dataset.outliers", errors) if "outliers" in raw else ()
    if set(inliers) & set(outliers):
        errors.add("dataset.outliers", f"classes {sorted(set(inliers) & set(outliers))} are also inliers")
    sizes = {key: _int(raw[key], f"dataset.{key}", errors, minimum=2 if key == "train_inliers" else 1)
             for key in ("train_inliers", "test_inliers", "test_outliers") if key in raw}
    scaling = raw.get("scaling", "none")
    if scaling not in SCALINGS:
        errors.add("dataset.scaling", f"unknown scaling {scaling!r}; accepted: {', '.join(SCALINGS)}")
    if None in sizes.values() or any(key not in raw for key in required) or not isinstance(name, str):
        return None
    return DatasetConfig(name=name, inliers=inliers, outliers=outliers, options=options, scaling=scaling, **sizes)


def _check_param_values(setting: dict, train_size: int | None, path: str, errors: _Errors) -> None:
    """Catch the common bad values before any work starts."""
    k = setting.get("n_components")
    if isinstance(k, Integral) and train_size is not None and k > train_size - 1:
        errors.add(f"{path}.n_components", f"{k} components need more than the {train_size} training samples; "
                                           f"use at most {train_size - 1}")
    for width in ("gamma", "sigma"):
        value = setting.get(width)
        if isinstance(value, Real) and not isinstance(value, bool) and value <= 0:
            errors.add(f"{path}.{width}", f"the kernel width must be > 0, got {value}")


RANGE_KEYS = ("start", "stop", "step")


def _expand_range(value, path: str, errors: _Errors):
    """``{start, stop, step}`` becomes the list ``start, start + step, ..., stop`` (stop included).

    Values are rounded to 10 decimals, so 0.2 + 0.2 + 0.2 is written 0.6 in
    labels and records; integer bounds and step give integers. Any other value
    is returned unchanged.
    """
    if not isinstance(value, dict) or set(value) != set(RANGE_KEYS):
        return value
    start, stop, step = (value[key] for key in RANGE_KEYS)
    if not all(isinstance(v, Real) and not isinstance(v, bool) for v in (start, stop, step)) \
            or step <= 0 or stop < start:
        errors.add(path, f"a range needs numbers start <= stop and step > 0, got {value!r}")
        return value
    count = math.floor((stop - start) / step + 1e-9) + 1
    if all(isinstance(v, Integral) for v in (start, step)):
        return [start + i * step for i in range(count)]
    return [round(start + i * step, 10) for i in range(count)]


def _parse_method(raw, index: int, train_size, errors: _Errors) -> MethodConfig | None:
    path = f"methods[{index}]"
    raw = _mapping(raw, path, errors)
    if raw is None:
        return None
    _check_keys(raw, ("name", "label", "params", "grid", "score", "trials"), ("name",), path, errors)
    name = raw.get("name")
    spec = METHODS.get(name)
    if spec is None:
        errors.add(f"{path}.name", f"unknown method {name!r}{_did_you_mean(name, METHODS)}; "
                                   f"accepted: {', '.join(METHODS)}")
        return None
    params = _mapping(raw.get("params"), f"{path}.params", errors)
    grid = _mapping(raw.get("grid"), f"{path}.grid", errors)
    if params is None or grid is None:
        return None
    accepted = [p for p in spec.param_names() if p not in RUNNER_PARAMS]
    for key in [*params, *grid]:
        if key not in accepted:
            errors.add(f"{path}.params.{key}", f"{name} has no parameter {key!r}{_did_you_mean(key, accepted)}; "
                                               f"accepted: {', '.join(accepted)}")
    grid = {key: _expand_range(values, f"{path}.grid.{key}", errors) for key, values in grid.items()}
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            errors.add(f"{path}.grid.{key}", f"must be a non-empty list of values or a range {{start, stop, step}}, "
                                             f"got {values!r}")
            return None
    score = raw.get("score")
    if score is not None and (not spec.subspace or score not in OUTLIER_SCORES):
        accepted_scores = ", ".join(OUTLIER_SCORES) if spec.subspace else "none (it scores by itself)"
        errors.add(f"{path}.score", f"unknown score {score!r} for {name}; accepted: {accepted_scores}")
    trials = _int(raw["trials"], f"{path}.trials", errors, 1) if "trials" in raw else None
    method = MethodConfig(name=name, label=str(raw.get("label", name)), params=params, grid=grid,
                          score=score if spec.subspace else None, trials=trials)
    for setting in method.settings():
        _check_param_values(setting, train_size, f"{path}.params", errors)
    return method


def _parse_protocol(raw, errors: _Errors) -> tuple[str, dict]:
    """``protocol: NAME`` or ``protocol: {name: NAME, <option>: value, ...}``; a value may be a range."""
    options = {}
    if isinstance(raw, dict):
        options = {k: _expand_range(v, f"protocol.{k}", errors) for k, v in raw.items() if k != "name"}
        raw = raw.get("name")
    if raw not in PROTOCOLS:
        errors.add("protocol", f"unknown protocol {raw!r}{_did_you_mean(raw, PROTOCOLS)}; "
                               f"accepted: {', '.join(PROTOCOLS)}")
        return "novelty", {}
    accepted = PROTOCOLS[raw].options
    for key in options:
        if key not in accepted:
            errors.add(f"protocol.{key}", f"protocol {raw} has no option {key!r}{_did_you_mean(key, accepted)}; "
                                          f"accepted: {', '.join(accepted) or 'none'}")
    return raw, options


def _parse_threshold(raw, errors: _Errors) -> ThresholdConfig:
    raw = _mapping(raw, "threshold", errors)
    if not raw:
        return ThresholdConfig()
    _check_keys(raw, ("rule", "quantile", "value"), (), "threshold", errors)
    rule = raw.get("rule", "train_quantile")
    value = raw.get("value")
    if (rule == "fixed") != (value is not None):
        errors.add("threshold.value", "give a value exactly when the rule is fixed (the outlier-score cut)")
    elif value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
        errors.add("threshold.value", f"must be a number, got {value!r}")
    if rule not in THRESHOLD_RULES:
        errors.add("threshold.rule", f"unknown rule {rule!r}{_did_you_mean(rule, THRESHOLD_RULES)}; "
                                     f"accepted: {', '.join(THRESHOLD_RULES)}")
    quantile = raw.get("quantile", 0.95)
    if isinstance(quantile, bool) or not isinstance(quantile, Real) or not 0 < quantile < 1:
        errors.add("threshold.quantile", f"must be a number strictly between 0 and 1, got {quantile!r}")
    return ThresholdConfig(rule=rule, quantile=float(quantile) if isinstance(quantile, Real) else 0.95,
                           value=float(value) if isinstance(value, Real) and not isinstance(value, bool) else None)


def _parse_output(raw, errors: _Errors) -> OutputConfig:
    raw = _mapping(raw, "output", errors)
    if not raw:
        return OutputConfig()
    _check_keys(raw, ("figures",), (), "output", errors)
    figures = raw.get("figures", list(FIGURES))
    if not isinstance(figures, list) or any(f not in FIGURES for f in figures):
        errors.add("output.figures", f"must be a list drawn from {', '.join(FIGURES)}, got {figures!r}")
        return OutputConfig()
    return OutputConfig(figures=tuple(figures))


def _parse_execution(raw, errors: _Errors) -> ExecutionConfig:
    raw = _mapping(raw, "execution", errors)
    if not raw:
        return ExecutionConfig()
    _check_keys(raw, ("backend", "address", "max_memory_mb"), (), "execution", errors)
    backend = raw.get("backend", "local")
    if backend not in BACKENDS:
        errors.add("execution.backend", f"unknown backend {backend!r}{_did_you_mean(backend, BACKENDS)}; "
                                        f"accepted: {', '.join(BACKENDS)}")
    address = raw.get("address")
    if address is not None and backend != "dask":
        errors.add("execution.address", "a scheduler address needs backend: dask")
    elif address is not None and (problem := address_problem(address)):
        errors.add("execution.address", problem)
    max_memory_mb = raw.get("max_memory_mb")
    if max_memory_mb is not None and (problem := max_memory_problem(max_memory_mb)):
        errors.add("execution.max_memory_mb", problem)
        max_memory_mb = None
    if backend == "dask" and address is None:
        address = "local"
    return ExecutionConfig(backend=backend, address=address,
                           max_memory_mb=float(max_memory_mb) if max_memory_mb is not None else None)


TOP_LEVEL = ("name", "description", "dataset", "protocol", "methods", "threshold", "trials", "seed", "output",
             "reference", "execution", "profiles")
PROFILES = ("full", "quick")


def _merge(base: dict, overrides: dict, path: str, errors: _Errors) -> dict:
    """``base`` with ``overrides`` applied; ``methods`` overrides are keyed by method label."""
    merged = dict(base)
    for key, value in overrides.items():
        if key == "methods" and path == "" and isinstance(value, dict):
            merged["methods"] = _merge_methods(base.get("methods") or [], value, errors)
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            merged[key] = _merge(base[key], value, f"{path}.{key}", errors)
        else:
            merged[key] = value
    return merged


def _merge_methods(methods: list, overrides: dict, errors: _Errors) -> list:
    labels = [m.get("label", m.get("name")) if isinstance(m, dict) else None for m in methods]
    for label in overrides:
        if label not in labels:
            errors.add(f"profiles.methods.{label}", f"no method has this label{_did_you_mean(label, labels)}; "
                                                    f"labels: {', '.join(map(str, labels))}")
    return [_merge(m, overrides[label], "", errors) if label in overrides else m
            for m, label in zip(methods, labels)]


def _apply_profile(raw: dict, profile: str, errors: _Errors) -> dict:
    """The raw config as the profile sees it. ``full`` is the file as written; another
    profile applies the overrides under ``profiles.<name>`` (smaller sizes, fewer trials)."""
    profiles = _mapping(raw.get("profiles"), "profiles", errors) or {}
    raw = {k: v for k, v in raw.items() if k != "profiles"}
    for name in profiles:
        if name not in PROFILES or name == "full":
            errors.add(f"profiles.{name}", f"unknown profile; accepted: {', '.join(p for p in PROFILES if p != 'full')}")
    if profile == "full":
        return raw
    if profile not in profiles:
        errors.add("profiles", f"no {profile!r} profile; add profiles: {{{profile}: {{trials: 2, ...}}}} "
                               "with the overrides that make it small")
        return raw
    overrides = _mapping(profiles[profile], f"profiles.{profile}", errors) or {}
    return _merge(raw, overrides, "", errors)


def _parse_reference(raw, errors: _Errors) -> ReferenceConfig | None:
    raw = _mapping(raw, "reference", errors)
    if not raw:
        return None
    if not _check_keys(raw, ("paper", "dataset"), ("paper", "dataset"), "reference", errors):
        return None
    return ReferenceConfig(paper=str(raw["paper"]), dataset=str(raw["dataset"]))


def parse_config(raw, source: str = "<config>", profile: str = "full") -> Config:
    """Validate a config already read from YAML; raises :class:`ConfigError` listing every problem."""
    errors = _Errors(source)
    if not isinstance(raw, dict):
        errors.add("", f"must be a YAML mapping with keys {', '.join(TOP_LEVEL)}")
        errors.raise_if_any()
    if profile not in PROFILES:
        raise ConfigError(f"unknown profile {profile!r}; accepted: {', '.join(PROFILES)}")
    raw = _apply_profile(raw, profile, errors)
    _check_keys(raw, TOP_LEVEL, ("name", "dataset", "methods"), "", errors)
    name = raw.get("name")
    if name is not None and (not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum()):
        errors.add("name", f"must be a word of letters, digits, '-' and '_' (it names the results folder), "
                           f"got {name!r}")
    protocol, protocol_options = _parse_protocol(raw.get("protocol", "novelty"), errors)
    required = PROTOCOLS[protocol].dataset_keys
    dataset = _parse_dataset(raw.get("dataset"), required, errors) if "dataset" in raw else None
    methods_raw = raw.get("methods")
    methods = []
    if "methods" in raw and (not isinstance(methods_raw, list) or not methods_raw):
        errors.add("methods", "must be a non-empty list of methods (each with at least a name)")
    elif methods_raw:
        train_size = dataset.train_inliers if dataset else None
        methods = [_parse_method(m, i, train_size, errors) for i, m in enumerate(methods_raw)]
    labels = [m.label for m in methods if m is not None]
    for label in {label for label in labels if labels.count(label) > 1}:
        errors.add("methods", f"label {label!r} is used twice; give each entry its own label")
    trials = _int(raw.get("trials", 10), "trials", errors, 1)
    seed = _int(raw.get("seed", 0), "seed", errors, 0)
    threshold = _parse_threshold(raw.get("threshold"), errors)
    output = _parse_output(raw.get("output"), errors)
    description = raw.get("description", "")
    reference = _parse_reference(raw.get("reference"), errors)
    execution = _parse_execution(raw.get("execution"), errors)
    errors.raise_if_any()
    return Config(name=name, description=str(description), dataset=dataset, protocol=protocol,
                  protocol_options=protocol_options,
                  methods=tuple(methods), threshold=threshold, trials=trials, seed=seed, output=output,
                  reference=reference, execution=execution, profile=profile, source=source)


def load_config(path, profile: str = "full") -> Config:
    """Read and validate a YAML config file, with a profile's overrides applied."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file; the examples are in configs/") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config ({exc.strerror})") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}: YAML syntax error at {where}{problem}") from None
    return parse_config(raw, source=str(path), profile=profile)
