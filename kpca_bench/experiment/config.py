"""Experiment configs as validated, typed dataclasses: what a run is (read from YAML by
:mod:`kpca_bench.experiment.config_parser`), its members, its overrides and its hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypedDict

from kpca_bench.errors import ConfigError
from kpca_bench.protocols.base import DatasetConfig, MethodConfig, ThresholdConfig
from kpca_bench.validation import as_keyword, check_run_arguments, declared, plain, written_fields

DEFAULT_CONFIG_DIR = Path("configs")
# Parameters the runner sets itself, so a config may not.
RUNNER_PARAMS = ("random_state",)
# The version of :meth:`Config.fingerprint`'s rule, hashed into the config hash (as the cell keys hold theirs).
CONFIG_HASH_SCHEMA = 2


@dataclass(frozen=True)
class OutputConfig:
    """``output:``: which figures the report draws per dataset."""

    figures: tuple[str, ...] = declared(
        ("box", "roc", "sparsity"), choices=("box", "roc", "sparsity"), doc="the figures drawn per dataset"
    )


@dataclass(frozen=True)
class StatisticsConfig:
    """``statistics:`` of a suite: the post-hoc test whose groups the critical-difference diagram draws,
    ``nemenyi`` (Demšar 2006) or ``wilcoxon_holm`` (Benavoli et al. 2016). It changes no number of a
    cell, so it is not part of the config hash."""

    posthoc: str = declared(
        "nemenyi",
        choices=("nemenyi", "wilcoxon_holm"),
        doc="the post-hoc test whose groups the critical-difference diagram draws",
    )


class _ExecutionChanges(TypedDict, total=False):
    """The fields :meth:`ExecutionConfig.with_overrides` may change."""

    backend: str
    address: str | None
    max_memory_mb: float | None


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
    device: str | None = declared(
        None, doc="where exact and Nystrom kernel PCA compute: cuda (a GPU), cuda:N (the GPU numbered N) or cpu"
    )

    def with_overrides(self, *, scheduler: str | None = None, max_memory_mb: float | None = None) -> "ExecutionConfig":
        """A copy with a scheduler address and / or a memory budget applied (checked by
        :meth:`Config.with_overrides`)."""
        changes: _ExecutionChanges = {"max_memory_mb": float(max_memory_mb)} if max_memory_mb is not None else {}
        if scheduler is not None:
            changes.update({"backend": "dask", "address": scheduler})
        return replace(self, **changes)


@dataclass(frozen=True)
class ReferenceConfig:
    """Which published numbers this experiment reproduces: plain data that the library keeps with the config and
    never reads. The reproduction framework (``python -m reproductions``, outside the library) sets the paper's
    numbers beside the run's by it.

    ``stand_in``: when the run uses other data than the paper's (a stand-in for a file
    that is not to be had), how it differs; the report marks its numbers with it.
    ``variant_of`` / ``variant``: a variant run (``reproductions/<paper>/configs/variants/``) tests one reading
    of the paper against the headline config ``variant_of`` (a config file stem);
    ``variant`` says which reading, in a phrase. The report sets its numbers beside
    the headline ones.
    """

    paper: str = declared(doc="the paper's name, as its reproduction's reference files spell it")
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


class _RunChanges(TypedDict, total=False):
    """The fields :meth:`Config.with_overrides` may change."""

    execution: ExecutionConfig
    trials: int
    seed: int


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
    suite: SuiteConfig | None = declared(
        None, doc="every dataset of a collection (its other keys: dataset keys shared by all)"
    )
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
        members: list[tuple[str, Config]] = []
        seen: dict[str, int] = {}
        for dataset in self.datasets:
            label = member_label(dataset)
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:
                label = f"{label}_{seen[label]}"
            members.append((label, replace(self, dataset=dataset, datasets=(), suite=None)))
        return members

    def with_overrides(
        self,
        *,
        trials: int | None = None,
        seed: int | None = None,
        scheduler: str | None = None,
        max_memory_mb: float | None = None,
        spell: Callable[[str], str] = as_keyword,
    ) -> "Config":
        """A copy with overrides of the caller's (``kpca_bench.run``'s arguments, the command line's options)
        applied; :class:`ConfigError` names a bad one as the caller wrote it (``spell``: ``as_keyword`` or
        ``as_flag`` of :mod:`kpca_bench.validation`)."""
        check_run_arguments(
            {"trials": trials, "seed": seed, "scheduler": scheduler, "max_memory": max_memory_mb}, spell
        )
        changes: _RunChanges = {
            "execution": self.execution.with_overrides(scheduler=scheduler, max_memory_mb=max_memory_mb)
        }
        if trials is not None:
            if trials > 1 and any(d.draw == "file_order" for d in (self.dataset, *self.datasets) if d is not None):
                raise ConfigError(
                    f"{spell('trials')} {trials}: dataset.draw: file_order takes the same rows in every "
                    f"trial; leave {spell('trials')} out"
                )
            changes["trials"] = trials
        if seed is not None:
            changes["seed"] = seed
        return replace(self, **changes)

    def fingerprint(self) -> dict:
        """What determines the numbers of a run (not its size, its figures or where it runs), as plain data: the
        entries as the config writes them (:func:`~kpca_bench.validation.written_fields`) and
        :data:`CONFIG_HASH_SCHEMA`."""
        data = {
            "schema": CONFIG_HASH_SCHEMA,
            "name": self.name,
            "protocol": self.protocol,
            "protocol_options": plain(self.protocol_options),
            "threshold": written_fields(self.threshold),
            "seed": self.seed,
            "methods": [written_fields(method) for method in self.methods],
        }
        if self.is_suite:
            data["datasets"] = [written_fields(d) for d in self.datasets]
            data["suite"] = written_fields(self.suite) if self.suite else None
        else:
            data["dataset"] = written_fields(self.dataset)
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


def member_label(dataset: DatasetConfig) -> str:
    """The sub-folder of a suite's dataset: its name, a user file's stem, or ``openml_<id>``."""
    if dataset.name == "file" and "path" in dataset.options:
        return Path(str(dataset.options["path"])).stem.replace(" ", "_")
    if dataset.name == "openml":
        return f"openml_{dataset.options.get('data_id', dataset.options.get('name', ''))}"
    return dataset.name
