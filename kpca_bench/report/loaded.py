"""A finished run's tables read back from its folder (:func:`kpca_bench.load`): computed from its records, as
the run computed them, with nothing run or written.

The config is the one the folder's ``run.json`` holds (:func:`~kpca_bench.report.rebuild.config_of_run`). The
trials, the summary and a suite's tables across datasets are computed from the records
(:mod:`kpca_bench.experiment.store`); a protocol that writes a summary of its own
(:data:`~kpca_bench.report.PROTOCOL_SUMMARIES`) gives it as its ``summary.csv`` holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from kpca_bench.datasets import Provenance
from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.progress import print_notice
from kpca_bench.experiment.runner import PROVENANCE_FILE, MemberRun, RunOutcome, missing_files, planned_records
from kpca_bench.experiment.planning import is_finished, plan_cells
from kpca_bench.experiment.store import TABLE_FILE, ResultStore, read_state
from kpca_bench.report import PROTOCOL_SUMMARIES, Tables, run_tables
from kpca_bench.report.rebuild import config_of_run
from kpca_bench.report.suite import suite_tables


def read_run(
    directory, notify: Callable[[str], None] = print_notice, given: Config | None = None
) -> tuple[Config, RunOutcome, Tables]:
    """The config, the outcome and the tables of the run whose results folder is ``directory``, under the config
    its ``run.json`` holds or ``given`` (:func:`~kpca_bench.report.rebuild.config_of_run`).

    The outcome is that of a run that found every stored cell and ran none (``n_run`` 0), its ``failures``
    the stored failed cells, a suite's ``skipped`` its datasets without records. A one-line
    :class:`KpcaBenchError` if ``directory`` is no folder of results or holds no records of its config.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise KpcaBenchError(f"{directory} is not a folder of results; give the folder a run wrote, OUT/<name>")
    config = config_of_run(directory, notify=notify, given=given)
    if not config.is_suite:
        member, n_cells = loaded_member(config.name, config, directory)
        if not member.records:
            raise KpcaBenchError(f"{directory} has no records of {config.name}'s cells")
        return config, outcome_of(config, directory, [member], n_cells, []), single_tables(config, member)
    members, n_cells, skipped = [], 0, []
    for label, member_config in config.members():
        if ResultStore(directory / label).exists():
            member, planned = loaded_member(label, member_config, directory / label)
            members.append(member)
            n_cells += planned
        else:
            skipped.append((label, missing_files(member_config) or "no records (not run yet)"))
    if not members:
        raise KpcaBenchError(f"{directory}: none of the suite's datasets has records ({TABLE_FILE})")
    return config, outcome_of(config, directory, members, n_cells, skipped), suite_of(config, members)


def loaded_member(label: str, config: Config, directory: Path) -> tuple[MemberRun, int]:
    """One dataset's folder as the run left it (its records of the cells ``config`` plans and its provenance), and
    the number of cells ``config`` plans; the store is read and the cells planned once."""
    cells = plan_cells(config)
    records = planned_records(config, ResultStore(directory).load(), cells)
    return MemberRun(label, config, directory, records, stored_provenance(directory)), len(cells)


def stored_provenance(directory: Path) -> Provenance | None:
    """The provenance the run wrote (None where it wrote none or it is damaged: nothing is loaded to find it)."""
    data, _ = read_state(directory / PROVENANCE_FILE, lambda data: isinstance(data.get("source"), str))
    return None if data is None else Provenance(source=data["source"], notes=data.get("notes", ""))


def outcome_of(
    config: Config, directory: Path, members: list[MemberRun], n_cells: int, skipped: list[tuple[str, str]]
) -> RunOutcome:
    """The outcome of a run of ``n_cells`` planned cells that reused every stored cell of ``members`` and ran none."""
    return RunOutcome(
        directory=directory,
        n_cells=n_cells,
        n_reused=sum(len(member.records) for member in members),
        n_run=0,
        failures=[r for member in members for r in member.records if not is_finished(r)],
        skipped=skipped,
        members=members,
        is_suite=config.is_suite,
    )


def single_tables(config: Config, member: MemberRun) -> Tables:
    """One dataset's trials and summary (its protocol's own summary as ``summary.csv`` holds it)."""
    tables = run_tables(config, member.records)
    own_summary = member.directory / "summary.csv"
    if config.protocol in PROTOCOL_SUMMARIES and own_summary.is_file():
        return Tables(tables.trials, pd.read_csv(own_summary))
    return tables


def suite_of(config: Config, members: list[MemberRun]) -> Tables:
    """A suite's tables: every dataset's trials (with a ``dataset`` column) and its tables across datasets."""
    trials = pd.concat(
        [run_tables(m.config, m.records).trials.assign(dataset=m.label) for m in members], ignore_index=True
    )
    suite = suite_tables(config, {member.label: member.records for member in members})
    return Tables.of_suite(trials, suite)
