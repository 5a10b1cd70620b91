"""``kpca-bench report RESULTS_DIR``: rebuild the tables and figures of any run's folder from its records.

The config comes from the folder's ``run.json`` (written by every run since suites were added),
else from the config folders searched: the config whose name and hash match the records. A single-dataset
run gets its tables and figures (and its protocol's own); a suite gets every dataset's and its
own statistics across datasets (:mod:`.suite`). Nothing is re-run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from kpca_bench.errors import KpcaBenchError
from kpca_bench.report import trials_text, write_tables
from kpca_bench.report.suite import dataset_table, rank_frame, rank_table_text, suite_statistics, write_suite_report
from kpca_bench.experiment.config import DEFAULT_CONFIG_DIR, Config
from kpca_bench.experiment.config_parser import load_config, parse_config
from kpca_bench.experiment.progress import print_notice
from kpca_bench.experiment.runner import RUN_FILE, missing_files, read_provenance, stored_records
from kpca_bench.experiment.planning import is_finished
from kpca_bench.experiment.store import TABLE_FILE, ResultStore, read_state, write_atomic
from kpca_bench.experiment.yaml_loader import read_yaml


@dataclass(frozen=True)
class Rebuilt:
    """What ``report RESULTS_DIR`` did: the config, the folders written (``directory``: the first), the text
    for the terminal, and the records of the cells that failed (:class:`~kpca_bench.experiment.runner.CellsFailed`)."""

    config: Config
    folders: list[Path]
    text: str
    failures: list[dict] = field(default_factory=list)

    @property
    def directory(self) -> Path:
        return self.folders[0]


DEFAULT_CONFIG_DIRS = (DEFAULT_CONFIG_DIR,)


def config_of_run(
    directory: Path,
    config_dirs: Sequence[Path] = DEFAULT_CONFIG_DIRS,
    notify: Callable[[str], None] = print_notice,
    given: Config | None = None,
) -> Config:
    """The config a results folder was run with: ``given`` (a caller's config, for a run of a dict, a Config or
    estimator objects) or the one its ``run.json`` holds, with the run's trials and seed; else (no ``run.json``
    or no config text in it, or a damaged one, moved aside with a line through ``notify``) the config named as
    its records in one of ``config_dirs`` (:func:`shipped_configs`).

    A run of methods given as estimator objects is refused (one line naming them) unless ``given`` has them."""
    run, damage = read_state(directory / RUN_FILE, run_file_readable)
    if run is not None:
        check_objects_given(directory, run.get("objects") or [], given)
        if given is None and run.get("config") is not None:
            given = where_it_is_now(
                parse_config(read_yaml(run["config"]), source=run["source"], profile=run["profile"]),
                config_dirs,
            )
        if given is not None:
            return given.with_overrides(trials=run.get("trials"), seed=run.get("seed"))
    if given is not None:
        return given
    if run is not None and run["source"].startswith("<"):
        raise KpcaBenchError(
            f"{directory}: its run was given its config as a {run['source'].strip('<>')}, which "
            "no file holds; give the same to kpca_bench.load(folder, config=...)"
        )
    if damage:
        notify(f"{damage}; looking for the config in {folder_list(config_dirs)}")
    store = ResultStore(directory)
    if not store.exists():
        raise KpcaBenchError(f"{directory} holds no run: neither {RUN_FILE} nor {TABLE_FILE}")
    first = next(iter(store.load().values()), {})
    name, wanted, profile = first.get("experiment"), first.get("config_hash"), first.get("profile", "full")
    for path in shipped_configs(config_dirs):
        try:
            config = load_config(path, profile)
        except KpcaBenchError:
            continue
        if config.name == name and (wanted is None or config.config_hash() == wanted):
            return config
    raise KpcaBenchError(
        f"{directory}: no config in {folder_list(config_dirs)} is named {name!r} with hash {wanted}; "
        "name the folder that holds it with --configs"
    )


def check_objects_given(directory: Path, objects: list[str], given: Config | None) -> None:
    """Refuse (one line) to rebuild a run whose methods of labels ``objects`` were estimator objects, unless the
    caller's config ``given`` has entries of those labels: no file holds them, and without them their cells'
    records would be silently left out."""
    missing = [label for label in objects if given is None or label not in {m.label for m in given.methods}]
    if missing:
        raise KpcaBenchError(
            f"{directory}: its run was given the methods {', '.join(map(repr, missing))} as "
            "estimator objects, which no file holds; give the same config and objects to "
            "kpca_bench.load(folder, config=..., methods={...})"
        )


def where_it_is_now(config: Config, config_dirs: Sequence[Path]) -> Config:
    """``config`` with its ``source`` moved to the shipped config of the same name and hash when the file it ran
    from is gone (moved since), so that it finds its reproduction's reference files; unchanged otherwise."""
    if not config.source or config.source.startswith("<") or Path(config.source).exists():
        return config
    for path in shipped_configs(config_dirs):
        try:
            shipped = load_config(path, config.profile)
        except KpcaBenchError:
            continue
        if shipped.name == config.name and shipped.config_hash() == config.config_hash():
            return replace(config, source=path.as_posix())
    return config


