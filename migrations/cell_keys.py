"""Records tables from cell keys of schema 1 to schema 2, with every number and summary unchanged.

Schema 1 (kpca-bench until 2026-11) keyed a cell by a hash of the JSON of its config entries, two of them the
``repr()`` of a dataclass (``DatasetConfig``, ``ThresholdConfig``), fields added to them after results were
committed shown only when set, a declared sign only when given, and the seed in the key only for a cell that
took its fit group's seed. The config hash likewise left out the dataset fields added later at their defaults
and an undeclared sign. Schema 2 (:func:`kpca_bench.experiment.planning.cell_key`,
:meth:`kpca_bench.experiment.config.Config.config_hash`) hashes plain values with a schema version: every field
the config writes, the cell's two seeds. Seeds are not keys: they stay as they were, so no number moves.

Schema 1 is frozen here, as it was, so that the old keys can be recomputed from the configs:

    python migrations/cell_keys.py RESULTS                   # migrate every folder of schema-1 records under RESULTS
    python migrations/cell_keys.py --drop-unplanned results  # how the committed results were migrated
    python migrations/cell_keys.py --check results           # make check: every table of schema 2, every record planned

A folder's records (its table and the journal of an unfinished run) are matched to configs by their schema-1
config hash among the shipped configs (their profiles and suite members) and by the folder's ``run.json``.
Each record gets its cell's new key, the new config hash, the new key of the cell whose fit it shared
(``fit_shared_with``), and the flags that schema 1's readers derived from its fields (a model without
components, a fit stopped on its iteration limit), now stored. A folder no config plans, or with records of
cells no config plans (unless ``--drop-unplanned``), is refused: nothing is written for it. So is one whose
planned records would read differently. ``--check`` recomputes each generic summary from the migrated records
and compares it with the committed ``summary.csv``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import asdict
from pathlib import Path

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import Cell, cell_key_options, derive_seed, plan_cells
from kpca_bench.experiment.record_table import SCHEMA_VERSION, read_records, schema_version, write_records
from kpca_bench.experiment.runner import RUN_FILE, labelled
from kpca_bench.experiment.store import RECORDS_FILE, TABLE_FILE, atomic_output, parse_record
from kpca_bench.protocols.base import NO_COMPONENTS, with_flags
from kpca_bench.report import PROTOCOL_SUMMARIES, run_tables
from kpca_bench.report.rebuild import config_of_run

ROOT = Path(__file__).resolve().parents[1]
# Where a run without run.json finds its config: the configs, and those of every reproduction.
CONFIG_FOLDERS = [ROOT / "configs", *sorted((ROOT / "reproductions").glob("*/configs"))]
OLD_SCHEMA = 1

# Schema 1's DatasetConfig repr: these fields in this order, the last four only where they differ from
# their default.
OLD_DATASET_FIELDS = (
    "name",
    "options",
    "scaling",
    "inliers",
    "outliers",
    "train_inliers",
    "test_inliers",
    "test_outliers",
    "max_rows",
    "default_classes",
    "scaling_rows",
    "draw",
)
OLD_LATER_DEFAULTS = {"max_rows": None, "default_classes": False, "scaling_rows": "training", "draw": "random"}
OLD_HASHED_CONFIG_FIELDS = {"name", "dataset", "protocol", "methods", "threshold", "seed", "protocol_options"}
OLD_METHOD_FIELDS = {
    "name",
    "label",
    "params",
    "grid",
    "score",
    "trials",
    "higher_is",
    "estimator_class",
    "import_folders",
}


def old_hash(obj) -> str:
    text = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def old_dataset_fields(dataset) -> dict:
    values = {name: getattr(dataset, name) for name in OLD_DATASET_FIELDS}
    return {
        name: value
        for name, value in values.items()
        if name not in OLD_LATER_DEFAULTS or value != OLD_LATER_DEFAULTS[name]
    }


def old_dataset_repr(dataset) -> str:
    return f"DatasetConfig({', '.join(f'{name}={value!r}' for name, value in old_dataset_fields(dataset).items())})"


def old_threshold_repr(threshold) -> str:
    return f"ThresholdConfig(rule={threshold.rule!r}, quantile={threshold.quantile!r}, value={threshold.value!r})"


def old_config_hash(config: Config) -> str:
    """Schema 1's :meth:`Config.config_hash`."""
    data = asdict(config)
    for key in (
        "trials",
        "output",
        "source",
        "description",
        "reference",
        "profile",
        "execution",
        "options",
        "datasets",
        "suite",
        "statistics",
    ):
        data.pop(key)
    if set(data) != OLD_HASHED_CONFIG_FIELDS:
        raise SystemExit(
            f"Config's fields changed since schema 1 ({sorted(set(data) ^ OLD_HASHED_CONFIG_FIELDS)}): "
            "freeze schema 1's fields here"
        )
    if config.is_suite:
        data["dataset"] = None
        data["datasets"] = [old_dataset_fields(d) for d in config.datasets]
        data["suite"] = asdict(config.suite) if config.suite else None
    else:
        data["dataset"] = old_dataset_fields(config.dataset)
    for method in data["methods"]:
        if set(method) != OLD_METHOD_FIELDS:
            raise SystemExit("MethodConfig's fields changed since schema 1: freeze schema 1's fields here")
        if method["higher_is"] is None:
            del method["higher_is"]
        del method["estimator_class"], method["import_folders"]
    return old_hash(data)


