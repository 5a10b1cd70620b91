"""Bad input of every kind — configs, CLI options, data files, results folders, state files, failing cells and
failing disks: an exit code, one line naming the problem and the fix, no traceback, no finished work lost."""

import errno
import json
import os
import subprocess
import warnings
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.io
import yaml
from sklearn.svm import OneClassSVM
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.methods.registry import METHODS
from kpca_bench.experiment import store
from kpca_bench.experiment.lock import folder_lock
from kpca_bench.experiment.cell import flag_overflow, input_overflow
from kpca_bench.protocols.base import constant_scores
from kpca_bench.experiment.store import ResultStore

ROOT = Path(__file__).parents[1]
QUICKSTART = ROOT / "configs" / "quickstart.yaml"
QUICK_TEXT = QUICKSTART.read_text()
IONOSPHERE = ROOT / "reproductions" / "sas" / "configs" / "sas_ionosphere.yaml"


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
    (("  test_outliers: 78", "  test_outliers: 78\n  scaling: zscore"), "dataset.scaling: unknown scaling 'zscore'"),
    (("  test_outliers: 78", "  test_outliers: 78\n  scaling_rows: some"), "dataset.scaling_rows"),
    (("  test_outliers: 78", "  test_outliers: 78\n  draw: sorted"), "dataset.draw: unknown draw 'sorted'"),
    (("  inliers: [0]", "  inliers: [1]"), "dataset.outliers: classes [1] are also inliers"),
    (("  inliers: [0]", "  inliers: []"), "dataset.inliers: must be a class label or a non-empty list"),
    (("seed: 0", "seed: 1.5"), "seed: must be an integer"),
    (("seed: 0", "seed: 0\noutput: {figures: [pie]}"), "output.figures: must be a list drawn from box"),
    (("seed: 0", "seed: 0\nexecution: {backend: slurm}"), "execution.backend: unknown backend 'slurm'"),
    (("seed: 0", "seed: 0\nexecution: {max_memory_mb: -5}"), "execution.max_memory_mb: must be a positive"),
    (("seed: 0", "seed: 0\nexecution: {address: 'tcp://h:1'}"), "execution.address: a scheduler address needs"),
    (("seed: 0", "seed: 0\nreference: {paper: das}"), "reference.dataset: missing (required)"),
    (
        (
            "seed: 0",
            "seed: 0\ndatasets: [{name: digits, inliers: 0, outliers: 1, train_inliers: 9, test_inliers: 9, "
            "test_outliers: 9}]",
        ),
        "give dataset (one) or datasets / suite (several), not both",
    ),
    (("name: quickstart", "name: quick start"), "name: must be a word"),
    (("  rule: train_quantile", "  rule: fixed"), "threshold.value: give a value exactly when the rule is fixed"),
    (("protocol: novelty ", "protocol: {name: novelty, folds: 3} "), "protocol.folds: protocol novelty has no option"),
    (("    score: mahalanobis", "    score: mahalanobis\n    higher_is: normal"), "higher_is: only for a class"),
    (("    params: {n_estimators: 100}", "    params: [n_estimators, 100]"), "params: must be a mapping"),
    (("      n_components: 10\n", "      n_components: 200\n"), "200 components need more than the 100 training"),
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
    assert not store.ResultStore(tmp_path / "out" / "quickstart").exists()


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


@pytest.mark.parametrize(
    "content, expected",
    [
        (None, "missing ionosphere.data"),
        (b"", "ionosphere.data"),
        (b"1,2,3,g\n4,5,6\n", "ionosphere.data"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "ionosphere.data"),
    ],
)
def test_a_missing_or_damaged_data_file_is_one_line(tmp_path, content, expected):
    env = {"KPCA_BENCH_DATA": data_folder(tmp_path, content)}
    result = invoke(IONOSPHERE, "--out", tmp_path / "out", "--quiet", "--offline", "--trials", "1", env=env)
    assert_one_error_line(result, expected)
    assert not store.ResultStore(tmp_path / "out" / "sas_ionosphere").exists()


def unwritable_out(tmp_path, case: str) -> Path:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    return {
        "a file": a_file,
        "under a file": a_file / "results",
        "deep under a file": a_file / "a" / "b",
        "a device": Path("/dev/null"),
        "under a device": Path("/dev/full/results"),
        "sysfs": Path("/sys/kpca-bench-results"),
    }[case]


@pytest.mark.parametrize("case", ["a file", "under a file", "deep under a file", "a device", "under a device", "sysfs"])
def test_an_out_that_cannot_be_a_folder_is_one_line_before_any_data(tmp_path, case, monkeypatch):
    loaded = []
    monkeypatch.setattr("kpca_bench.experiment.runner.load_checked_dataset", lambda *a: loaded.append(a))
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
    monkeypatch.setattr("kpca_bench.experiment.runner.load_checked_dataset", lambda *a: pytest.fail("data loaded"))
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


FAULTY_FILES = ["records.jsonl", "records.parquet", "trials.csv", "summary.md", "f1_box.png", "roc.png"]
FAULTS = [errno.ENOSPC, errno.EROFS, errno.EIO]


# Every file with every fault in `make test`; in the quick subset, each file once and the faults in turn.
@pytest.mark.parametrize(
    "name, code",
    [
        pytest.param(name, code, marks=() if code == FAULTS[i % len(FAULTS)] else pytest.mark.slow)
        for i, name in enumerate(FAULTY_FILES)
        for code in FAULTS
    ],
)
def test_a_write_fault_is_one_line_naming_the_file_and_cause(tmp_path, monkeypatch, name, code):
    fail_writes_of(monkeypatch, name, code, after=3 if name == "records.jsonl" else 0)
    result = invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "2")
    assert_one_error_line(result, f"{name}: {os.strerror(code)}")
    folder = tmp_path / "quickstart"
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    # The journal's records stay in it when the table cannot be written.
    assert (folder / "records.jsonl").exists() == (name == "records.parquet")
    assert len(store.ResultStore(folder).records()) == (3 if name == "records.jsonl" else 8)


