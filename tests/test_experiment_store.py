"""The records store: damaged lines set aside once and their cells recomputed; atomic writes leave nothing behind."""

import json
import os
import re
import subprocess
import threading
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.errors import StorageError
from kpca_bench.experiment.record_table import read_records, write_records
from kpca_bench.experiment.store import DAMAGED_FILE, ResultStore, atomic_output, read_state, set_aside, write_atomic

QUICKSTART = Path(__file__).parents[1] / "configs" / "quickstart.yaml"
TIMING = ["fit_time", "score_time", "wall_time", "peak_memory_mb"]


def run(out):
    result = CliRunner().invoke(app, ["run", str(QUICKSTART), "--out", str(out), "--quiet", "--trials", "2"])
    assert result.exit_code == 0, result.output + result.stderr
    return result, pd.read_csv(out / "quickstart" / "trials.csv").drop(columns=TIMING)


# Three runs each: the first kind of damage in the quick subset, the others in `make test`.
@pytest.mark.parametrize(
    "damage",
    [
        lambda line: line[: len(line) // 2] + b"\n",  # cut in the middle, then more records
        *(
            pytest.param(damage, marks=pytest.mark.slow)
            for damage in (
                lambda line: b"\x00" * (len(line) - 1) + b"\n",  # zeroed block (a crash of the filesystem)
                lambda line: b'["not", "a", "record"]\n',
                lambda line: b'{"no key": 1}\n',
            )
        ),
    ],
)
def test_a_damaged_middle_line_is_reported_once_set_aside_and_recomputed(tmp_path, damage, as_journal):
    _, complete = run(tmp_path)
    path = as_journal(tmp_path / "quickstart")
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = damage(lines[3])
    path.write_bytes(b"".join(lines))

    result, resumed = run(tmp_path)
    assert result.stderr.count(f"{path}: line 4 is") == 1 and DAMAGED_FILE in result.stderr
    pd.testing.assert_frame_equal(complete, resumed)
    assert (tmp_path / "quickstart" / DAMAGED_FILE).read_bytes().rstrip(b"\n") == lines[3].rstrip(b"\n")
    assert "line 4" not in run(tmp_path)[0].stderr  # reported once


def test_a_cut_last_line_is_set_aside_as_cut_short(tmp_path):
    store = ResultStore(tmp_path)
    store.append({"key": "a", "status": "ok"})
    with store.path.open("ab") as handle:
        handle.write(b'{"key": "b", "sta')
    assert list(store.load()) == ["a"]
    [message] = store.set_aside_damaged()
    assert "line 2 is cut short" in message
    store.append({"key": "c", "status": "ok"})
    assert list(store.load()) == ["a", "c"]


def test_readers_skip_damaged_lines_without_touching_the_file(tmp_path):
    store = ResultStore(tmp_path)
    store.append({"key": "a", "status": "ok"})
    with store.path.open("ab") as handle:
        handle.write(b"garbage\n")
    store.append({"key": "b", "status": "ok"})
    before = store.path.read_bytes()
    assert list(store.load()) == ["a", "b"]
    assert store.path.read_bytes() == before


def test_concurrent_atomic_writes_of_one_file_use_their_own_temporary_files(tmp_path):
    target = tmp_path / "roc.png"
    errors = []

    def write(i):
        try:
            for _ in range(20):
                write_atomic(target, f"writer {i}\n" * 1000)
        except Exception as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(set(target.read_text().splitlines())) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["roc.png"]


def test_a_failed_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "summary.md"
    target.write_text("old")
    with pytest.raises(StorageError, match="summary.md: No space left on device"):
        with atomic_output(target) as tmp:
            tmp.write_text("half")
            raise OSError(28, "No space left on device")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["summary.md"]


def test_atomic_writes_keep_the_usual_permissions(tmp_path):
    write_atomic(tmp_path / "a.csv", "x")
    (tmp_path / "b.csv").write_text("x")
    assert (tmp_path / "a.csv").stat().st_mode == (tmp_path / "b.csv").stat().st_mode


def test_records_round_trip(tmp_path):
    store = ResultStore(tmp_path)
    record = {"key": "k", "status": "ok", "auroc": float("nan"), "params": {"nu": 0.1}}
    store.append(record)
    assert json.dumps(store.load()["k"], sort_keys=True) == json.dumps(record, sort_keys=True)


# Records as runs write them: typed fields, a field missing in some, explicit nulls, NaN and infinities, ints and
# floats in one field, nested mappings, lists of floats (ROC points) and of other values, the run's constants.
MIXED_RECORDS = [
    {
        "key": "a",
        "status": "ok",
        "auroc": 0.75,
        "n_train": 60,
        "flag": True,
        "params": {"nu": 0.1, "kernel": "rbf"},
        "roc_tpr": [0.0, 0.5, 1.0],
        "score": None,
        "n_iter": 3,
        "versions": {"numpy": "2.1"},
        "gap": float("nan"),
        "labels": [1, "b"],
        "seed": 2**40,
    },
    {
        "key": "b",
        "status": "failed",
        "error": "RuntimeError: x",
        "params": {},
        "roc_tpr": [],
        "score": "mahalanobis",
        "n_iter": 2.5,
        "versions": {"numpy": "2.1"},
        "gap": float("inf"),
        "flag": False,
        "seed": 7,
    },
    {
        "key": "c",
        "status": "ok",
        "auroc": float("-inf"),
        "n_train": 61,
        "params": {"nu": 0.2},
        "score": None,
        "versions": {"numpy": "2.1"},
        "degenerate": "constant scores",
        "seed": 2**64,
    },
]


def as_text(records) -> str:
    """The records as the journal keeps them: every mapping in sorted order."""
    return json.dumps(records, allow_nan=True, sort_keys=True)


def test_a_records_table_gives_back_exactly_the_records_it_was_given(tmp_path):
    path = tmp_path / "records.parquet"
    write_records(path, MIXED_RECORDS)
    back = read_records(path)
    assert as_text(back) == as_text(MIXED_RECORDS) and [list(r) for r in back] == [sorted(r) for r in MIXED_RECORDS]
    assert [type(r["n_iter"]) for r in back[:2]] == [int, float] and type(back[0]["seed"]) is int
    table = pq.read_table(path)
    assert str(table.schema.field("auroc").type) == "double" and str(table.schema.field("n_train").type) == "int64"
    assert pa.types.is_list(table.schema.field("roc_tpr").type)
    assert "versions" not in table.column_names  # the same in every record: once, in the metadata
    assert json.loads(table.schema.metadata[b"kpca_bench.constants"]) == {"versions": {"numpy": "2.1"}}
    assert read_records(path)[1]["roc_tpr"] == [] and "auroc" not in back[1]


def test_one_record_and_none_round_trip(tmp_path):
    for records in ([MIXED_RECORDS[0]], []):
        write_records(tmp_path / "records.parquet", records)
        assert as_text(read_records(tmp_path / "records.parquet")) == as_text(records)


def test_compaction_folds_the_journal_into_the_table_the_journal_winning(tmp_path):
    store = ResultStore(tmp_path)
    store.extend([{"key": "a", "status": "failed"}, {"key": "b", "status": "ok"}])
    assert store.compact() == [] and not store.path.exists() and store.table_path.exists()
    store.extend([{"key": "a", "status": "ok", "auroc": 0.5}, {"key": "c", "status": "ok"}])
    assert [r["status"] for r in store.records()] == ["ok", "ok", "ok"]  # before compacting too
    store.path.write_bytes(store.path.read_bytes() + b'{"key": "cut')
    messages = store.compact()
    assert len(messages) == 1 and "cut short" in messages[0] and (tmp_path / DAMAGED_FILE).exists()
    assert [(r["key"], r["status"]) for r in store.records()] == [("a", "ok"), ("b", "ok"), ("c", "ok")]
    assert store.records()[0]["auroc"] == 0.5 and not store.path.exists()
    assert store.compact() == []  # nothing to fold


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"PAR1 not a table", "cannot be read"),
        (None, "is version 0, this kpca-bench reads version 2"),
        (b"", "cannot be read"),
    ],
)
def test_a_table_that_cannot_be_read_is_one_line_naming_it(tmp_path, content, problem):
    store = ResultStore(tmp_path)
    if content is None:
        table = pa.table({"key": ["a"]}).replace_schema_metadata({b"kpca_bench.records_schema": b"0"})
        pq.write_table(table, store.table_path)
    else:
        store.table_path.write_bytes(content)
    with pytest.raises(StorageError) as raised:
        store.load()
    assert problem in str(raised.value) and str(store.table_path) in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_folder_with_a_journal_or_a_table_holds_records(tmp_path):
    store = ResultStore(tmp_path)
    assert not store.exists()
    store.append({"key": "a", "status": "ok"})
    assert store.exists()
    store.compact()
    assert store.exists() and not store.path.exists()


