"""The migration of records tables from cell keys of schema 1 to schema 2 (``migrations/cell_keys.py``): a run's
table taken back to schema 1 by the frozen rule comes out of the migration as it was (with its journal, and by the
config its run.json holds where no shipped config is its), schema 1's derived flags are stored, and a folder it
cannot account for is refused with nothing written.

No real data: the small example file shipped in kpca_bench/configs/examples/data (180 rows, 4 features).
"""

from pathlib import Path

import json
import shutil

import pyarrow.parquet as pq
import pytest
import yaml

import kpca_bench
from kpca_bench.errors import StorageError
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.experiment.record_table import SCHEMA_KEY, read_records, records_table
from kpca_bench.experiment.store import RECORDS_FILE, TABLE_FILE, ResultStore
from migrations.cell_keys import (
    check_folder,
    key_maps,
    migrate_folder,
    migrated,
    old_cell_keys,
    old_config_hash,
    old_empty_model,
    old_iteration_limit,
)

DATA = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data" / "example.npz"
KPCA = {"n_components": 4, "gamma": "mean_pairwise", "eigen_solver": "arpack"}
# Two entries that share their fits (one kernel PCA, two scores) and one that does not; two trials.
GROUPS = {
    "name": "groups",
    "dataset": {"name": "file", "options": {"path": str(DATA)}, "scaling": "minmax", "inliers": [0], "outliers": [1]},
    "protocol": {"name": "adbench", "max_train": 60},
    "trials": 2,
    "seed": 0,
    "methods": [
        {"name": "kpca", "label": "KPCA RE", "params": KPCA, "score": "reconstruction_error"},
        {"name": "kpca", "label": "KPCA MD", "params": KPCA, "score": "mahalanobis"},
        {"name": "knn", "label": "kNN"},
    ],
}
SKPCA_LIMIT = (
    "SKPCA stopped after max_iter=6 alternations before the relative change of beta fell below tol=0.001; "
    "raise max_iter for a converged solution"
)
LARS = "Early stopping the lars path, as the residues are small and the current value of alpha is no longer well "


def write_schema_1(folder, records: list[dict]) -> None:
    table = records_table(records)
    pq.write_table(table.replace_schema_metadata({**table.schema.metadata, SCHEMA_KEY: b"1"}), folder / TABLE_FILE)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A run of two entries that share their fits and one that does not, two trials: its config, folder, records."""
    folder = tmp_path_factory.mktemp("run")
    (folder / "groups.yaml").write_text(yaml.safe_dump(GROUPS))
    results = kpca_bench.run(folder / "groups.yaml", out=folder, html=False, notify=lambda message: None)
    return results.config, results.folder, read_records(results.folder / TABLE_FILE)


def schema_1_copy(finished, folder, extra=()):
    """A copy of the run's folder with its records as schema 1 stored them (and ``extra`` records)."""
    groups, directory, records = finished
    shutil.copytree(directory, folder)
    write_schema_1(folder, [*as_schema_1(records, groups), *extra])
    return folder


def as_schema_1(records: list[dict], groups) -> list[dict]:
    """The records as kpca-bench stored them under schema 1."""
    cells = plan_cells(groups)
    old = dict(zip((cell.key for cell in cells), old_cell_keys(groups, cells)))
    return [
        {
            **record,
            "key": old[record["key"]],
            "config_hash": old_config_hash(groups),
            **({"fit_shared_with": old[record["fit_shared_with"]]} if "fit_shared_with" in record else {}),
        }
        for record in records
    ]


def test_a_table_of_schema_1_is_migrated_to_the_records_the_run_wrote_and_its_orphans_left_out(finished, tmp_path):
    groups, directory, records = finished
    assert any("fit_shared_with" in record for record in records)
    orphan = {**records[0], "key": "0123456789abcdef"}
    folder = schema_1_copy(finished, tmp_path / "groups", [orphan])
    with pytest.raises(StorageError, match="migrations/cell_keys.py"):
        ResultStore(folder).load()
    with pytest.raises(SystemExit, match=f"1 of its {len(records) + 1} records are of cells no config plans"):
        migrate_folder(folder, *key_maps([groups]))
    said = migrate_folder(folder, *key_maps([groups]), drop_unplanned=True)
    assert said.endswith(
        f"{len(records)} records migrated, 1 of cells no config plans left out; planned records the same for 2 configs"
    )
    assert read_records(folder / TABLE_FILE) == records
    planned, by_hash = {cell.key for cell in plan_cells(groups)}, {groups.config_hash(): groups}
    assert check_folder(folder, planned, by_hash) is True  # the run's summary.csv is what its records give


def test_a_run_of_a_config_no_one_ships_is_migrated_by_the_config_its_run_json_holds(finished, tmp_path):
    folder = schema_1_copy(finished, tmp_path / "groups")
    assert migrate_folder(folder, {}, {}).endswith("planned records the same for 1 configs")
    assert read_records(folder / TABLE_FILE) == finished[2]