def test_a_real_short_write_is_cut_back_and_the_store_stays_whole(tmp_path, monkeypatch):
    """A disk that fills up mid-line: the partial line is removed, earlier records are kept."""
    folder = tmp_path / "quickstart"
    for key in ("a", "b"):
        store.ResultStore(folder).append({"key": key, "status": "ok"})
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
    monkeypatch.setattr(
        Path,
        "open",
        lambda path, mode="r", *a, **k: (
            FullDisk(real_open(path, mode, *a, **k)) if mode == "ab" else real_open(path, mode, *a, **k)
        ),
    )
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
    assert_one_error_line(
        result, "2 cells failed, e.g. One-class SVM trial 0: RuntimeError: this detector always fails", code=1
    )
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


@pytest.mark.slow  # three runs
def test_failed_cells_are_retried_unless_no_retry(tmp_path, failing_ocsvm, monkeypatch):
    invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "1")
    assert invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "1", "--no-retry").exit_code == 1
    assert len(store.ResultStore(tmp_path / "quickstart").records()) == 4  # nothing ran again
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

    monkeypatch.setattr(PROTOCOLS["novelty"], "evaluate", interrupt_at_the_sixth)
    result = invoke(QUICKSTART, "--out", tmp_path, "--quiet", "--trials", "3")
    assert result.exit_code == 130 and result.stderr.count("\n") == 1
    markdown = (tmp_path / "quickstart" / "summary.md").read_text()
    assert "INCOMPLETE, not final: KPCA 2 of 3 trials; KPCA-Mahalanobis 1 of 3 trials" in markdown
    assert "± –" in markdown  # one trial has no spread, not "± 0.000"


# Config files that are not clean text or not strict YAML, and profiles validated whether run or not:
# one line naming the file, the key (its whole path) and the fix, for `run` and `plan` alike.


def quick_profile(profile: str) -> bytes:
    return QUICK_TEXT.replace("  quick: {trials: 3}", f"  {profile}").encode()


# (what the file holds, a fragment of the one-line message)
CONFIG_BYTES = {
    "latin-1": (
        QUICK_TEXT.replace("description: KPCA", "description: café KPCA").encode("latin-1"),
        "not UTF-8 text: byte 0xe9 on line 6",
    ),
    "utf-16": (QUICK_TEXT.encode("utf-16"), "(it looks like UTF-16)"),
    "binary": (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "not UTF-8 text"),
    "a NUL byte": (QUICK_TEXT.replace("name: quickstart", "name: quick\0start").encode(), "YAML syntax error"),
    "duplicate top-level key": (
        QUICK_TEXT.replace("seed: 0", "seed: 0\nseed: 1").encode(),
        "line 20, column 1: duplicate key 'seed' (first given on line 19)",
    ),
    "duplicate dataset key": (
        QUICK_TEXT.replace("  inliers: [0]", "  inliers: [0]\n  inliers: [1]").encode(),
        "duplicate key 'inliers'",
    ),
    "duplicate parameter": (QUICK_TEXT.replace("nu: 0.05}", "nu: 0.05, nu: 0.1}").encode(), "duplicate key 'nu'"),
    "duplicate method key": (
        QUICK_TEXT.replace("    label: KPCA\n", "    label: KPCA\n    label: K\n").encode(),
        "duplicate key 'label'",
    ),
    "duplicate profile": (quick_profile("quick: {trials: 3}\n  quick: {trials: 2}"), "duplicate key 'quick'"),
    "profile: unknown key": (quick_profile("quick: {trails: 3}"), "profiles.quick.trails: unknown key"),
    "profile: bad value": (quick_profile("quick: {trials: 0}"), "profiles.quick.trials: must be >= 1"),
    "profile: bad type": (quick_profile("quick: {seed: zero}"), "profiles.quick.seed: must be an integer"),
    "profile: dataset key": (
        quick_profile("quick: {dataset: {test_outliers: lots}}"),
        "profiles.quick.dataset.test_outliers: must be an integer",
    ),
    "profile: unknown label": (
        quick_profile("quick: {methods: {KCPA: {params: {n_components: 3}}}}"),
        "profiles.quick.methods.KCPA: no method has this label (did you mean 'KPCA'?)",
    ),
    "profile: method parameter": (
        quick_profile("quick: {methods: {KPCA: {params: {nu: 3}}}}"),
        "profiles.quick.methods.KPCA.params.nu: kpca has no parameter 'nu'",
    ),
    "profile: too many components": (
        quick_profile("quick: {methods: {KPCA: {params: {n_components: 150}}}}"),
        "profiles.quick.methods.KPCA.params.n_components: 150 components need more",
    ),
    "profile: a problem it causes": (
        quick_profile("quick: {dataset: {draw: file_order}}"),
        "profiles.quick: trials: dataset.draw: file_order takes the same rows",
    ),
    "profile: unknown name": (quick_profile("fast: {trials: 3}"), "profiles.fast: unknown profile; accepted: quick"),
    "profile: not a mapping": (quick_profile("quick: 3"), "profiles.quick: must be a mapping"),
    "profiles: not a mapping": (
        QUICK_TEXT.replace("profiles:\n  quick: {trials: 3}", "profiles: [quick]").encode(),
        "profiles: must be a mapping",
    ),
}


@pytest.mark.parametrize("command", ["run", "plan"])
@pytest.mark.parametrize("case", CONFIG_BYTES)
def test_a_config_that_is_not_clean_or_strict_is_one_line(tmp_path, case, command):
    content, expected = CONFIG_BYTES[case]
    assert content != QUICK_TEXT.encode(), "the edit did not apply"
    path = tmp_path / "config.yaml"
    path.write_bytes(content)
    quiet = ["--quiet"] if command == "run" else []
    result = CliRunner().invoke(app, [command, str(path), "--out", str(tmp_path / "out"), *quiet])
    assert_one_error_line(result, expected)
    assert result.stderr.startswith(f"error: {path}: "), result.stderr
    assert not (tmp_path / "out").exists()


# Every command's options and paths: (arguments, a fragment of the one-line message). Each fails before any data.

