"""Bad input of every kind — configs, CLI options, data files, results folders, state files, failing cells and
failing disks: an exit code, one line naming the problem and the fix, no traceback, no finished work lost."""

import errno
import os
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from sklearn.svm import OneClassSVM
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.methods.registry import METHODS
from kpca_bench.run import store
from kpca_bench.run.lock import folder_lock

ROOT = Path(__file__).parents[1]
QUICKSTART = ROOT / "configs" / "quickstart.yaml"
QUICK_TEXT = QUICKSTART.read_text()
IONOSPHERE = ROOT / "configs" / "sas_ionosphere.yaml"


def invoke(*args, env=None):
    return CliRunner().invoke(app, ["run", *map(str, args)], env=env)


def assert_one_error_line(result, expected: str = "", code: int = 2):
    output = result.output + result.stderr
    assert result.exit_code == code, output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert "Traceback" not in output
    assert expected in result.stderr, result.stderr


# (what replaces what in the quickstart, a fragment of the one-line message)
CONFIG_EDITS = [
    (("trials: 10", "trials: 0"), "trials"),
    (("trials: 10", "trials: -3"), "trials"),
    (("trials: 10", "trials: ten"), "trials"),
    (("trials: 10", "trials: 2.5"), "trials"),
    (("seed: 0", "seed: -1"), "seed"),
    (("seed: 0", "seed: zero"), "seed"),
    (("name: digits ", "name: digitz "), "digitz"),
    (("name: kpca\n    label: KPCA\n", "name: kpcaa\n    label: KPCA\n"), "kpcaa"),
    (("nu: 0.05", "nu: 1.5"), "nu"),
    (("nu: 0.05", "nu: -1"), "nu"),
    (("n_estimators: 100", "n_estimators: 0"), "n_estimators"),
    (("n_estimators: 100", "n_estimators: many"), "n_estimators"),
    (("      n_components: 10\n", "      n_components: ten\n"), "n_components"),
    (("      n_components: 10\n", "      n_components: 0\n"), "n_components"),
    (("      kernel: rbf\n", "      kernel: rbff\n"), "kernel"),
    (("gamma: mean_pairwise    #", "gamma: -2    #"), "gamma"),
    (("gamma: mean_pairwise    #", "gamma: median    #"), "gamma"),
    (("protocol: novelty ", "protocol: noveltyy "), "noveltyy"),
    (("rule: train_quantile", "rule: guess"), "rule"),
    (("quantile: 0.95", "quantile: 1.5"), "quantile"),
    (("quantile: 0.95", "quantile: high"), "quantile"),
    (("inliers: [0]", "inliers: [42]"), "42"),
    (("train_inliers: 100", "train_inliers: 1000"), "train_inliers"),
    (("train_inliers: 100", "train_inliers: -5"), "train_inliers"),
    (("test_outliers: 78", "test_outliers: lots"), "test_outliers"),
    (("name: quickstart", "name: quickstart\ncolour: blue"), "colour"),
    (("    score: mahalanobis", "    score: manhattan"), "score"),
    (("    params: {n_estimators: 100}", "    params: {n_estimators: 100, depth: 3}"), "depth"),
    (("  quantile: 0.95", "  quantile: 0.95\n  side: left"), "side"),
    (("  test_inliers: 78 ", "  test_inliers: [78] "), "test_inliers"),
    (("    label: Isolation forest\n", "    label: Isolation forest\n    grid: {n_estimators: []}\n"), "n_estimators"),
]
CONFIG_TEXTS = [
    ("", "config"),
    ("just a string", "config"),
    ("- a\n- list\n", "config"),
    ("name: [unclosed\n", "config"),
    ("name: x\n\tindented: with a tab\n", "config"),
]
OPTIONS = [
    (["--jobs", "two"], "--jobs"),
    (["--trials", "0"], "--trials"),
    (["--trials", "x"], "--trials"),
    (["--seed", "-1"], "--seed"),
    (["--profile", "huge"], "huge"),
    (["--max-memory", "0"], "--max-memory"),
    (["--max-memory", "lots"], "--max-memory"),
    (["--scheduler", "10.0.0.5:8786"], "--scheduler"),
    (["--no-such-flag"], "--no-such-flag"),
]


def config_file(tmp_path, text) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("edit, expected", CONFIG_EDITS, ids=[e[0][1].strip()[:30] for e in CONFIG_EDITS])
def test_a_bad_config_value_is_one_line(tmp_path, edit, expected):
    old, new = edit
    assert old in QUICK_TEXT, old
    path = config_file(tmp_path, QUICK_TEXT.replace(old, new, 1))
    assert_one_error_line(invoke(path, "--out", tmp_path / "out", "--quiet"), expected)
    assert not (tmp_path / "out" / "quickstart" / "records.jsonl").exists()


@pytest.mark.parametrize("text, expected", CONFIG_TEXTS)
def test_a_malformed_config_file_is_one_line(tmp_path, text, expected):
    assert_one_error_line(invoke(config_file(tmp_path, text), "--out", tmp_path, "--quiet"), expected)