@pytest.mark.parametrize(
    "content, expected",
    [
        (b'{"source": "x"}', {"source": "x"}),
        (b'{"notes": "no source"}', None),
        (b"[1]", None),
        (b"{cut", None),
        (b"\xff\xfe", None),
    ],
)
def test_read_state_gives_a_valid_file_and_sets_a_damaged_one_aside(tmp_path, content, expected):
    path = tmp_path / "provenance.json"
    path.write_bytes(content)
    data, damage = read_state(path, lambda data: "source" in data)
    assert data == expected
    if expected is None:
        assert damage == f"{path} is damaged; moved it to {tmp_path / 'provenance.damaged.json'}"
        assert (tmp_path / "provenance.damaged.json").read_bytes() == content and not path.exists()
    else:
        assert damage is None and path.read_bytes() == content


def test_read_state_of_no_file_is_nothing(tmp_path):
    assert read_state(tmp_path / "run.json") == (None, None)


def test_set_aside_never_replaces_an_earlier_damaged_copy(tmp_path):
    path = tmp_path / "environment.json"
    for number, name in enumerate(
        ["environment.damaged.json", "environment.damaged-2.json", "environment.damaged-3.json"]
    ):
        path.write_text(str(number))
        assert set_aside(path) == tmp_path / name
    assert [(tmp_path / f"environment.damaged{s}.json").read_text() for s in ("", "-2", "-3")] == ["0", "1", "2"]