COMMANDS = [
    (["run", QUICKSTART, "--jobs", "-5"], "--jobs -5: means all CPU cores but 4"),
    (["run", QUICKSTART, "--jobs", "0"], "--jobs: 0 runs nothing"),
    (["run", QUICKSTART, "--reuse-from", "{tmp}/missing"], "--reuse-from"),
    (["run", QUICKSTART, "--reuse-from", "{tmp}/a-file"], "--reuse-from"),
    (["run", QUICKSTART, "--scheduler", "nowhere"], "--scheduler: must be 'local'"),
    (["run", QUICKSTART, "--max-memory", "-1"], "--max-memory: must be a positive number"),
    (["run", QUICKSTART, "--max-memory", "inf"], "--max-memory: must be a positive number"),
    (["run", "{tmp}/missing.yaml"], "no such config file"),
    (["run", QUICKSTART, "--profile", "huge"], "unknown profile 'huge'"),
    (["plan", "{tmp}/missing.yaml"], "no such config file"),
    (["plan", QUICKSTART, "--profile", "huge"], "unknown profile 'huge'"),
    (["plan", QUICKSTART, "--jobs", "-9"], "--jobs -9"),
    (["plan", QUICKSTART, "--jobs", "0"], "--jobs: 0 runs nothing"),
    (
        ["plan", ROOT / "reproductions" / "das" / "configs" / "variants" / "eth80_file_order.yaml", "--trials", "3"],
        "--trials 3: dataset.draw: file_order",
    ),
    (["report", "{tmp}/missing"], "is not a folder of results"),
    (["report", "{tmp}/a-file"], "is not a folder of results"),
    (["report", "{tmp}/empty"], "holds no run: neither run.json nor records.parquet"),
    (["report"], "Missing argument 'RESULTS_DIR'"),
    (["compare", "{tmp}/missing", "{tmp}/empty"], "no records.parquet here"),
    (["compare", "{tmp}/empty", "{tmp}/empty"], "no records.parquet here"),
    (["compare", "{tmp}/a-file", "{tmp}/empty"], "no records.parquet here"),
    (["export", "{tmp}/missing"], "no records.parquet here"),
    (["export", "{tmp}/a-file"], "no records.parquet here"),
    (["export", "{tmp}/empty", "--format", "xml"], "--format: unknown format 'xml'"),
    (["methods", "kpcaa"], "unknown method 'kpcaa'"),
    (["datasets", "verify", "mnistt"], "unknown dataset 'mnistt'"),
    (["datasets", "list", "--collection", "mine"], "--collection: unknown collection 'mine'"),
    (["datasets", "fetch", "mnistt"], "unknown dataset 'mnistt'"),
    (["datasets", "fetch", "openml:abc"], "openml:abc: an OpenML dataset is fetched as openml:<data id>"),
]


@pytest.mark.parametrize(
    "args, expected", COMMANDS, ids=[" ".join(map(str, a)).replace(str(ROOT) + "/", "") for a, _ in COMMANDS]
)
def test_a_bad_option_or_path_of_any_command_is_one_line(tmp_path, args, expected):
    assert_one_error_line(invoke_in(tmp_path, app, args), expected)
    assert not list(tmp_path.glob("out/**/records.*"))


# Those of the reproduction framework's command line (python -m reproductions).
REPRODUCTION_COMMANDS = [
    (["check", "{tmp}/missing.yaml"], "no such config file"),
    (["check", QUICKSTART, "--profile", "huge"], "unknown profile 'huge'"),
    (["check", QUICKSTART, "--jobs", "-5"], "--jobs -5"),
    (["check"], "no configs to check at the quick profile"),
    (["bless", "{tmp}/missing.yaml"], "no such config file"),
    (["bless", QUICKSTART, "--jobs", "0"], "--jobs: 0 runs nothing"),
    (["report", "--reproductions", "{tmp}/missing"], "no reproduction in"),
    (["report", "--list-configs", "--reproductions", "{tmp}/missing"], "no reproduction in"),
    (["analyse"], "name papers to analyse"),
    (["analyse", "nosuch"], "unknown: nosuch"),
    (["analyse", "das"], "no results folder; run the papers' configs first"),
    (["analyse", "--all", "--reproductions", "{tmp}/missing"], "no reproduction in"),
]


@pytest.mark.parametrize(
    "args, expected",
    REPRODUCTION_COMMANDS,
    ids=[" ".join(map(str, a)).replace(str(ROOT) + "/", "") for a, _ in REPRODUCTION_COMMANDS],
)
def test_a_bad_option_or_path_of_any_reproduction_command_is_one_line(tmp_path, args, expected):
    from reproductions.framework.cli import app as reproductions_app

    assert_one_error_line(invoke_in(tmp_path, reproductions_app, args), expected)
    assert not list(tmp_path.glob("out/**/records.*"))


def invoke_in(tmp_path, command_line, args):
    """``args`` (``{tmp}`` read as ``tmp_path``, which gets a file and an empty folder) given to ``command_line``,
    with ``--out`` and ``--quiet`` where the command takes them."""
    (tmp_path / "a-file").write_text("name: x\n")
    (tmp_path / "empty").mkdir()
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in args]
    out = ["--out", str(tmp_path / "out")] if args[0] in ("run", "plan", "check", "bless", "analyse") else []
    out += ["--out", str(tmp_path / "out")] if args[0] == "report" and command_line is not app else []
    quiet = ["--quiet"] if args[0] in ("run", "check", "bless") else []
    return CliRunner().invoke(command_line, [*args, *out, *quiet])