@pytest.mark.parametrize("name", ["missing.yaml", "folder"])
def test_a_config_that_is_not_a_file_is_one_line(tmp_path, name):
    (tmp_path / "folder").mkdir()
    assert_one_error_line(invoke(tmp_path / name, "--out", tmp_path, "--quiet"))


@pytest.mark.parametrize("options, expected", OPTIONS, ids=[" ".join(o) for o, _ in OPTIONS])
def test_a_bad_option_is_one_line(tmp_path, options, expected):
    result = invoke(QUICKSTART, "--out", tmp_path, "--quiet", *options)
    assert result.exit_code == 2 and "Traceback" not in result.output + result.stderr
    assert expected in result.stderr


def data_folder(tmp_path, content: bytes | None) -> str:
    folder = tmp_path / "data" / "ionosphere"
    folder.mkdir(parents=True)
    if content is not None:
        (folder / "ionosphere.data").write_bytes(content)
    return str(tmp_path / "data")


@pytest.mark.parametrize("content, expected", [
    (None, "missing ionosphere.data"),
    (b"", "ionosphere.data"),
    (b"1,2,3,g\n4,5,6\n", "ionosphere.data"),
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "ionosphere.data"),
])
def test_a_missing_or_damaged_data_file_is_one_line(tmp_path, content, expected):
    env = {"KPCA_BENCH_DATA": data_folder(tmp_path, content)}
    result = invoke(IONOSPHERE, "--out", tmp_path / "out", "--quiet", "--offline", "--trials", "1", env=env)
    assert_one_error_line(result, expected)
    assert not (tmp_path / "out" / "sas_ionosphere" / "records.jsonl").exists()


def unwritable_out(tmp_path, case: str) -> Path:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    return {"a file": a_file, "under a file": a_file / "results", "deep under a file": a_file / "a" / "b",
            "a device": Path("/dev/null"), "under a device": Path("/dev/full/results"),
            "sysfs": Path("/sys/kpca-bench-results")}[case]


@pytest.mark.parametrize("case", ["a file", "under a file", "deep under a file", "a device", "under a device",
                                  "sysfs"])
def test_an_out_that_cannot_be_a_folder_is_one_line_before_any_data(tmp_path, case, monkeypatch):
    loaded = []
    monkeypatch.setattr("kpca_bench.run.runner.load_checked_dataset", lambda *a: loaded.append(a))
    assert_one_error_line(invoke(QUICKSTART, "--out", unwritable_out(tmp_path, case), "--quiet"))
    assert loaded == []


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES, errno.ENOSPC, errno.EIO])
def test_an_out_that_refuses_writes_is_one_line_before_any_data(tmp_path, code, monkeypatch):
    real_write_bytes = Path.write_bytes

    def refuse(path, data):
        if path.name.startswith(".write-probe"):
            raise OSError(code, os.strerror(code))
        return real_write_bytes(path, data)

    monkeypatch.setattr(Path, "write_bytes", refuse)
    monkeypatch.setattr("kpca_bench.run.runner.load_checked_dataset", lambda *a: pytest.fail("data loaded"))
    assert_one_error_line(invoke(QUICKSTART, "--out", tmp_path, "--quiet"), os.strerror(code))


def test_a_folder_in_use_with_no_wait_is_one_line_naming_the_holder(tmp_path):
    folder = tmp_path / "quickstart"
    folder.mkdir()
    with folder_lock(folder):
        result = invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--no-wait")
    assert_one_error_line(result, f"pid {os.getpid()} on ")


# Faults while the run writes: one line naming the file and the cause, records intact, no temporary file.

def fail_writes_of(monkeypatch, name: str, code: int, after: int = 0):
    """Make writes of files named ``name`` (the store, a table or a figure) fail with ``code`` after ``after`` good ones."""
    calls = {"n": 0}
    real_open = os.open

    def failing_open(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and Path(path).name.startswith((name, f".{name}.")):
            calls["n"] += 1
            if calls["n"] > after:
                raise OSError(code, os.strerror(code))
        return real_open(path, flags, *args, **kwargs)

    real_append = store.ResultStore.append

    def failing_append(self, record):
        if name == store.RECORDS_FILE:
            calls["n"] += 1
            if calls["n"] > after:
                raise store.StorageError.from_os_error(self.path, OSError(code, os.strerror(code)))
        return real_append(self, record)

    monkeypatch.setattr(os, "open", failing_open)
    monkeypatch.setattr(store.ResultStore, "append", failing_append)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EIO])
@pytest.mark.parametrize("name", ["records.jsonl", "trials.csv", "summary.md", "f1_box.png", "roc.png"])
def test_a_write_fault_is_one_line_naming_the_file_and_cause(tmp_path, monkeypatch, name, code):
    fail_writes_of(monkeypatch, name, code, after=3 if name == "records.jsonl" else 0)
    result = invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "2")
    assert_one_error_line(result, f"{name}: {os.strerror(code)}")
    folder = tmp_path / "quickstart"
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    records = (folder / "records.jsonl").read_text().splitlines()
    assert len(records) == (3 if name == "records.jsonl" else 8)