def test_a_folder_no_config_accounts_for_is_refused_and_left_as_it_was(finished, tmp_path):
    folder = schema_1_copy(finished, tmp_path / "groups")
    (folder / "run.json").unlink()
    before = (folder / TABLE_FILE).read_bytes()
    with pytest.raises(SystemExit, match="no config plans its records"):
        migrate_folder(folder, {}, {})
    assert (folder / TABLE_FILE).read_bytes() == before


def test_the_journal_of_an_unfinished_run_is_migrated_with_its_table_and_removed(finished, tmp_path):
    groups, _, records = finished
    folder = schema_1_copy(finished, tmp_path / "groups")
    old = as_schema_1(records, groups)
    write_schema_1(folder, old[:5])
    (folder / RECORDS_FILE).write_text("".join(json.dumps(record) + "\n" for record in old[5:]))
    migrate_folder(folder, {}, {})
    assert sorted(r["key"] for r in read_records(folder / TABLE_FILE)) == sorted(r["key"] for r in records)
    assert not (folder / RECORDS_FILE).exists()
    (folder / RECORDS_FILE).write_text(json.dumps(old[0]) + "\n" + '{"key": "cut')
    with pytest.raises(SystemExit, match="line 2 is damaged"):
        migrate_folder(folder, {}, {})


def test_a_migration_that_would_change_what_the_reports_read_writes_nothing(finished, tmp_path):
    groups, _, records = finished
    schema_1 = as_schema_1(records, groups)
    write_schema_1(tmp_path, schema_1)
    keys, by_hash = key_maps([groups])
    first_cell = plan_cells(groups)[0]
    keys[old_cell_keys(groups, [first_cell])[0]] = plan_cells(groups)[1].key  # a wrong map: two cells swapped
    keys[old_cell_keys(groups, plan_cells(groups)[1:2])[0]] = first_cell.key
    with pytest.raises(SystemExit, match="differ after migration"):
        migrate_folder(tmp_path, keys, by_hash)
    assert read_records(tmp_path / TABLE_FILE, 1) == schema_1


def test_schema_1s_derived_flags_are_stored_by_the_migration():
    record = {"key": "a", "config_hash": "h", "status": "ok", "sparsity": 0, "params": {"n_components": 2}}
    assert migrated(record, {"a": "b"}, {"h": "g"}) == {
        **record,
        "key": "b",
        "config_hash": "g",
        "degenerate": "no components: 2 of 2 empty (stored sparsity 0 %)",
    }


@pytest.mark.parametrize(
    "record, flag",
    [
        (
            {"status": "ok", "sparsity": 0.0, "params": {"n_components": 15}},
            "no components: 15 of 15 empty (stored sparsity 0 %)",
        ),
        ({"status": "ok", "sparsity": 0.0, "params": {}}, "no components: all empty (stored sparsity 0 %)"),
        ({"status": "ok", "sparsity": 0.01, "params": {"n_components": 15}}, None),
        ({"status": "ok", "params": {}}, None),
        ({"status": "failed", "sparsity": 0.0, "params": {}}, None),
        ({"status": "ok", "sparsity": 0.0, "params": {}, "degenerate": "no components: 3 of 3 empty"}, None),
    ],
)
def test_a_stored_record_with_no_non_zero_coefficient_is_read_as_a_model_without_components(record, flag):
    assert old_empty_model(record).get("degenerate") == flag


def stored(message, n_iter, **fields):
    """An SKPCA record as the committed suites store it: its warnings' first messages and its iterations."""
    return {
        "status": "ok",
        "method_name": "skpca_enet",
        "params": {"n_components": 10},
        "n_iter": n_iter,
        "warnings": {"ConvergenceWarning": 2},
        "warning_messages": {"ConvergenceWarning": message},
        **fields,
    }


@pytest.mark.parametrize(
    "record, flag",
    [
        (stored(SKPCA_LIMIT, 6.0), "stopped at max_iter = 6 (ConvergenceWarning)"),
        # LARS's warning came first: n_iter at SKPCA's default max_iter (6) is the limit reached.
        (stored(LARS, 6.0), "stopped at max_iter = 6 (n_iter = max_iter, with a ConvergenceWarning)"),
        (
            stored(LARS, 20.0, params={"max_iter": 20}),
            "stopped at max_iter = 20 (n_iter = max_iter, with a ConvergenceWarning)",
        ),
        (stored(LARS, 4.0), None),  # stopped on its tolerance before the limit
        (stored(SKPCA_LIMIT, 6.0, status="failed"), None),
        (stored(SKPCA_LIMIT, 6.0, not_converged="stopped at max_iter = 6 (ConvergenceWarning)"), None),  # has it
        (
            {
                "status": "ok",
                "method_name": "nystrom_kpca",
                "params": {},
                "warning_messages": {
                    "ConvergenceWarning": "Number of distinct clusters (148) found smaller than n_clusters"
                },
            },
            None,
        ),
        ({"status": "ok", "method_name": "kpca", "params": {}}, None),
    ],
)
def test_a_stored_record_is_read_as_not_converged_from_its_warning_and_iterations(record, flag):
    assert old_iteration_limit(record).get("not_converged") == flag