ROOT = Path(__file__).parents[1]
# What git keeps of the committed results at most (docs/running.md, "What the repository commits").
RESULTS_LIMIT_BYTES = 40_000_000


def tracked_results() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "results"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    return listed.stdout.split()


def shown_figures() -> set[str]:
    """The figures under results/ that the README, docs/ and results/REPORT.md show, by path from the root."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "results" / "REPORT.md"]
    return {
        os.path.relpath(os.path.normpath(page.parent / link), ROOT)
        for page in pages
        for link in re.findall(r"\(([^)\s]+\.png)\)", page.read_text())
        if os.path.relpath(os.path.normpath(page.parent / link), ROOT).startswith("results/")
    }


def test_the_committed_runs_keep_their_records_in_tables_of_this_schema_and_no_journal():
    root = ROOT
    tracked = tracked_results()
    assert not [p for p in tracked if p.endswith(("records.jsonl", "records.damaged.jsonl"))]
    tables = {Path(p).parent for p in tracked if p.endswith("/records.parquet")}
    runs = {Path(p).parent for p in tracked if p.endswith("/run.json")}
    # Every run's tables come from a committed store: its own, or a suite's datasets' in its sub-folders.
    assert runs and all(run in tables or any(table.parent == run for table in tables) for run in runs)
    for folder in sorted(tables):
        records = ResultStore(root / folder).records()
        assert records and len({r["key"] for r in records}) == len(records), folder


def test_git_keeps_the_stores_tables_and_shown_figures_and_not_what_kpca_bench_report_rebuilds():
    tracked = tracked_results()
    assert not [p for p in tracked if p.endswith(("trials.csv", ".html"))]
    figures = {p for p in tracked if p.endswith(".png")}
    shown = shown_figures()
    assert shown - figures == set(), "a page shows a figure git does not keep: git add -f it"
    assert figures - shown == set(), "git keeps a figure no page shows: git rm --cached it"
    assert sum((ROOT / p).stat().st_size for p in tracked) <= RESULTS_LIMIT_BYTES
