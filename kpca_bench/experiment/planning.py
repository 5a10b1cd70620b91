"""What a run computes: its cells, their keys and seeds, and the order they run in.

A *cell* is one (trial, method entry, parameter setting). Its key is a hash of
everything that determines its numbers, and its seeds are hashes of the config
seed with the trial (for the split) and the method setting (for the method's
own randomness), so neither the order of execution, ``--jobs`` nor the Dask
cluster can change a number. Re-running a config skips every cell whose key is
in the store.

The cells of one trial that differ only in the outlier score of a method whose seed
only starts an exact eigensolver
(:meth:`~kpca_bench.methods.registry.MethodSpec.seed_only_starts_solver`) form a *fit
group* under a protocol that shares fits: they run as one task that fits once, each
cell scoring the one model by its own score, and all of them take the seed of the
group's reconstruction-error cell, also a cell that runs alone (the others' keys hold the seed they take).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path

from kpca_bench.datasets import DATASETS
from kpca_bench.methods.scores import OUTLIER_SCORES
from kpca_bench.protocols import PROTOCOLS, MethodConfig
from kpca_bench.protocols.base import DEFAULT_SCORE, DatasetConfig, ThresholdConfig
from kpca_bench.experiment.config import Config, stable_hash
from kpca_bench.validation import plain, written_fields


@dataclass(frozen=True)
class Cell:
    """One (trial, method entry, setting): its key, its seeds, and ``fit_group``, the id shared by the cells
    of its fit group (None: it fits alone), whose seed they all take (:func:`with_fit_groups`)."""

    key: str
    trial: int
    method_index: int
    setting: dict
    split_seed: int
    random_state: int
    fit_group: str | None = None


def derive_seed(*parts) -> int:
    """A 32-bit seed from a hash of its parts (never from a shared random state)."""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return int(digest[:8], 16)


# The version of :func:`cell_key`'s rule, hashed into every key: a change of the rule is a new version, whose
# keys meet none of the old, with a migration of the stored records (``migrations/``).
KEY_SCHEMA = 2


def cell_key(
    *,
    dataset: DatasetConfig,
    protocol: str,
    protocol_options: dict,
    threshold: ThresholdConfig,
    seed: int,
    method: str,
    setting: dict,
    score: str | None,
    higher_is: str | None,
    trial: int,
    split_seed: int,
    random_state: int,
) -> str:
    """The key of a cell: a hash of the plain values that determine its numbers, and :data:`KEY_SCHEMA`.

    The dataset and threshold entries count by every field a config writes
    (:func:`~kpca_bench.validation.written_fields`); the seeds are those the cell runs with, so a cell that
    takes its fit group's seed is not the cell that takes its own.
    """
    return stable_hash(
        {
            "schema": KEY_SCHEMA,
            "dataset": written_fields(dataset),
            "protocol": protocol,
            "protocol_options": plain(protocol_options),
            "threshold": written_fields(threshold),
            "seed": seed,
            "method": method,
            "setting": plain(setting),
            "score": score,
            "higher_is": higher_is,
            "trial": trial,
            "split_seed": split_seed,
            "random_state": random_state,
        }
    )


def method_seed(config: Config, method: MethodConfig, setting: dict, trial: int, score: str | None) -> int:
    """The seed of a method setting's own randomness in a trial: from the config seed, the trial, and the method's
    name, setting, outlier score and declared sign (where one is declared)."""
    parts = {"method": method.name, "setting": setting, "score": score}
    if method.higher_is is not None:
        parts["higher_is"] = method.higher_is
    return derive_seed(config.seed, trial, parts)


def plan_cells(config: Config) -> list[Cell]:
    """Every cell of the experiment, trial by trial, the cells of each fit group with the group's seed
    (:func:`with_fit_groups`), each keyed by :func:`cell_key`."""
    entry = config.dataset
    assert entry is not None, "a suite's cells are planned member by member"
    shares_fits = PROTOCOLS[config.protocol].shares_fits
    cells = []
    for trial in range(config.trials):
        split_seed = derive_seed(config.seed, DATASETS[entry.name].split_seed_name, trial)
        planned = []
        for index, method in enumerate(config.methods):
            if method.trials is not None and trial >= method.trials:
                continue
            for setting in method.settings():
                cell = Cell(
                    key="",
                    trial=trial,
                    method_index=index,
                    setting=setting,
                    split_seed=split_seed,
                    random_state=method_seed(config, method, setting, trial, method.score),
                )
                planned.append((cell, fit_identity(method, setting) if shares_fits else None))
        cells += with_fit_groups(planned, config, trial)
    return [replace(cell, key=key_of(cell, config)) for cell in cells]


def key_of(cell: Cell, config: Config) -> str:
    """:func:`cell_key` of a planned cell of ``config``."""
    method = config.methods[cell.method_index]
    assert config.dataset is not None, "a suite's cells are planned member by member"
    return cell_key(
        dataset=config.dataset,
        protocol=config.protocol,
        protocol_options=cell_key_options(config),
        threshold=config.threshold,
        seed=config.seed,
        method=method.name,
        setting=cell.setting,
        score=method.score,
        higher_is=method.higher_is,
        trial=cell.trial,
        split_seed=cell.split_seed,
        random_state=cell.random_state,
    )


def with_fit_groups(planned: list[tuple[Cell, str | None]], config: Config, trial: int) -> list[Cell]:
    """One trial's cells, those of each *fit group* (two or more cells with the same :func:`fit_identity`) with
    the group's ``fit_group`` id and its seed: the seed of its cell whose score comes first in
    :data:`~kpca_bench.methods.scores.OUTLIER_SCORES` (reconstruction error, also where an entry names no
    score), whatever the config's order and other entries."""
    groups: dict[str, list[Cell]] = {}
    for cell, group in planned:
        if group is not None:
            groups.setdefault(group, []).append(cell)
    cells = []
    for cell, group in planned:
        members = groups.get(group, []) if group is not None else []
        if len(members) > 1:
            score = min(
                (config.methods[member.method_index].score for member in members),
                key=lambda name: (list(OUTLIER_SCORES).index(name or DEFAULT_SCORE), name is None),
            )
            group_seed = method_seed(config, config.methods[cell.method_index], cell.setting, trial, score)
            cell = replace(cell, random_state=group_seed, fit_group=f"{group}/{trial}")
        cells.append(cell)
    return cells