def test_more_jobs_than_cores_is_said_once_and_runs(tmp_path):
    from joblib import cpu_count

    result = CliRunner().invoke(app, ["plan", str(QUICKSTART), "--jobs", str(cpu_count() + 3), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"note: --jobs {cpu_count() + 3} asks for more workers than this machine's "
        f"{cpu_count()} usable CPU cores; starting {cpu_count()}\n"
    )


# A user's data file in every format the file loader reads, damaged in the ways files are: one line naming the
# file and the problem, before any cell runs.

FEATURES = pd.DataFrame(
    {"a": [0.1 * i for i in range(30)], "b": [1.0 + (i % 7) for i in range(30)], "c": [float(i % 3) for i in range(30)]}
)
LABELS = [0] * 20 + [1] * 10


def table(labels=LABELS, **columns) -> pd.DataFrame:
    return FEATURES.assign(**columns, label=labels)


def text_table(sep=",", **columns) -> bytes:
    return table(**columns).to_csv(index=False, sep=sep).encode()


def arff(rows: str = "1,2,0\n3,4,1\n", attributes: str = "@attribute a numeric\n@attribute b numeric\n") -> bytes:
    return f"@relation r\n{attributes}@attribute label {{0,1}}\n@data\n{rows}".encode()


def save_arrays(fmt: str, X, y, **more):
    """A writer of ``X`` and ``y`` (and other arrays) as an npz archive, a mat file or an npy pair."""

    def write(path: Path) -> None:
        if fmt == "npz":
            np.savez(path, X=X, y=y, **more)
        elif fmt == "mat":
            scipy.io.savemat(path, {"X": X, "y": y, **more})
        else:
            with path.open("wb") as handle:  # np.save would add .npy to another name
                np.save(handle, X)
            if y is not None:
                np.save(path.parent / "y.npy", y)

    return write


GOOD_X, GOOD_Y = FEATURES.to_numpy(), np.array(LABELS)
GARBAGE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
NAN_X = np.where(np.arange(90).reshape(30, 3) == 4, np.nan, GOOD_X)

# (file name, its content: bytes, a DataFrame written as parquet, or a writer; dataset options; message fragment)
DATA_FILES = {
    "csv: empty": ("d.csv", b"", {}, "the file is empty"),
    "csv: header only": ("d.csv", b"a,b,label\n", {}, "has no data rows"),
    "csv: ragged row": ("d.csv", b"a,b,label\n1,2,0\n3,4,5,1\n", {}, "not a readable csv file"),
    "csv: semicolons": (
        "d.csv",
        text_table(sep=";"),
        {},
        "sep: the header 'a;b;c;label' is one column when split at ','; give the file's separator with sep:",
    ),
    "csv: one column": ("d.csv", b"label\n0\n1\n", {}, "sep: the header 'label' is one column"),
    "csv: a wrong sep": ("d.csv", text_table(), {"sep": ";"}, "split at ';'"),
    "csv: duplicate columns": ("d.csv", text_table().replace(b"a,b,c", b"a,b,a", 1), {}, "column names 'a' are given"),
    "csv: text in a number column": (
        "d.csv",
        text_table(b=["7.5"] * 12 + ["high"] + ["8"] * 17),
        {},
        "column 'b' holds numbers but data row 13 has 'high'",
    ),
    "csv: categorical names no column": (
        "d.csv",
        text_table(),
        {"categorical": ["colour"]},
        "categorical: no feature column 'colour'",
    ),
    "csv: categorical not a list": ("d.csv", text_table(), {"categorical": "b"}, "categorical: must be a list"),
    "csv: a missing value": ("d.csv", text_table(b=[1.0] * 29 + [None]), {}, "1 of 30 rows have missing (NaN)"),
    "csv: an infinite value": ("d.csv", text_table(c=[1.0] * 29 + [float("inf")]), {}, "or infinite values (in c)"),
    "csv: a missing label": ("d.csv", text_table().replace(b",1\n", b",\n", 1), {}, "(in the label)"),
    "csv: one class": (
        "d.csv",
        text_table(labels=[0] * 30),
        {},
        "has no class 1 (dataset.outliers); its classes are [0]",
    ),
    "csv: no outliers": ("d.csv", text_table(labels=[0] * 20 + [2] * 10), {}, "its classes are [0, 2]"),
    "csv: too few inliers": ("d.csv", text_table(labels=[0] * 5 + [1] * 25), {}, "train_inliers"),
    "csv: no label column": ("d.csv", text_table(), {"label": "status"}, "label: no column 'status'"),
    "csv: drop unknown": ("d.csv", text_table(), {"drop": ["id"]}, "drop: no column 'id'"),
    "csv: binary garbage": ("d.csv", GARBAGE, {}, "not a readable csv file (UnicodeDecodeError"),
    "csv: wrong extension": ("d.xlsx", text_table(), {}, "unknown extension '.xlsx'"),
    "csv: no extension": ("d", text_table(), {}, "unknown extension '(none)'"),
    "csv: unknown format": ("d.csv", text_table(), {"format": "excel"}, "format: unknown format 'excel'"),
    "csv: missing file": (None, b"", {}, "path: no such file"),
    "tsv: commas": ("d.tsv", text_table(), {}, "is one column when split at '\\t'"),
    "tsv: duplicate columns": (
        "d.tsv",
        text_table(sep="\t").replace(b"a\tb\tc", b"a\tb\tb", 1),
        {},
        "column names 'b' are given",
    ),
    "tsv: text in a number column": (
        "d.tsv",
        text_table(sep="\t", a=["x"] + [1] * 29),
        {},
        "column 'a' holds numbers but data row 1 has 'x'",
    ),
    "txt: text in a number column": (
        "d.txt",
        text_table(sep=" ", c=[2] * 29 + ["?"]),
        {},
        "column 'c' holds numbers but data row 30 has '?'",
    ),
    "txt: duplicate columns": (
        "d.txt",
        text_table(sep=" ").replace(b"a b c", b"c b c", 1),
        {},
        "column names 'c' are given",
    ),
    "parquet: duplicate columns": ("d.parquet", None, {}, "column names 'a' are given"),
    "parquet: text in a number column": (
        "d.parquet",
        table(b=["1.5"] * 29 + ["high"]),
        {},
        "column 'b' holds numbers but data row 30 has 'high'",
    ),
    "parquet: binary garbage": ("d.parquet", GARBAGE, {}, "not a readable parquet file"),
    "parquet: empty": ("d.parquet", b"", {}, "not a readable parquet file"),
    "parquet: a missing value": ("d.parquet", table(a=[None] + [1.0] * 29), {}, "missing (NaN)"),
    "arff: duplicate attributes": (
        "d.arff",
        arff(attributes="@attribute a numeric\n@attribute a numeric\n"),
        {},
        "field 'a' occurs more than once",
    ),
    "arff: text in a number": ("d.arff", arff(rows="1,2,0\n3,x,1\n"), {}, "not a readable arff file"),
    "arff: no header": ("d.arff", b"1,2,0\n3,4,1\n", {}, "not an ARFF file: no @relation"),
    "arff: binary garbage": ("d.arff", GARBAGE, {}, "not a readable arff file"),
    "arff: empty": ("d.arff", b"", {}, "not an ARFF file: no @relation"),
    "npz: no X": ("d.npz", lambda path: np.savez(path, features=GOOD_X, y=GOOD_Y), {}, "X: no array 'X' in the file"),
    "npz: y of another length": ("d.npz", save_arrays("npz", GOOD_X, GOOD_Y[:-1]), {}, "do not match 29 labels"),
    "npz: one-dimensional X": ("d.npz", save_arrays("npz", GOOD_Y, GOOD_Y), {}, "expected (rows, columns)"),
    "npz: a missing value": ("d.npz", save_arrays("npz", NAN_X, GOOD_Y), {}, "1 of 30 rows have missing (NaN)"),
    "npz: one class": ("d.npz", save_arrays("npz", GOOD_X, np.zeros(30, dtype=int)), {}, "outlier"),
    "npz: drop not an index": ("d.npz", save_arrays("npz", GOOD_X, GOOD_Y), {"drop": [7]}, "not column indices 0..2"),
    "npz: binary garbage": ("d.npz", GARBAGE, {}, "not a readable NumPy .npz file (no zip header)"),
    "npz: a zip header only": ("d.npz", b"PK\x03\x04" + GARBAGE, {}, "not a readable NumPy .npz file (no zip header)"),
    "npz: a single array": ("d.npz", save_arrays("npy", GOOD_X, None), {}, "not an .npz archive"),
    "npy: no labels file": ("d.npy", save_arrays("npy", GOOD_X, None), {}, "y: no labels file"),
    "npy: y of another length": ("d.npy", save_arrays("npy", GOOD_X, GOOD_Y[:10]), {}, "do not match 10 labels"),
    "npy: binary garbage": (
        "d.npy",
        lambda path: path.write_bytes(GARBAGE) and np.save(path.parent / "y.npy", GOOD_Y),
        {},
        "not a NumPy .npy file (no .npy header)",
    ),
    "npy: a damaged array": (
        "d.npy",
        lambda path: path.write_bytes(b"\x93NUMPY\x01\x00" + GARBAGE) and np.save(path.parent / "y.npy", GOOD_Y),
        {},
        "not a readable NumPy .npy file",
    ),
    "mat: no y": ("d.mat", save_arrays("mat", GOOD_X, GOOD_Y), {"y": "labels"}, "y: no variable 'labels'"),
    "mat: binary garbage": ("d.mat", GARBAGE, {}, "not a readable MATLAB .mat file"),
    "mat: empty": ("d.mat", b"", {}, "not a readable MATLAB .mat file (Mat file appears to be truncated)"),
    "mat: an infinite value": (
        "d.mat",
        save_arrays("mat", np.where(GOOD_X > 2.85, np.inf, GOOD_X), GOOD_Y),
        {},
        "infinite",
    ),
}


def own_data_config(tmp_path, file_name, options) -> Path:
    dataset = {
        "name": "file",
        "options": {"path": file_name or "absent.csv", **options},
        "inliers": [0],
        "outliers": [1],
        "train_inliers": 10,
        "test_inliers": 5,
        "test_outliers": 5,
    }
    config = {
        "name": "own",
        "dataset": dataset,
        "protocol": "novelty",
        "trials": 1,
        "methods": [{"name": "ocsvm", "label": "OCSVM"}],
    }
    return config_file(tmp_path, yaml.safe_dump(config))


def write_data(path: Path, content) -> None:
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, pd.DataFrame):
        content.to_parquet(path)
    elif content is None:
        import pyarrow
        import pyarrow.parquet

        pyarrow.parquet.write_table(pyarrow.table([[1.0, 2.0], [3.0, 4.0], [0, 1]], names=["a", "a", "label"]), path)
    else:
        content(path)