def old_cell_keys(config: Config, cells: list[Cell]) -> list[str]:
    """Schema 1's key of each of ``cells`` (:func:`plan_cells` of ``config``: their seeds are those of both
    schemas)."""
    data_part = {
        "dataset": old_dataset_repr(config.dataset),
        "protocol": config.protocol,
        "threshold": old_threshold_repr(config.threshold),
        "seed": config.seed,
    }
    keyed_options = cell_key_options(config)
    if keyed_options:
        data_part["protocol_options"] = keyed_options
    keys = []
    for cell in cells:
        method = config.methods[cell.method_index]
        identity = {"method": method.name, "setting": cell.setting, "score": method.score}
        if method.higher_is is not None:
            identity["higher_is"] = method.higher_is
        own_seed = derive_seed(config.seed, cell.trial, identity)
        fit_seed = {} if cell.random_state == own_seed else {"fit_seed": cell.random_state}
        keys.append(old_hash({**data_part, **identity, "trial": cell.trial, **fit_seed}))
    return keys


def old_empty_model(record: dict) -> dict:
    """Schema 1's reader's flag of a model without components, for a finished record stored before the flag was
    recorded: its ``sparsity`` 0 % (every dual coefficient zero)."""
    if record.get("status") != "ok" or record.get("sparsity") != 0 or NO_COMPONENTS in (record.get("degenerate") or ""):
        return {}
    count = record.get("params", {}).get("n_components")
    counted = f"{count} of {count}" if isinstance(count, int) else "all"
    return {"degenerate": f"{NO_COMPONENTS}: {counted} empty (stored sparsity 0 %)"}


# Schema 1's reading of a ConvergenceWarning that names the iteration limit a fit stopped on, and the default
# ``max_iter`` of the registered methods that have one, as they were.
OLD_ITERATION_LIMIT = re.compile(r"(?P<name>max_\w+)\s*=\s*(?P<value>\d+)|stopped after (?P<restarts>\d+) restarts")
OLD_DEFAULT_MAX_ITER = {"skpca_enet": 6, "skpca_l1": 300, "skpca_l21": 300, "l1_kpca": 100, "ocsvm": -1}