def run_file_readable(run: dict) -> bool:
    """Whether a ``run.json`` holds where its config was read from and the config's text as YAML (or none: a
    config given as a dict or a Config)."""
    if not (isinstance(run.get("source"), str) and "profile" in run and isinstance(run.get("objects", []), list)):
        return False
    if run.get("config") is None:  # only a config given as a dict or a Config has no text
        return run["source"].startswith("<")
    if not isinstance(run["config"], str):
        return False
    try:
        return isinstance(read_yaml(run["config"]), dict)
    except yaml.YAMLError:
        return False


def shipped_configs(config_dirs: Sequence[Path]) -> list[Path]:
    """The YAML files of each folder of ``config_dirs`` and its sub-folders, folder by folder, in path order."""
    return [path for folder in config_dirs for path in sorted(Path(folder).rglob("*.yaml"))]


def folder_list(folders: Sequence[Path]) -> str:
    return " or ".join(str(folder) for folder in folders) or "no folder"


def rebuild(
    directory,
    config_dirs: Sequence[Path] = DEFAULT_CONFIG_DIRS,
    notify: Callable[[str], None] = print_notice,
) -> Rebuilt:
    """Rewrite every table and figure of the run in ``directory`` from its records.

    Damaged state files are moved aside with a line through ``notify`` (:func:`config_of_run`,
    :func:`~kpca_bench.experiment.runner.read_provenance`); the failed cells are in the result's ``failures``.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise KpcaBenchError(f"{directory} is not a folder of results; give the folder a run wrote, OUT/<name>")
    config = config_of_run(directory, config_dirs, notify)
    if not config.is_suite:
        records = stored_records(config, directory)
        if not records:
            raise KpcaBenchError(f"{directory} has no records of {config.name}'s cells")
        write_tables(config, records, directory, read_provenance(config, directory, notify=notify))
        summary = directory / "summary.md"
        return Rebuilt(config, [directory], summary.read_text() if summary.exists() else "", failed(records))
    by_member, skipped, folders = {}, [], []
    for label, member in config.members():
        sub = directory / label
        if not ResultStore(sub).exists():
            skipped.append((label, missing_files(member) or "no records (not run yet)"))
            continue
        records = stored_records(member, sub)
        write_tables(member, records, sub, read_provenance(member, sub, notify=notify))
        by_member[label] = records
        folders.append(sub)
    if not by_member:
        raise KpcaBenchError(f"{directory}: none of the suite's datasets has records")
    write_suite_report(config, by_member, skipped, directory)
    ranks = rank_frame(suite_statistics(config, dataset_table(config, by_member)))
    return Rebuilt(
        config,
        [directory, *folders],
        rank_table_text(ranks),
        [record for records in by_member.values() for record in failed(records)],
    )


def trials_file(
    directory,
    config_dirs: Sequence[Path] = DEFAULT_CONFIG_DIRS,
    notify: Callable[[str], None] = print_notice,
) -> Path:
    """``directory/trials.csv``, written first from the run's records (:func:`~kpca_bench.report.trials_text`)
    where it is missing or older than the records table: git keeps the records, not what they give. The config is
    the run's (:func:`config_of_run`; a suite's dataset folder: its suite's member). Where it cannot be written,
    ``notify`` is told why and the path is returned as it is."""
    directory = Path(directory)
    path, table = directory / "trials.csv", directory / TABLE_FILE
    if not ResultStore(directory).exists() or (
        path.exists() and (not table.exists() or path.stat().st_mtime >= table.stat().st_mtime)
    ):
        return path
    member = not (directory / RUN_FILE).exists() and (directory.parent / RUN_FILE).exists()
    try:
        config = config_of_run(directory.parent if member else directory, config_dirs, notify)
        if member:
            config = dict(config.members())[directory.name]
        write_atomic(path, trials_text(config, stored_records(config, directory)))
    except (KpcaBenchError, KeyError) as error:
        notify(f"{path} is missing and cannot be written from the records: {error}")
    return path


def failed(records: list[dict]) -> list[dict]:
    """The records of cells that did not finish."""
    return [record for record in records if not is_finished(record)]