@pytest.mark.parametrize("case", DATA_FILES)
def test_a_bad_data_file_of_any_format_is_one_line_before_any_cell(tmp_path, case):
    file_name, content, options, expected = DATA_FILES[case]
    if file_name is not None:
        write_data(tmp_path / file_name, content)
    result = invoke(own_data_config(tmp_path, file_name, options), "--out", tmp_path / "out", "--quiet")
    assert_one_error_line(result, expected)
    assert not store.ResultStore(tmp_path / "out" / "own").exists()


# ---------------------------------------------------------------------------------------------------------------
# Runs where every cell fails, results folders and damaged state files (run.json, provenance.json,
# environment.json, the lock), write faults and numerics that make a method meaningless.
# ---------------------------------------------------------------------------------------------------------------


def small_data(folder: Path, kind: str) -> Path:
    """A 0/1-labelled CSV of 60 rows: normal features, the same times 1e300, or every feature constant."""
    rng = np.random.default_rng(0)
    X = {"normal": rng.normal(size=(60, 3)), "huge": rng.normal(size=(60, 3)) * 1e300, "constant": np.ones((60, 3))}[
        kind
    ]
    path = folder / f"{kind}.csv"
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=[0] * 45 + [1] * 15).to_csv(path, index=False)
    return path


KPCA = {"name": "kpca", "label": "KPCA", "params": {"n_components": 2, "kernel": "rbf", "gamma": "mean_pairwise"}}
LOF = {"name": "lof", "label": "LOF", "params": {"n_neighbors": 5}}
OCSVM = {"name": "ocsvm", "label": "One-class SVM", "params": {"nu": 0.1}}


def small_config(folder: Path, kind: str, methods: list[dict], trials: int = 2) -> Path:
    """A novelty config on :func:`small_data`, unscaled, named ``small``."""
    entry = {
        "name": "file",
        "options": {"path": small_data(folder, kind).name, "label": "label"},
        "train_inliers": 30,
        "test_inliers": 15,
        "test_outliers": 10,
        "scaling": "none",
    }
    config = {"name": "small", "dataset": entry, "protocol": "novelty", "trials": trials, "seed": 0, "methods": methods}
    path = folder / f"{kind}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def assert_failures_reported(result, *expected: str):
    """Exit 1, one ``error:`` line per expected kind of failure (each naming it), warnings apart, no traceback."""
    output = result.output + result.stderr
    assert result.exit_code == 1, output
    assert "Traceback" not in output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == len(expected), result.stderr
    for line, fragment in zip(errors, expected):
        assert fragment in line, result.stderr
    assert all(line.startswith(("error: ", "warning: ")) for line in result.stderr.splitlines()), result.stderr