def fit_identity(method: MethodConfig, setting: dict) -> str | None:
    """What the cells of one trial that can share a fit have in common: the method, its setting and its
    declared sign, for a setting whose seed only starts an exact eigensolver
    (:meth:`~kpca_bench.methods.registry.MethodSpec.seed_only_starts_solver`); None for any other."""
    if not method.spec().seed_only_starts_solver(setting):
        return None
    return stable_hash({"method": method.name, "setting": setting, "higher_is": method.higher_is})


def cell_key_options(config: Config) -> dict:
    """The protocol options as written, less the report-only ones (:attr:`Protocol.report_only_options`)."""
    report_only = PROTOCOLS[config.protocol].report_only_options
    return {key: value for key, value in config.protocol_options.items() if key not in report_only}


def experiment_directory(config: Config, out_root) -> Path:
    """``<out>/<name>/`` for the full profile; ``<out>/<profile>/<name>/`` for a reduced one."""
    if config.profile == "full":
        return Path(out_root) / config.name
    return Path(out_root) / config.profile / config.name


def subsample_seed(config: Config) -> int:
    """The seed of the ``max_rows`` subsample: from the config seed alone, so every trial sees the same rows."""
    return derive_seed(config.seed, "max_rows")


def planned_trials(config: Config) -> dict[str, int]:
    """Trials planned per method setting label, in config order."""
    return {
        method.setting_label(setting): config.trials if method.trials is None else min(method.trials, config.trials)
        for method in config.methods
        for setting in method.settings()
    }


def is_finished(record: dict) -> bool:
    """A cell whose record can be reused: it ran to the end. Any other status is a failure, run again."""
    return record["status"] == "ok"


def cells_to_run(cells: list[Cell], stored: dict[str, dict], retry_failed: bool) -> list[Cell]:
    """The cells without a reusable record, each key once (entries that differ only in label share cells)."""

    def wanted(cell: Cell) -> bool:
        record = stored.get(cell.key)
        return record is None or (retry_failed and not is_finished(record))

    return list({cell.key: cell for cell in cells if wanted(cell)}.values())


def tasks_of(cells: list[Cell], config: Config) -> list[tuple[Cell, ...]]:
    """``cells`` as tasks: each fit group's cells together (in their order), every other cell alone; trial by
    trial, each trial's fit groups first, then its other kernel methods, then the rest, so that the cheap
    tasks come last and fill the workers while the dear ones finish (a dataset ends when its last task does)."""
    tasks: dict[str, list[Cell]] = {}
    for cell in cells:
        tasks.setdefault(cell.fit_group or cell.key, []).append(cell)

    def cost_rank(task: list[Cell]) -> tuple[int, int]:
        kernel_method = config.methods[task[0].method_index].spec().kernel_method
        return task[0].trial, 0 if len(task) > 1 else 1 if kernel_method else 2

    return [tuple(task) for task in sorted(tasks.values(), key=cost_rank)]