def test_a_real_short_write_is_cut_back_and_the_store_stays_whole(tmp_path, monkeypatch):
    """A disk that fills up mid-line: the partial line is removed, earlier records are kept."""
    folder = tmp_path / "quickstart"
    assert invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "1").exit_code == 0
    before = (folder / "records.jsonl").read_bytes()
    record = {"key": "x" * 50, "status": "ok"}

    class FullDisk:
        def __init__(self, handle):
            self.handle = handle

        def __getattr__(self, name):
            return getattr(self.handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[:10])
            self.handle.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    real_open = Path.open
    monkeypatch.setattr(Path, "open", lambda path, mode="r", *a, **k: FullDisk(real_open(path, mode, *a, **k))
                        if mode == "ab" else real_open(path, mode, *a, **k))
    with pytest.raises(store.StorageError, match="records.jsonl: No space left on device"):
        store.ResultStore(folder).append(record)
    assert (folder / "records.jsonl").read_bytes() == before


# Failed cells are records: shown, counted, retried, and the run says so in its exit code.

class AlwaysFails(OneClassSVM):
    def fit(self, X, y=None):
        raise RuntimeError("this detector always fails")


@pytest.fixture
def failing_ocsvm(monkeypatch):
    monkeypatch.setitem(METHODS, "ocsvm", replace(METHODS["ocsvm"], estimator=AlwaysFails))


def test_a_method_that_always_fails_is_recorded_marked_and_exits_1(tmp_path, failing_ocsvm):
    result = invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "2")
    assert_one_error_line(result, "2 cells failed, e.g. One-class SVM trial 0: RuntimeError: this detector always fails",
                          code=1)
    folder = tmp_path / "quickstart"
    trials = pd.read_csv(folder / "trials.csv")
    failed = trials[trials["status"] == "failed"]
    assert list(failed["method"]) == ["One-class SVM"] * 2 and set(failed["error_type"]) == {"RuntimeError"}
    assert (trials[trials["method"] != "One-class SVM"]["status"] == "ok").all()  # the others finished
    summary = pd.read_csv(folder / "summary.csv").set_index("method")
    assert summary.loc["One-class SVM", ["trials", "planned", "failed"]].tolist() == [0, 2, 2]
    assert summary.loc["KPCA", ["trials", "planned", "failed"]].tolist() == [2, 2, 0]
    markdown = (folder / "summary.md").read_text()
    assert "INCOMPLETE, not final: One-class SVM 0 of 2 trials, 2 failed" in markdown
    assert "| One-class SVM **(failed)** | 0 / 2 | 2 |" in markdown


def test_failed_cells_are_retried_unless_no_retry(tmp_path, failing_ocsvm, monkeypatch):
    invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "1")
    assert invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "1", "--no-retry").exit_code == 1
    records = (tmp_path / "quickstart" / "records.jsonl").read_text().splitlines()
    assert len(records) == 4  # nothing ran again
    monkeypatch.undo()
    assert invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "1", "--retry-failed").exit_code == 0
    summary = pd.read_csv(tmp_path / "quickstart" / "summary.csv")
    assert (summary["trials"] == summary["planned"]).all() and (summary["failed"] == 0).all()
    assert "INCOMPLETE" not in (tmp_path / "quickstart" / "summary.md").read_text()


def test_fail_fast_stops_at_the_first_failure_and_still_writes_tables(tmp_path, failing_ocsvm):
    result = invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "3", "--fail-fast")
    assert_one_error_line(result, "1 cells failed", code=1)
    trials = pd.read_csv(tmp_path / "quickstart" / "trials.csv")
    assert len(trials) == 3 and list(trials["status"]).count("failed") == 1
    assert "INCOMPLETE" in (tmp_path / "quickstart" / "summary.md").read_text()


def test_an_interrupted_run_marks_its_tables_incomplete(tmp_path, monkeypatch):
    from kpca_bench.protocols import PROTOCOLS

    real = PROTOCOLS["novelty"].evaluate
    calls = []

    def interrupt_at_the_sixth(*args):
        calls.append(args)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setitem(PROTOCOLS, "novelty", replace(PROTOCOLS["novelty"], evaluate=interrupt_at_the_sixth))
    result = invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "3")
    assert result.exit_code == 130 and result.stderr.count("\n") == 1
    markdown = (tmp_path / "quickstart" / "summary.md").read_text()
    assert "INCOMPLETE, not final: KPCA 2 of 3 trials; KPCA-Mahalanobis 1 of 3 trials" in markdown
    assert "± –" in markdown  # one trial has no spread, not "± 0.000"


# ---------------------------------------------------------------------------------------------------------------
# Runs where every cell fails, results folders and damaged state files (run.json, provenance.json,
# environment.json, the lock), write faults and numerics that make a method meaningless.
# ---------------------------------------------------------------------------------------------------------------