# (data, methods, the failed cells' message): every cell of these runs fails.
ALL_FAILED = {
    "features x1e300": ("huge", [KPCA], "the mean pairwise squared distance overflows"),
    "constant features": ("constant", [KPCA], "all training points are identical"),
    "fit raises": ("normal", [OCSVM], "RuntimeError: this detector always fails"),
}


@pytest.mark.parametrize("command", ["run", "report", "run --fail-fast"])
@pytest.mark.parametrize("case", list(ALL_FAILED))
def test_a_run_where_every_cell_fails_ends_with_tables_listing_the_failures(tmp_path, failing_ocsvm, case, command):
    data, methods, message = ALL_FAILED[case]
    config = small_config(tmp_path, data, methods)
    fail_fast = ["--fail-fast"] if command.endswith("--fail-fast") else []
    result = invoke(config, "--out", tmp_path / "out", "--quiet", *fail_fast)
    folder = tmp_path / "out" / "small"
    if command == "report":
        for name in ("trials.csv", "summary.csv", "summary.md"):
            (folder / name).unlink()
        result = CliRunner().invoke(app, ["report", str(folder)])
    n_failed = 1 if fail_fast else 2
    assert_failures_reported(result, f"{n_failed} cells failed, e.g. {methods[0]['label']} trial 0: ")
    assert message in result.stderr
    trials = pd.read_csv(folder / "trials.csv")
    assert len(trials) == n_failed and set(trials["status"]) == {"failed"}
    summary = pd.read_csv(folder / "summary.csv")
    assert summary[["trials", "planned", "failed"]].values.tolist() == [[0, 2, n_failed]]
    markdown = (folder / "summary.md").read_text()
    assert f"| {methods[0]['label']} **(failed)** | 0 / 2 | {n_failed} |" in markdown
    assert f"- {methods[0]['label']}, {n_failed} trial" in markdown and message in markdown


@pytest.mark.parametrize("command", ["run", "report"])
def test_a_suite_where_every_cell_fails_ends_the_same_way(tmp_path, failing_ocsvm, command):
    data = ROOT / "kpca_bench" / "configs" / "examples" / "data"
    datasets = [
        {"name": "file", "options": {"path": str(data / "example.npz")}},
        {
            "name": "file",
            "options": {"path": str(data / "example.csv"), "label": "status"},
            "inliers": ["ok"],
            "outliers": ["faulty"],
        },
    ]
    config = tmp_path / "suite.yaml"
    config.write_text(
        yaml.safe_dump(
            {"name": "suite", "protocol": "adbench", "trials": 1, "seed": 0, "methods": [OCSVM], "datasets": datasets}
        )
    )
    result = invoke(config, "--out", tmp_path, "--quiet")
    if command == "report":
        result = CliRunner().invoke(app, ["report", str(tmp_path / "suite")])
    assert_failures_reported(
        result,
        "2 cells failed, e.g. One-class SVM trial 0: RuntimeError: this detector "
        "always fails; see status and error in the trials.csv of each dataset's folder",
    )
    for member in ("example", "example_2"):
        assert "- One-class SVM, 1 trial: RuntimeError" in (tmp_path / "suite" / member / "summary.md").read_text()


def test_each_kind_of_failure_is_one_line_with_its_count(tmp_path, failing_ocsvm):
    result = invoke(small_config(tmp_path, "constant", [KPCA, OCSVM, LOF]), "--out", tmp_path, "--quiet")
    assert_failures_reported(
        result,
        "2 cells failed, e.g. KPCA trial 0: ValueError: all training points",
        "2 cells failed, e.g. One-class SVM trial 0: RuntimeError: this detector always fails",
    )
    assert result.stderr.count("this detector always fails") == 1  # the first of its kind, once


# Numerics that make a method meaningless: constant scores are flagged, non-finite scores fail the cell.


