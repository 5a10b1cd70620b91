"""Run an experiment: plan its cells (:mod:`.planning`), execute the unfinished ones in parallel (each task
by :mod:`.cell`), store each record at once (:mod:`.store`), and return what the run did.

One dataset is a suite of one: each dataset's folder gets its store, its records and the data's
provenance; at the end each dataset's journal is folded into its table. An interrupt or an error once
cells run is the outcome's ``stopped_by``, for the caller to raise after the tables are written.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections import Counter
from collections.abc import Callable
from contextlib import nullcontext, suppress
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from pathlib import Path

import numpy as np

from kpca_bench.datasets import DATASETS, Dataset, Provenance, load_dataset
from kpca_bench.datasets.files import present
from kpca_bench.datasets.labels import check_binary
from kpca_bench.datasets.locate import searched
from kpca_bench.datasets.subsample import subsample
from kpca_bench.errors import ConfigError, DataError, KpcaBenchError
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.experiment.cell import cell_fields, run_task
from kpca_bench.experiment.config import Config, ExecutionConfig, stable_hash
from kpca_bench.experiment.environment import write_environment
from kpca_bench.experiment.execution import bounded_workers, check_execution_device, open_backend, uses_cuda
from kpca_bench.experiment.lock import folder_lock, prepare_folder
from kpca_bench.experiment.planning import (
    Cell,
    cells_to_run,
    experiment_directory,
    is_finished,
    plan_cells,
    subsample_seed,
    tasks_of,
)
from kpca_bench.experiment.progress import NoProgress, PlainProgress, print_notice
from kpca_bench.experiment.store import RECORDS_FILE, TABLE_FILE, ResultStore, read_state, write_atomic

# Where a LocalCluster's worker processes write their messages (not the terminal).
WORKER_LOG = "dask-workers.log"


@dataclass(frozen=True)
class RunOutcome:
    """What a run did: cells planned, reused and run; ``failures`` are the failed cells' records;
    ``skipped``: a suite's datasets whose files are not here, each with the reason; ``members``: each
    dataset's folder and records (:class:`MemberRun`); ``stopped_by``: the interrupt or error that
    stopped the run, if one did (:func:`run_experiment`)."""

    directory: Path
    n_cells: int
    n_reused: int
    n_run: int
    failures: list[dict]
    skipped: list[tuple[str, str]] = field(default_factory=list)
    members: list[MemberRun] = field(default_factory=list)
    is_suite: bool = False
    stopped_by: BaseException | None = None


class CellsFailed(KpcaBenchError):
    """Some cells of a finished run failed: their records say why (``status``, ``error_type``, ``error``)."""

    exit_code = 1

    @classmethod
    def of(cls, outcome) -> CellsFailed:
        """One line per kind of failure (:func:`failure_kind`): its count and its first cell's message.

        ``outcome``: a :class:`RunOutcome`, or anything with the failed records as ``failures`` and the
        results folder as ``directory`` (``report RESULTS_DIR``'s).
        """
        kinds: dict[str, list[dict]] = {}
        for record in outcome.failures:
            kinds.setdefault(failure_kind(record), []).append(record)
        lines = [
            f"{len(records)} cells failed, e.g. {records[0]['method']} trial {records[0]['trial']}: "
            f"{failure_reason(records[0])}"
            for records in kinds.values()
        ]
        trials = outcome.directory / "trials.csv"
        # A suite's trials.csv files are in its datasets' folders.
        where = trials if trials.exists() else f"the trials.csv of each dataset's folder in {outcome.directory}"
        lines[-1] += f"; see status and error in {where}; the same command runs them again"
        return cls("\n".join(lines))


def data_fingerprint(dataset: Dataset) -> str:
    """Checksum of the data a run used: of its files if it has any, else of its arrays."""
    if dataset.provenance.files:
        return stable_hash(sorted(f.sha256 for f in dataset.provenance.files))
    digest = hashlib.sha256(np.ascontiguousarray(dataset.X).tobytes())
    digest.update(np.asarray(dataset.y).astype(str).tobytes())
    return digest.hexdigest()[:16]


def data_files(dataset: Dataset) -> dict[str, str]:
    """The sha256 of each file the data were read from, by file name."""
    return {Path(record.path).name: record.sha256 for record in dataset.provenance.files}


def package_versions() -> dict:
    import scipy
    import sklearn

    import kpca_bench

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "kpca-bench": kpca_bench.__version__,
    }


def load_checked_dataset(config: Config, offline: bool) -> Dataset:
    """Load the config's dataset (subsampled to ``max_rows``) and check that it can serve the protocol."""
    entry = config.dataset
    assert entry is not None, "a suite's datasets are loaded member by member"
    dataset = load_dataset(entry.name, offline=offline, base_dir=config.folder, **entry.options)
    if entry.max_rows is not None:
        dataset = subsample(dataset, entry.max_rows, subsample_seed(config))
    if entry.default_classes:
        check_binary(dataset)
    if not np.all(np.isfinite(dataset.X)):
        bad_rows = int(np.sum(~np.all(np.isfinite(dataset.X), axis=1)))
        raise DataError(
            f"dataset {dataset.name} has {bad_rows} rows with NaN or infinite values; "
            "drop or impute them in its loader (see the loader's missing-value option)"
        )
    PROTOCOLS[config.protocol].check_data(dataset, entry, config.options)
    return dataset


def failure_reason(record: dict) -> str:
    """A failed record's cause in a few words: the exception type and message, or its status."""
    if record["status"] == "failed":
        return f"{record.get('error_type', 'error')}: {record.get('error', '')}"
    return record["status"]


def failure_kind(record: dict) -> str:
    """A failed record's kind: its exception's type, or its status when it has none."""
    return record.get("error_type") or record["status"]


def degenerate_summary(records: list[dict]) -> list[str]:
    """One warning line per ``degenerate`` flag of finished cells (constant scores, a model without components,
    :func:`flag_overflow`)."""
    kinds: dict[str, list[dict]] = {}
    for record in records:
        if record.get("degenerate") and is_finished(record):
            kinds.setdefault(record["degenerate"], []).append(record)
    return [
        f"warning: {len(flagged)} of {len(records)} cells finished flagged ({reason}), e.g. "
        f"{flagged[0]['method']} trial {flagged[0]['trial']}: their numbers may mean nothing; see degenerate "
        "in trials.csv and the marks in summary.md"
        for reason, flagged in kinds.items()
    ]


def not_converged_summary(records: list[dict]) -> list[str]:
    """One warning line per method with finished cells flagged ``not_converged`` (:func:`flag_iteration_limit`):
    how many of its finished cells stopped on their iteration limit, and the first one's flag."""
    finished: Counter = Counter(record["method"] for record in records if is_finished(record))
    flagged: dict[str, list[dict]] = {}
    for record in records:
        if record.get("not_converged") and is_finished(record):
            flagged.setdefault(record["method"], []).append(record)
    return [
        f"warning: {method}: {len(mine)} of {finished[method]} fits stopped on their iteration limit "
        f"({mine[0]['not_converged']}): not the method's converged model; see not_converged in trials.csv"
        for method, mine in flagged.items()
    ]


def warning_summary(records: list[dict]) -> list[str]:
    """One line per warning category over the cells of a run: how often, in how many cells, and an example."""
    counts: Counter[str] = Counter()
    cells: Counter[str] = Counter()
    example: dict[str, tuple[str, str]] = {}
    for record in records:
        for category, count in (record.get("warnings") or {}).items():
            counts[category] += count
            cells[category] += 1
            example.setdefault(category, ((record.get("warning_messages") or {}).get(category, ""), record["method"]))
    return [
        f"warning: {category} x {counts[category]} in {cells[category]} of {len(records)} cells, "
        f"e.g. {example[category][1]}: {example[category][0]}"
        for category in sorted(counts)
    ]


def labelled(record: dict, cell: Cell, config: Config) -> dict:
    """A stored record under the labels the config gives its cell now (labels are not part of the key)."""
    method = config.methods[cell.method_index]
    return {**record, "method": method.setting_label(cell.setting), "entry": method.label}


def reuse_records(store: ResultStore, source: Path, cells: list[Cell], fingerprint: str) -> int:
    """Copy into ``store`` the finished records of the run folder ``source`` whose keys ``cells`` plans and
    ``store`` has not finished; the number copied. Each copy names its folder in ``reused_from``.

    A key names everything that determines a cell's numbers except the data's content, so the
    records must come from the same data: refused (:class:`DataError`) if any finished record of
    ``source`` has another ``data_fingerprint`` than ``fingerprint``, or if ``source`` has none.
    """
    found = {key: r for key, r in ResultStore(source).load().items() if is_finished(r)}
    if not found:
        raise ConfigError(
            f"--reuse-from {source}: no finished records there (no {TABLE_FILE} or {RECORDS_FILE}, "
            "or none with status ok); give the results folder of a finished run, e.g. results/<name>"
        )
    other = sorted({str(r.get("data_fingerprint")) for r in found.values()} - {fingerprint})
    if other:
        raise DataError(
            f"--reuse-from {source}: its records were computed on other data (data fingerprint "
            f"{other[0]}, this run's {fingerprint}); run without --reuse-from"
        )
    stored = store.load()
    copies = [
        {**found[key], "reused_from": str(source)}
        for key in dict.fromkeys(c.key for c in cells)
        if key in found and not (key in stored and is_finished(stored[key]))
    ]
    store.extend(copies)
    return len(copies)


@dataclass(frozen=True)
class MemberRun:
    """One dataset of a run as it ended: its single-dataset config, folder, stored records and the data's
    provenance (None if the run stopped before this dataset loaded: it has no tables of its own then)."""

    label: str
    config: Config
    directory: Path
    records: list[dict]
    provenance: Provenance | None


@dataclass
class _Member:
    label: str
    config: Config
    store: ResultStore
    cells: list[Cell]
    todo: list[Cell] = field(default_factory=list)
    missing: str | None = None
    dataset: Dataset | None = None


REQUIRE_DATA = "KPCA_BENCH_REQUIRE_DATA"


def missing_files(config: Config) -> str | None:
    """Why the config's dataset cannot load from the files here (they are not there), or None if they are."""
    entry = config.dataset
    assert entry is not None, "a suite's datasets are looked for member by member"
    spec = DATASETS[entry.name]
    if spec.files and not present(spec.name, spec.files):
        return (
            f"its files are not in {searched(spec.files[0].folder_of(spec.name))}; "
            f"'kpca-bench datasets fetch {spec.name}' downloads them"
        )
    path = entry.options.get("path") if entry.name == "file" else None
    if path is not None:
        resolved = Path(path) if Path(path).is_absolute() or config.folder is None else config.folder / path
        if not resolved.exists():
            return f"its file {resolved} does not exist"
    return None


def no_dataset_here(config: Config) -> str | None:
    """``"<dataset>: <why it is missing>"`` of a suite's first dataset when none of its datasets has its files
    here, else None."""
    reasons = [(label, missing_files(member)) for label, member in config.members()]
    if all(reason for _, reason in reasons):
        return f"{reasons[0][0]}: {reasons[0][1]}"
    return None


def run_experiment(
    config: Config,
    out_dir,
    *,
    jobs: int = 1,
    offline: bool = False,
    progress: PlainProgress | None = None,
    retry_failed: bool = True,
    fail_fast: bool = False,
    wait: bool = True,
    notify: Callable[[str], None] = print_notice,
    reuse_from: Path | None = None,
) -> RunOutcome:
    """Run every unfinished cell of ``config`` and return what the run did, with each dataset's records.

    One dataset is a suite of one: results go to :func:`experiment_directory`, and a suite's
    datasets each to ``<that folder>/<dataset>/``. The folder is created, checked for writing and
    locked (:mod:`kpca_bench.experiment.lock`) before any data loads; ``wait`` says whether to wait
    for another run holding it or fail at once. The datasets run one after another through one
    backend (one pool of workers or one Dask cluster, as ``config.execution`` says:
    :mod:`kpca_bench.experiment.execution`), each dataset's cells in parallel; each finished cell is
    appended to its store as it arrives, failed ones too (status ``failed`` with the exception). A
    failed cell stops the run only with ``fail_fast``, and is run again next time unless
    ``retry_failed`` is False. ``notify`` receives messages that are not progress.

    A suite's dataset whose files are not here is skipped with a line naming it (and listed in
    ``skipped``), unless ``KPCA_BENCH_REQUIRE_DATA=1``, where it is an error; a suite with no
    dataset here is refused (:class:`DataError`) before anything is written. ``reuse_from``:
    another run's folder whose finished records of planned cells are copied in first
    (:func:`reuse_records`), so only the cells it lacks run; refused for a suite.

    An interrupt or an error once cells run does not propagate from here: it is the outcome's
    ``stopped_by``, beside what finished, so that the caller writes the tables and then raises it.
    """
    if reuse_from is not None and config.is_suite:
        raise ConfigError(
            f"--reuse-from: {config.name} is a suite of datasets; reuse works for a single-dataset config"
        )
    check_execution_device(config.execution, config.methods)
    jobs = bounded_workers(jobs, config.execution, notify)
    if config.is_suite and (first := no_dataset_here(config)) is not None:
        raise DataError(f"no dataset of suite {config.name} has its files here, e.g. {first}")
    directory = experiment_directory(config, out_dir)
    prepare_folder(directory)
    with folder_lock(directory, wait=wait, notify=notify):
        write_run_file(config, directory)
        members = _plan_members(
            config, directory, offline=offline, retry_failed=retry_failed, notify=notify, reuse_from=reuse_from
        )
        outcome = _run_members(
            config,
            directory,
            members,
            jobs=jobs,
            offline=offline,
            progress=progress or NoProgress(),
            fail_fast=fail_fast,
            notify=notify,
        )
        return _compacted(members, outcome, notify)


def _compacted(members: list[_Member], outcome: RunOutcome, notify: Callable[[str], None]) -> RunOutcome:
    """``outcome`` once each dataset's journal is folded into its table (:meth:`ResultStore.compact`); an error
    (or an interrupt) doing so is its ``stopped_by`` unless one stopped the run already. Either way the records
    stay in the journal until the table holds them."""
    try:
        for member in members:
            for message in member.store.compact():
                notify(message)
    except BaseException as error:  # noqa: BLE001 - raised by the caller after the tables, as in _run_members
        if outcome.stopped_by is None:
            return replace(outcome, stopped_by=error)
    return outcome


def _plan_members(
    config: Config,
    directory: Path,
    *,
    offline: bool,
    retry_failed: bool,
    notify: Callable[[str], None],
    reuse_from: Path | None,
) -> list[_Member]:
    """Each dataset's store, cells and cells to run; a single dataset is loaded (and ``reuse_from`` copied) here,
    before any worker starts, so that its data's problems are said first."""
    if not config.is_suite:
        store = ResultStore(directory)
        for message in store.compact():
            notify(message)
        write_environment(directory, notify, gpu_used=uses_cuda(config.execution, config.methods))
        dataset = load_checked_dataset(config, offline)
        member = _Member(config.name, config, store, plan_cells(config), dataset=dataset)
        if reuse_from is not None:
            copied = reuse_records(store, Path(reuse_from), member.cells, data_fingerprint(dataset))
            notify(f"reused {copied} finished cells of {reuse_from}")
        member.todo = cells_to_run(member.cells, store.load(), retry_failed)
        return [member]
    members = []
    for label, member_config in config.members():
        store = ResultStore(directory / label)
        for message in store.compact():
            notify(message)
        cells = plan_cells(member_config)
        members.append(
            _Member(
                label,
                member_config,
                store,
                cells,
                cells_to_run(cells, store.load(), retry_failed),
                missing=missing_files(member_config),
            )
        )
    return members


def _run_members(
    config: Config,
    directory: Path,
    members: list[_Member],
    *,
    jobs: int,
    offline: bool,
    progress: PlainProgress,
    fail_fast: bool,
    notify: Callable[[str], None],
) -> RunOutcome:
    present_members = [m for m in members if m.missing is None]
    n_cells = sum(len(m.cells) for m in present_members)
    # With nothing to run, no cluster to start or reach.
    execution = config.execution if any(m.todo for m in present_members) else ExecutionConfig()
    skipped: list[tuple[str, str]] = []
    ran_members: list[_Member] = []
    stopped_by = None
    try:
        with open_backend(execution, jobs, directory / WORKER_LOG) as backend:
            progress.start(n_cells, n_cells - sum(len(m.todo) for m in present_members))
            ran: list[dict] = []
            try:
                for member in members:
                    if member.missing is not None:
                        if os.environ.get(REQUIRE_DATA) == "1":
                            raise DataError(
                                f"dataset {member.label} of suite {config.name}: {member.missing} "
                                f"({REQUIRE_DATA}=1 makes a missing dataset an error)"
                            )
                        notify(f"skipped dataset {member.label}: {member.missing}")
                        skipped.append((member.label, member.missing))
                        continue
                    prepare_folder(member.store.directory)
                    if member.dataset is None:
                        member.dataset = load_checked_dataset(member.config, offline)
                    ran_members.append(member)
                    write_provenance(member.dataset, member.store.directory)
                    if _execute(
                        member.config,
                        member.dataset,
                        member.store,
                        backend,
                        member.todo,
                        progress,
                        ran,
                        fail_fast=fail_fast,
                        jobs=jobs,
                    ):
                        break
            finally:
                progress.close()
                for line in warning_summary(ran) + degenerate_summary(ran) + not_converged_summary(ran):
                    notify(line)
    except BaseException as error:  # noqa: BLE001 - whatever stopped the run is raised by the caller, after the tables
        stopped_by = error
    return _outcome(config, directory, members, ran_members, skipped, stopped_by)


def _outcome(
    config: Config,
    directory: Path,
    members: list[_Member],
    ran_members: list[_Member],
    skipped: list[tuple[str, str]],
    stopped_by: BaseException | None,
) -> RunOutcome:
    """What the run did; the datasets not reached still give their stored records (a suite's tables use them)."""
    ran_labels = {m.label for m in ran_members}
    runs = [
        MemberRun(
            m.label,
            m.config,
            m.store.directory,
            planned_records(m.config, m.store.load(), m.cells),
            _provenance(m) if m.label in ran_labels else None,
        )
        for m in members
        if m.label in ran_labels or (m.label not in dict(skipped) and m.store.exists())
    ]
    failures = [record for run in runs if run.label in ran_labels for record in run.records if not is_finished(record)]
    return RunOutcome(
        directory=directory,
        n_cells=sum(len(m.cells) for m in members if m.missing is None),
        n_reused=sum(len(m.cells) - len(m.todo) for m in ran_members),
        n_run=sum(len(m.todo) for m in ran_members),
        failures=failures,
        skipped=skipped,
        members=runs,
        is_suite=config.is_suite,
        stopped_by=stopped_by,
    )


def _provenance(member: _Member) -> Provenance:
    """The provenance of a member that ran (:func:`_run_members` loads its data first)."""
    assert member.dataset is not None, "a member runs with its data loaded"
    return member.dataset.provenance


def first_error_kept(stopped: bool):
    """Around the tables written after a run: if an error ``stopped`` the run, one in writing them is dropped,
    so that the first error is the one reported (the disk that refused a record refuses the tables too)."""
    return suppress(KpcaBenchError) if stopped else nullcontext()


def _execute(
    config: Config,
    dataset: Dataset,
    store: ResultStore,
    backend,
    todo: list[Cell],
    progress: PlainProgress,
    ran: list[dict],
    *,
    fail_fast: bool,
    jobs: int,
) -> bool:
    """Run ``todo`` on ``backend``, storing each record as it arrives and adding it to ``ran``;
    True if ``fail_fast`` stopped it at a cell that did not finish."""
    by_key = {cell.key: cell for cell in todo}
    entry = config.dataset
    assert entry is not None, "a suite is run member by member"
    common = {
        "config_hash": config.config_hash(),
        "profile": config.profile,
        "dataset": dataset.name,
        "data_fingerprint": data_fingerprint(dataset),
        "data_files": data_files(dataset),
        "n_rows": int(dataset.X.shape[0]),
        "n_features": int(dataset.X.shape[1]),
        "versions": package_versions(),
    }

    @lru_cache(maxsize=2 * max(jobs, 1) + 1)
    def split_of(seed: int):
        return PROTOCOLS[config.protocol].split(dataset, entry, config.options, seed)

    for records in backend.run(partial(run_task, config=config), tasks_of(todo, config), split_of):
        for record in records:
            record = {**cell_fields(by_key[record["key"]], config), **record, **common}
            store.append(record)
            ran.append(record)
            progress.advance(
                f"{record['method']} trial {record['trial']}" + ("" if is_finished(record) else f" {record['status']}")
            )
        if fail_fast and not all(is_finished(record) for record in records):
            return True
    return False


def planned_records(config: Config, stored: dict[str, dict], cells: list[Cell]) -> list[dict]:
    """The records of ``stored`` (by key) of ``cells``, in planned order (:func:`labelled`)."""
    return [labelled(stored[c.key], c, config) for c in cells if c.key in stored]


RUN_FILE = "run.json"
PROVENANCE_FILE = "provenance.json"


def write_provenance(dataset: Dataset, directory: Path) -> None:
    """``provenance.json``: where the run's data came from (source, notes), for rebuilding its tables later."""
    write_atomic(
        Path(directory) / PROVENANCE_FILE,
        json.dumps({"source": dataset.provenance.source, "notes": dataset.provenance.notes}) + "\n",
    )


def read_provenance(
    config: Config, directory: Path, offline: bool = True, notify: Callable[[str], None] = print_notice
) -> Provenance:
    """The provenance a run wrote, or that of its dataset loaded again (runs from before provenance.json,
    or whose provenance.json is damaged: it is moved aside and ``notify`` says so)."""
    data, damage = read_state(Path(directory) / PROVENANCE_FILE, lambda data: isinstance(data.get("source"), str))
    if data is not None:
        return Provenance(source=data["source"], notes=data.get("notes", ""))
    if damage:
        notify(f"{damage}; the data's provenance is read from the dataset again")
    return load_checked_dataset(config, offline).provenance


def stored_records(config: Config, directory: Path) -> list[dict]:
    """The records of a run's folder for the cells ``config`` plans, under the labels it gives them now."""
    return planned_records(config, ResultStore(directory).load(), plan_cells(config))


def write_run_file(config: Config, directory: Path) -> None:
    """``run.json``: the config as written (its text and where it was read; no text for a config given as a dict
    or a Config; none at all if its file cannot be read), the profile, the command line's trials and seed, and the
    labels of the methods given as estimator objects (``objects``), so that ``kpca-bench report RESULTS_DIR`` and :func:`kpca_bench.load` can
    rebuild the tables, or say what they need to."""
    text = None
    if config.source and not config.source.startswith("<"):
        try:
            text = Path(config.source).read_text()
        except OSError:
            return
    run = {
        "source": config.source,
        "profile": config.profile,
        "trials": config.trials,
        "seed": config.seed,
        "config": text,
        "objects": [m.label for m in config.methods if m.estimator_class is not None],
    }
    write_atomic(directory / RUN_FILE, json.dumps(run, indent=1) + "\n")