def old_limit_flag(message: str, n_iter) -> dict:
    """Schema 1's flag of a fit whose ConvergenceWarning ``message`` names the limit it stopped on, else ``{}``."""
    found = OLD_ITERATION_LIMIT.search(message or "")
    if found is None:
        return {}
    name, value = ("max_restarts", found["restarts"]) if found["restarts"] else (found["name"], found["value"])
    ran = f", {n_iter:g} iterations" if isinstance(n_iter, (int, float)) and n_iter != int(value) else ""
    return {"not_converged": f"stopped at {name} = {value}{ran} (ConvergenceWarning)"}


def old_iteration_limit(record: dict) -> dict:
    """Schema 1's reader's flag of a fit stopped on its iteration limit, for a finished record stored before the
    flag was recorded: its ConvergenceWarning names the limit, or its ``n_iter`` equals its ``max_iter``."""
    if record.get("status") != "ok" or record.get("not_converged"):
        return {}
    message = (record.get("warning_messages") or {}).get("ConvergenceWarning")
    if not message:
        return {}
    flag = old_limit_flag(message, record.get("n_iter"))
    params = record.get("params") or {}
    limit = (
        params["max_iter"]
        if isinstance(params.get("max_iter"), int)
        else OLD_DEFAULT_MAX_ITER.get(record.get("method_name"))
    )
    if not flag and limit is not None and record.get("n_iter") == limit:
        return {"not_converged": f"stopped at max_iter = {limit} (n_iter = max_iter, with a ConvergenceWarning)"}
    return flag


def shipped_configs() -> list[Config]:
    """Every committed experiment config (configs/, reproductions/, benchmarks/), at each of its profiles, and each
    suite's members."""
    import yaml

    paths = sorted(
        path
        for folder in ("configs", "reproductions", "benchmarks")
        for path in (ROOT / folder).glob("**/*.yaml")
        if "methods" in (yaml.safe_load(path.read_text()) or {})
    )
    configs = []
    for path in paths:
        profiles = yaml.safe_load(path.read_text()).get("profiles") or {}
        for profile in ("full", *profiles):
            configs += [member for _, member in load_config(path, profile).members()]
    return configs


def key_maps(configs: list[Config]) -> tuple[dict[str, str], dict[str, list[Config]]]:
    """The schema-2 key of the schema-1 key of every cell the configs plan (a cell planned by two configs has one
    key in each schema), and the configs by schema-1 config hash."""
    keys: dict[str, str] = {}
    by_hash: dict[str, list[Config]] = {}
    for config in configs:
        cells = plan_cells(config)
        for old, cell in zip(old_cell_keys(config, cells), cells):
            if keys.setdefault(old, cell.key) != cell.key:
                raise SystemExit(f"{config.name}: a schema-1 key stands for two cells of schema 2")
        by_hash.setdefault(old_config_hash(config), []).append(config)
    return keys, by_hash


def migrated(record: dict, keys: dict[str, str], config_hashes: dict[str, str]) -> dict:
    """A schema-1 record in schema 2: its new key, its new config hash (where its config is still shipped: the
    hash of one that is not cannot be recomputed and stays as written), the new key of the cell whose fit it
    shared, and schema 1's derived flags stored."""
    record = with_flags(record, old_empty_model(record), old_iteration_limit(record))
    record = {
        **record,
        "key": keys[record["key"]],
        "config_hash": config_hashes.get(record["config_hash"], record["config_hash"]),
    }
    if "fit_shared_with" in record:
        if record["fit_shared_with"] not in keys:
            raise SystemExit(f"a record of {record['method']} shared the fit of a cell no config plans now")
        record["fit_shared_with"] = keys[record["fit_shared_with"]]
    return dict(sorted(record.items()))