def test_constant_scores_are_flagged_in_the_record_the_tables_and_one_warning(tmp_path):
    result = invoke(small_config(tmp_path, "constant", [LOF]), "--out", tmp_path, "--quiet")
    assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr
    assert result.stderr.splitlines() == [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert result.stderr.count("(constant scores)") == 1 and "2 of 2 cells finished flagged" in result.stderr
    folder = tmp_path / "small"
    records = ResultStore(folder).records()
    assert [(r["status"], r["degenerate"]) for r in records] == [("ok", "constant scores")] * 2
    assert set(pd.read_csv(folder / "trials.csv")["degenerate"]) == {"constant scores"}
    assert "| LOF **(constant scores: 2 of 2 trials)** | 2 / 2 | 0 |" in (folder / "summary.md").read_text()


@pytest.mark.filterwarnings("ignore:.*sparse components have no non-zero coefficient")
def test_a_model_without_components_is_flagged_in_its_record_and_its_summary(tmp_path):
    empty = {"name": "skpca_l1", "label": "Wang-Tanaka", "params": {"n_components": 2, "lam1": 100.0}}
    result = invoke(small_config(tmp_path, "normal", [empty]), "--out", tmp_path, "--quiet")
    assert result.exit_code == 0 and "(no components: 2 of 2 empty)" in result.stderr
    folder = tmp_path / "small"
    assert [r["degenerate"] for r in ResultStore(folder).records()] == ["no components: 2 of 2 empty"] * 2
    assert set(pd.read_csv(folder / "trials.csv")["degenerate"]) == {"no components: 2 of 2 empty"}
    assert "| Wang-Tanaka **(no components: 2 of 2 empty: 2 of 2 trials)** |" in (folder / "summary.md").read_text()


def test_a_run_with_sound_scores_has_no_flag(tmp_path):
    assert invoke(small_config(tmp_path, "normal", [LOF]), "--out", tmp_path, "--quiet").exit_code == 0
    assert not any("degenerate" in r for r in ResultStore(tmp_path / "small").records())
    assert "degenerate" not in pd.read_csv(tmp_path / "small" / "trials.csv")
    assert "**(" not in (tmp_path / "small" / "summary.md").read_text()


def test_features_that_overflow_flag_every_detector_not_only_kernel_methods(tmp_path):
    forest = {"name": "isolation_forest", "label": "Isolation forest", "params": {"n_estimators": 10}}
    result = invoke(small_config(tmp_path, "huge", [LOF, forest]), "--out", tmp_path, "--quiet")
    flag = "overflow: features as large as"
    records = ResultStore(tmp_path / "small").records()
    assert all(flag in r["degenerate"] for r in records)
    assert "Traceback" not in result.output + result.stderr and flag in result.stderr
    row = next(
        line
        for line in (tmp_path / "small" / "summary.md").read_text().splitlines()
        if line.startswith("| Isolation forest")
    )
    assert row.startswith("| Isolation forest **(") and flag in row and "2 of 2 trials)**" in row


class NaNScores(OneClassSVM):
    def score_samples(self, X):
        return np.full(len(X), np.nan)


def test_non_finite_scores_fail_the_cell(tmp_path, monkeypatch):
    monkeypatch.setitem(METHODS, "ocsvm", replace(METHODS["ocsvm"], estimator=NaNScores))
    result = invoke(small_config(tmp_path, "normal", [OCSVM]), "--out", tmp_path, "--quiet")
    assert_failures_reported(
        result,
        "2 cells failed, e.g. One-class SVM trial 0: NonFiniteScores: the method produced NaN or infinite scores",
    )
    assert set(pd.read_csv(tmp_path / "small" / "trials.csv")["error_type"]) == {"NonFiniteScores"}


@pytest.mark.parametrize(
    "scores, flagged",
    [
        ([0.5, 0.5, 0.5], True),
        ([0.0, 0.0], True),
        ([1e300, 1e300 * (1 + 1e-16)], True),
        ([1.0, 1.0, 1.0 + 1e-9], False),
        ([0.0, 1e-300], False),
    ],
)
def test_constant_scores_mean_equal_up_to_rounding(scores, flagged):
    assert constant_scores(np.array(scores)) == ({"degenerate": "constant scores"} if flagged else {})


@pytest.mark.parametrize(
    "scale, n_features, flagged", [(1e300, 3, True), (1e154, 1, True), (1e153, 1, False), (1.0, 100, False)]
)
def test_input_overflow_names_features_whose_squared_distances_overflow(scale, n_features, flagged):
    split = SimpleNamespace(X_train=np.full((4, n_features), scale), X_test=-np.full((2, n_features), scale))
    message = input_overflow(split)
    assert (message is not None) == flagged
    if flagged:
        assert f"features as large as {scale:.3g}" in message


def caught_overflow() -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.exp(np.array([1000.0]))
    return caught


@pytest.mark.parametrize(
    "result, caught, flag",
    [
        ({"status": "ok"}, "overflow", "overflow encountered in exp"),
        ({"status": "ok", "degenerate": "constant scores"}, "overflow", "constant scores; overflow encountered in exp"),
        ({"status": "ok"}, "none", None),
        ({"status": "ok", "degenerate": "constant scores"}, "none", "constant scores"),
    ],
)
def test_an_overflow_during_a_cell_is_added_to_its_flag(result, caught, flag):
    small = SimpleNamespace(X_train=np.ones((3, 2)), X_test=np.ones((2, 2)))
    flagged = flag_overflow(result, small, caught_overflow() if caught == "overflow" else [])
    assert flagged.get("degenerate") == flag and flagged["status"] == "ok"


# Damaged state files: moved aside whole (STEM.damaged.SUFFIX), and the command goes on or stops with one line.


@pytest.fixture
def finished_run(tmp_path):
    """A finished one-trial run of a small config: its folder."""
    config = small_config(tmp_path, "normal", [KPCA], trials=1)
    assert invoke(config, "--out", tmp_path / "out", "--quiet").exit_code == 0
    return tmp_path / "out" / "small"


DAMAGE = {"not JSON": b"{garbage", "not UTF-8": b"\xff\xfe\x00{", "a list": b"[1, 2]", "cut short": b'{"sou'}


def quick_first(kinds: list) -> list:
    """Kinds of damage, each a run: the first in the quick subset, the others in `make test`."""
    return [kinds[0], *(pytest.param(kind, marks=pytest.mark.slow) for kind in kinds[1:])]


def report(folder: Path, *args):
    return CliRunner().invoke(app, ["report", str(folder), *map(str, args)])


@pytest.mark.parametrize("damage", quick_first([*DAMAGE, "no config", "config not YAML"]))
def test_report_with_a_damaged_run_json_sets_it_aside_and_finds_the_config(finished_run, damage):
    run_file = finished_run / "run.json"
    run = json.loads(run_file.read_text())
    content = {
        "no config": json.dumps({**run, "config": None}).encode(),
        "config not YAML": json.dumps({**run, "config": "name: [unclosed"}).encode(),
    }.get(damage)
    run_file.write_bytes(content or DAMAGE[damage])
    (finished_run / "summary.md").unlink()
    result = report(finished_run, "--configs", finished_run.parents[1])
    assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr, result.output + result.stderr
    assert result.stderr.count("\n") == 1 and f"{run_file} is damaged; moved it to" in result.stderr
    assert (finished_run / "run.damaged.json").read_bytes() == (content or DAMAGE[damage])
    assert (finished_run / "summary.md").exists() and not run_file.exists()


def test_report_with_a_damaged_run_json_and_no_config_stops_with_one_line(finished_run):
    (finished_run / "run.json").write_bytes(DAMAGE["not JSON"])
    result = report(finished_run, "--configs", finished_run)  # no config there
    assert result.exit_code == 2 and "Traceback" not in result.output + result.stderr
    assert [line.split(":")[0] for line in result.stderr.splitlines()][-1] == "error"
    assert "no config in" in result.stderr.splitlines()[-1] and "--configs" in result.stderr.splitlines()[-1]


@pytest.mark.parametrize("damage", quick_first([*DAMAGE, "no source"]))
def test_report_with_a_damaged_provenance_json_reads_the_dataset_again(finished_run, damage):
    content = json.dumps({"notes": "x"}).encode() if damage == "no source" else DAMAGE[damage]
    (finished_run / "provenance.json").write_bytes(content)
    result = report(finished_run)
    assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr, result.output + result.stderr
    assert result.stderr.count("\n") == 1 and "provenance.json is damaged" in result.stderr
    assert (finished_run / "provenance.damaged.json").read_bytes() == content
    assert "normal.csv" in (finished_run / "summary.md").read_text()  # the provenance, read again


@pytest.mark.parametrize("damage", quick_first([*DAMAGE, "environments not a list"]))
def test_a_damaged_environment_json_is_set_aside_keeping_its_history(finished_run, damage):
    content = b'{"environments": {"python": 3}}' if damage == "environments not a list" else DAMAGE[damage]
    (finished_run / "environment.json").write_bytes(content)
    config = finished_run.parents[1] / "normal.yaml"
    result = invoke(config, "--out", finished_run.parent, "--quiet")
    assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr
    assert result.stderr.count("\n") == 1 and "environment.json is damaged" in result.stderr
    assert (finished_run / "environment.damaged.json").read_bytes() == content
    assert len(json.loads((finished_run / "environment.json").read_text())["environments"]) == 1
    (finished_run / "environment.json").write_bytes(content)  # damaged again: the earlier copy is kept
    assert invoke(config, "--out", finished_run.parent, "--quiet").exit_code == 0
    assert (finished_run / "environment.damaged.json").read_bytes() == content
    assert (finished_run / "environment.damaged-2.json").read_bytes() == content


@pytest.mark.parametrize("damage", quick_first(["not JSON", "not UTF-8", "a folder"]))
@pytest.mark.parametrize("damaged", [".kpca-bench.lock", ".kpca-bench.holder"])
def test_a_damaged_lock_file_does_not_stop_a_run(finished_run, damage, damaged):
    path = finished_run / damaged
    if damage == "a folder":
        path.unlink(missing_ok=True)
        (path / "inside").mkdir(parents=True)
    else:
        path.write_bytes(DAMAGE[damage])
    result = invoke(finished_run.parents[1] / "normal.yaml", "--out", finished_run.parent, "--quiet")
    moved_aside = damage == "a folder" and damaged == ".kpca-bench.lock"
    if damage == "a folder" and not moved_aside:  # a folder in the holder file's place: one line, exit 2
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and ".kpca-bench.holder" in result.stderr
        return
    assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr, result.stderr
    assert not (finished_run / ".kpca-bench.holder").exists()  # written anew, and removed as the run let go
    assert (finished_run / ".kpca-bench.damaged.lock" / "inside").is_dir() == moved_aside
    assert result.stderr.count("\n") == moved_aside


def test_run_with_a_damaged_run_json_writes_it_anew(finished_run):
    (finished_run / "run.json").write_bytes(DAMAGE["not UTF-8"])
    result = invoke(finished_run.parents[1] / "normal.yaml", "--out", finished_run.parent, "--quiet")
    assert result.exit_code == 0 and json.loads((finished_run / "run.json").read_text())["profile"] == "full"


# File-system faults made real: a small tmpfs (as root), full or read-only.


@pytest.fixture
def tmpfs(tmp_path):
    """A mount point of a tmpfs of 24 KiB (resized with ``remount(...)``), unmounted in teardown."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root; the full-disk faults are also simulated above")
    point = tmp_path / "tmpfs"
    point.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24k", "tmpfs", str(point)]).returncode != 0:
        pytest.skip("mount -t tmpfs failed (no mount permission in this container)")

    def remount(options: str):
        subprocess.run(["mount", "-o", f"remount,{options}", str(point)], check=True)

    yield point, remount
    subprocess.run(["umount", str(point)], check=True)


def whole_lines(path: Path) -> list[dict]:
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


@pytest.mark.slow  # three runs on a real tmpfs; the faults are also simulated above
def test_on_a_full_disk_the_message_names_records_jsonl_and_it_holds_whole_lines(tmpfs):
    point, remount = tmpfs
    result = invoke(QUICKSTART, "--out", point, "--quiet", "--trials", "3")
    assert_one_error_line(result, f"cannot write {point / 'quickstart' / 'records.jsonl'}: No space left on device")
    folder = point / "quickstart"
    if (folder / "records.jsonl").exists():  # no room to fold it into the table either
        whole_lines(folder / "records.jsonl")
    assert 0 < len(ResultStore(folder).records()) < 12
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    remount("size=4m")  # room again: the same command finishes what is left
    assert invoke(QUICKSTART, "--out", point, "--quiet", "--trials", "3").exit_code == 0
    assert len(ResultStore(folder).records()) == 12 and not (folder / "records.jsonl").exists()
    assert pd.read_csv(folder / "summary.csv")["trials"].tolist() == [3] * 4


@pytest.mark.slow  # runs on a real tmpfs; the faults are also simulated above
@pytest.mark.parametrize("command", ["run", "report"])
def test_a_read_only_results_folder_is_one_line(tmpfs, command):
    point, remount = tmpfs
    remount("size=4m")
    assert invoke(QUICKSTART, "--out", point, "--quiet", "--trials", "1").exit_code == 0
    remount("ro")
    folder = point / "quickstart"
    before = (folder / "records.parquet").read_bytes()
    if command == "run":
        result = invoke(QUICKSTART, "--out", point, "--quiet", "--trials", "1")
    else:
        result = report(folder)
    assert_one_error_line(result, "Read-only file system")
    assert (folder / "records.parquet").read_bytes() == before


@pytest.mark.filterwarnings("ignore:.*sparse components have no non-zero coefficient")
@pytest.mark.parametrize("protocol", ["adbench", "unsupervised"])
def test_a_model_without_components_is_flagged_under_the_other_detection_protocols(tmp_path, protocol):
    path = small_config(
        tmp_path,
        "normal",
        [{"name": "skpca_l1", "label": "Wang-Tanaka", "params": {"n_components": 2, "lam1": 100.0}}],
        trials=1,
    )
    config = yaml.safe_load(path.read_text())
    config["protocol"] = protocol
    config["dataset"] = {
        key: value
        for key, value in config["dataset"].items()
        if key not in ("train_inliers", "test_inliers", "test_outliers")
    }
    path.write_text(yaml.safe_dump(config))
    result = invoke(path, "--out", tmp_path, "--quiet")
    assert result.exit_code == 0, result.output + result.stderr
    records = ResultStore(tmp_path / "small").records()
    assert [r["degenerate"] for r in records] == ["no components: 2 of 2 empty"]
