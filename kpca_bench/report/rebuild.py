"""``kpca-bench report RESULTS_DIR``: rebuild the tables and figures of any run's folder from its records.

The config comes from the folder's ``run.json`` (written by every run since suites were added),
else from the configs folder: the config whose name and hash match the records. A single-dataset
run gets its tables and figures (and its protocol's own); a suite gets every dataset's and its
own statistics across datasets (:mod:`.suite`). Nothing is re-run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from kpca_bench.errors import KpcaBenchError
from kpca_bench.report import write_tables
from kpca_bench.report.suite import dataset_table, rank_frame, rank_table_text, suite_statistics, write_suite_report
from kpca_bench.run.config import Config, load_config, parse_config
from kpca_bench.run.runner import RUN_FILE, missing_files, read_provenance, stored_records
from kpca_bench.run.store import RECORDS_FILE


@dataclass(frozen=True)
class Rebuilt:
    """What ``report RESULTS_DIR`` did: the config, the folders written, and the text for the terminal."""

    config: Config
    folders: list[Path]
    text: str


def config_of_run(directory: Path, config_dir: Path = Path("configs")) -> Config:
    """The config a results folder was run with."""
    run_file = directory / RUN_FILE
    if run_file.exists():
        run = json.loads(run_file.read_text())
        config = parse_config(yaml.safe_load(run["config"]), source=run["source"], profile=run["profile"])
        return config.with_overrides(trials=run.get("trials"), seed=run.get("seed"))
    records = directory / RECORDS_FILE
    if not records.exists():
        raise KpcaBenchError(f"{directory} holds no run: neither {RUN_FILE} nor {RECORDS_FILE}")
    first = next((json.loads(line) for line in records.read_text().splitlines() if line.strip().startswith("{")), {})
    name, wanted, profile = first.get("experiment"), first.get("config_hash"), first.get("profile", "full")
    for path in sorted(Path(config_dir).glob("*.yaml")):
        try:
            config = load_config(path, profile)
        except KpcaBenchError:
            continue
        if config.name == name and (wanted is None or config.config_hash() == wanted):
            return config
    raise KpcaBenchError(f"{directory}: no config in {config_dir} is named {name!r} with hash {wanted}; "
                         "name its folder with --configs")


def rebuild(directory, config_dir: Path = Path("configs")) -> Rebuilt:
    """Rewrite every table and figure of the run in ``directory`` from its records."""
    directory = Path(directory)
    if not directory.is_dir():
        raise KpcaBenchError(f"{directory} is not a folder of results")
    config = config_of_run(directory, config_dir)
    if not config.is_suite:
        records = stored_records(config, directory)
        if not records:
            raise KpcaBenchError(f"{directory} has no records of {config.name}'s cells")
        write_tables(config, records, directory, read_provenance(config, directory))
        summary = directory / "summary.md"
        return Rebuilt(config, [directory], summary.read_text() if summary.exists() else "")
    by_member, skipped, folders = {}, [], []
    for label, member in config.members():
        sub = directory / label
        if not (sub / RECORDS_FILE).exists():
            skipped.append((label, missing_files(member) or "no records (not run yet)"))
            continue
        records = stored_records(member, sub)
        write_tables(member, records, sub, read_provenance(member, sub))
        by_member[label] = records
        folders.append(sub)
    if not by_member:
        raise KpcaBenchError(f"{directory}: none of the suite's datasets has records")
    write_suite_report(config, by_member, skipped, directory)
    ranks = rank_frame(suite_statistics(config, dataset_table(config, by_member)))
    return Rebuilt(config, [directory, *folders], rank_table_text(ranks))