def stored_records(folder: Path) -> list[dict]:
    """A folder's records of schema 1: its table's, then its journal's (an unfinished run's), the journal winning
    for a key. A damaged line of the journal is refused: migrating would lose its cell."""
    journal, path = folder / RECORDS_FILE, folder / TABLE_FILE
    lines = journal.read_bytes().splitlines(keepends=True) if journal.exists() else []
    journaled = [parse_record(line) for line in lines]
    if None in journaled:
        raise SystemExit(f"{journal}: line {journaled.index(None) + 1} is damaged; move it aside, then migrate")
    by_key = {record["key"]: record for record in (read_records(path, OLD_SCHEMA) if path.exists() else [])}
    return list({**by_key, **{record["key"]: record for record in journaled}}.values())


def run_config(folder: Path) -> list[Config]:
    """The config the folder's run (or, for a suite's dataset folder, its suite's) names in its ``run.json``, as
    a one-dataset config; none where there is no such file or it holds no config text."""
    run = folder if (folder / RUN_FILE).exists() else folder.parent
    if not (run / RUN_FILE).exists():
        return []
    try:
        config = config_of_run(
            run, [ROOT / "configs", *sorted((ROOT / "reproductions").glob("*/configs"))], lambda line: None
        )
    except KpcaBenchError:
        return []
    return [member for label, member in config.members() if run == folder or label == folder.name]


def migrate_folder(
    folder: Path, keys: dict[str, str], by_hash: dict[str, list[Config]], drop_unplanned: bool = False
) -> str:
    """Migrate one folder's records of schema 1 (its table and any journal) and say what was done.

    Its configs are the shipped ones of its records' config hashes and the one its ``run.json`` names. A folder
    none of them plans is refused, as is one with records of cells none of them plans unless ``drop_unplanned``
    (entries removed from a config since: no report reads them). The records each config plans must be the same
    under both rules (:func:`same_planned_records`). Nothing is written for a folder that fails a check.
    """
    records = stored_records(folder)
    configs = [config for old in {record["config_hash"] for record in records} for config in by_hash.get(old, [])]
    own = run_config(folder)
    keys = dict(keys)
    for config in own:
        cells = plan_cells(config)
        keys.update(zip(old_cell_keys(config, cells), (cell.key for cell in cells)))
    config_hashes = {
        **{old: found[0].config_hash() for old, found in by_hash.items()},
        **{old_config_hash(config): config.config_hash() for config in own},
    }
    configs += own
    if not configs:
        raise SystemExit(
            f"{folder}: no config plans its records (none shipped of their config hash, no run.json); nothing written"
        )
    kept = [record for record in records if record["key"] in keys]
    if len(kept) < len(records) and not drop_unplanned:
        raise SystemExit(
            f"{folder}: {len(records) - len(kept)} of its {len(records)} records are of cells no config "
            "plans (entries removed since?); nothing written. --drop-unplanned leaves them out"
        )
    new = [migrated(record, keys, config_hashes) for record in kept]
    if len({record["key"] for record in new}) != len(new):
        raise SystemExit(f"{folder}: two records would share a key")
    for config in configs:
        same_planned_records(folder, config, kept, new)
    path = folder / TABLE_FILE
    with atomic_output(path) as tmp:
        write_records(tmp, new)
    if read_records(path) != new:
        raise SystemExit(f"{path}: the table written does not read back as the migrated records")
    (folder / RECORDS_FILE).unlink(missing_ok=True)
    left = f", {len(records) - len(kept)} of cells no config plans left out" if len(kept) < len(records) else ""
    return f"{folder}: {len(new)} records migrated{left}; planned records the same for {len(configs)} configs"


def same_planned_records(folder: Path, config: Config, old: list[dict], new: list[dict]) -> None:
    """The records the reports read (those of planned cells, labelled and flagged) are the same under schema 1's
    rule from ``old`` and schema 2's from ``new``, but for the migrated fields."""
    cells = plan_cells(config)
    old_by_key = {record["key"]: record for record in old}
    new_by_key = {record["key"]: record for record in new}
    old_keys = dict(zip((cell.key for cell in cells), old_cell_keys(config, cells)))
    before = [
        with_flags(
            labelled(old_by_key[old_keys[c.key]], c, config),
            old_empty_model(old_by_key[old_keys[c.key]]),
            old_iteration_limit(old_by_key[old_keys[c.key]]),
        )
        for c in cells
        if old_keys[c.key] in old_by_key
    ]
    after = [labelled(new_by_key[c.key], c, config) for c in cells if c.key in new_by_key]
    moved = ("key", "config_hash", "fit_shared_with")
    if len(before) != len(after) or any(
        {k: v for k, v in b.items() if k not in moved} != {k: v for k, v in a.items() if k not in moved}
        for b, a in zip(before, after)
    ):
        raise SystemExit(f"{folder}: the planned records differ after migration")


def check_folder(folder: Path, planned: set[str], by_hash: dict[str, Config]) -> bool:
    """A folder's table of schema 2: each record of a cell a shipped config plans; and, for the config of the
    folder's name among its records' (where its summary is the generic one), ``summary.csv`` what its records
    give (True where it was compared)."""
    records = read_records(folder / TABLE_FILE)
    unplanned = [record["key"] for record in records if record["key"] not in planned]
    if unplanned:
        raise SystemExit(f"{folder}: {len(unplanned)} records of cells no shipped config plans")
    configs = [by_hash[h] for h in {record["config_hash"] for record in records} if h in by_hash]
    summary = folder / "summary.csv"
    for config in configs:
        if (
            config.name in (folder.name, folder.parent.name)
            and config.protocol not in PROTOCOL_SUMMARIES
            and summary.is_file()
        ):
            by_key = {record["key"]: record for record in records}
            cells = plan_cells(config)
            tables = run_tables(config, [labelled(by_key[c.key], c, config) for c in cells if c.key in by_key])
            if tables.summary.to_csv(index=False) != summary.read_text():
                raise SystemExit(f"{summary} is not what its records give")
            return True
    return False


def tables(roots: list[Path]) -> list[Path]:
    """The folders under ``roots`` that hold records: a table, a journal or both."""
    return sorted(
        {path.parent for root in roots for name in (TABLE_FILE, RECORDS_FILE) for path in root.glob(f"**/{name}")}
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path, help="results folders, searched for records tables")
    parser.add_argument("--check", action="store_true", help="migrate nothing: check every table is of schema 2")
    parser.add_argument(
        "--drop-unplanned",
        action="store_true",
        help="leave out the records of cells no config plans (else such a folder is refused)",
    )
    args = parser.parse_args(argv)
    configs = shipped_configs()
    folders = tables(args.roots)
    if args.check:
        planned = {cell.key for config in configs for cell in plan_cells(config)}
        by_hash: dict[str, Config] = {}
        for config in configs:  # the full profile first: the profiles of one config differ in trials only
            by_hash.setdefault(config.config_hash(), config)
        compared = 0
        for folder in folders:
            if not (folder / TABLE_FILE).exists() or schema_version(folder / TABLE_FILE) != SCHEMA_VERSION:
                raise SystemExit(
                    f"{folder / TABLE_FILE}: not schema {SCHEMA_VERSION}; migrate it: "
                    f"python migrations/cell_keys.py {folder}"
                )
            compared += check_folder(folder, planned, by_hash)
        records = sum(len(read_records(folder / TABLE_FILE)) for folder in folders)
        print(
            f"{len(folders)} records tables of schema {SCHEMA_VERSION}, {records} records, each of a cell a shipped "
            f"config plans; {compared} generic summaries (summary.csv) what their records give"
        )
        return 0
    keys, by_hash = key_maps(configs)
    for folder in folders:
        table = folder / TABLE_FILE
        if not table.exists() or schema_version(table) == OLD_SCHEMA:
            print(migrate_folder(folder, keys, by_hash, args.drop_unplanned))
    return 0


if __name__ == "__main__":
    sys.exit(main())
