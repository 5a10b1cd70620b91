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

# This section's own imports, kept here so that the sections above and below merge apart.
import json  # noqa: E402
import subprocess  # noqa: E402
import warnings  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from kpca_bench.protocols.base import constant_scores  # noqa: E402
from kpca_bench.run.runner import flag_overflow, input_overflow  # noqa: E402


def small_data(folder: Path, kind: str) -> Path:
    """A 0/1-labelled CSV of 60 rows: normal features, the same times 1e300, or every feature constant."""
    rng = np.random.default_rng(0)
    X = {"normal": rng.normal(size=(60, 3)), "huge": rng.normal(size=(60, 3)) * 1e300,
         "constant": np.ones((60, 3))}[kind]
    path = folder / f"{kind}.csv"
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=[0] * 45 + [1] * 15).to_csv(path, index=False)
    return path


KPCA = {"name": "kpca", "label": "KPCA", "params": {"n_components": 2, "kernel": "rbf", "gamma": "mean_pairwise"}}
LOF = {"name": "lof", "label": "LOF", "params": {"n_neighbors": 5}}
OCSVM = {"name": "ocsvm", "label": "One-class SVM", "params": {"nu": 0.1}}


def small_config(folder: Path, kind: str, methods: list[dict], trials: int = 2) -> Path:
    """A novelty config on :func:`small_data`, unscaled, named ``small``."""
    entry = {"name": "file", "options": {"path": small_data(folder, kind).name, "label": "label"},
             "train_inliers": 30, "test_inliers": 15, "test_outliers": 10, "scaling": "none"}
    config = {"name": "small", "dataset": entry, "protocol": "novelty", "trials": trials, "seed": 0,
              "methods": methods}
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
    data = ROOT / "tests" / "data"
    datasets = [{"name": "file", "options": {"path": str(data / "example.npz")}},
                {"name": "file", "options": {"path": str(data / "example.csv"), "label": "status"},
                 "inliers": ["ok"], "outliers": ["faulty"]}]
    config = tmp_path / "suite.yaml"
    config.write_text(yaml.safe_dump({"name": "suite", "protocol": "adbench", "trials": 1, "seed": 0,
                                      "methods": [OCSVM], "datasets": datasets}))
    result = invoke(config, "--out", tmp_path, "--quiet")
    if command == "report":
        result = CliRunner().invoke(app, ["report", str(tmp_path / "suite")])
    assert_failures_reported(result, "2 cells failed, e.g. One-class SVM trial 0: RuntimeError: this detector "
                                     "always fails; see status and error in the trials.csv of each dataset's folder")
    for member in ("example", "example_2"):
        assert "- One-class SVM, 1 trial: RuntimeError" in (tmp_path / "suite" / member / "summary.md").read_text()


def test_each_kind_of_failure_is_one_line_with_its_count(tmp_path, failing_ocsvm):
    result = invoke(small_config(tmp_path, "constant", [KPCA, OCSVM, LOF]), "--out", tmp_path, "--quiet")
    assert_failures_reported(result, "2 cells failed, e.g. KPCA trial 0: ValueError: all training points",
                             "2 cells failed, e.g. One-class SVM trial 0: RuntimeError: this detector always fails")
    assert result.stderr.count("this detector always fails") == 1  # the first of its kind, once


# Numerics that make a method meaningless: constant scores are flagged, non-finite scores fail the cell.

def test_constant_scores_are_flagged_in_the_record_the_tables_and_one_warning(tmp_path):
    result = invoke(small_config(tmp_path, "constant", [LOF]), "--out", tmp_path, "--quiet")
    assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr
    assert result.stderr.splitlines() == [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert result.stderr.count("(constant scores)") == 1 and "2 of 2 cells finished flagged" in result.stderr
    folder = tmp_path / "small"
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    assert [(r["status"], r["degenerate"]) for r in records] == [("ok", "constant scores")] * 2
    assert set(pd.read_csv(folder / "trials.csv")["degenerate"]) == {"constant scores"}
    assert "| LOF **(constant scores: 2 of 2 trials)** | 2 / 2 | 0 |" in (folder / "summary.md").read_text()


def test_a_run_with_sound_scores_has_no_flag(tmp_path):
    assert invoke(small_config(tmp_path, "normal", [LOF]), "--out", tmp_path, "--quiet").exit_code == 0
    assert "degenerate" not in (tmp_path / "small" / "records.jsonl").read_text()
    assert "degenerate" not in pd.read_csv(tmp_path / "small" / "trials.csv")
    assert "**(" not in (tmp_path / "small" / "summary.md").read_text()


def test_features_that_overflow_flag_every_detector_not_only_kernel_methods(tmp_path):
    forest = {"name": "isolation_forest", "label": "Isolation forest", "params": {"n_estimators": 10}}
    result = invoke(small_config(tmp_path, "huge", [LOF, forest]), "--out", tmp_path, "--quiet")
    flag = "overflow: features as large as"
    records = [json.loads(line) for line in (tmp_path / "small" / "records.jsonl").read_text().splitlines()]
    assert all(flag in r["degenerate"] for r in records)
    assert "Traceback" not in result.output + result.stderr and flag in result.stderr
    row = next(line for line in (tmp_path / "small" / "summary.md").read_text().splitlines()
               if line.startswith("| Isolation forest"))
    assert row.startswith("| Isolation forest **(") and flag in row and "2 of 2 trials)**" in row


class NaNScores(OneClassSVM):
    def score_samples(self, X):
        return np.full(len(X), np.nan)


def test_non_finite_scores_fail_the_cell(tmp_path, monkeypatch):
    monkeypatch.setitem(METHODS, "ocsvm", replace(METHODS["ocsvm"], estimator=NaNScores))
    result = invoke(small_config(tmp_path, "normal", [OCSVM]), "--out", tmp_path, "--quiet")
    assert_failures_reported(result, "2 cells failed, e.g. One-class SVM trial 0: NonFiniteScores: the method "
                                     "produced NaN or infinite scores")
    assert set(pd.read_csv(tmp_path / "small" / "trials.csv")["error_type"]) == {"NonFiniteScores"}


@pytest.mark.parametrize("scores, flagged", [
    ([0.5, 0.5, 0.5], True),
    ([0.0, 0.0], True),
    ([1e300, 1e300 * (1 + 1e-16)], True),
    ([1.0, 1.0, 1.0 + 1e-9], False),
    ([0.0, 1e-300], False),
])
def test_constant_scores_mean_equal_up_to_rounding(scores, flagged):
    assert constant_scores(np.array(scores)) == ({"degenerate": "constant scores"} if flagged else {})


@pytest.mark.parametrize("scale, n_features, flagged", [(1e300, 3, True), (1e154, 1, True), (1e153, 1, False),
                                                        (1.0, 100, False)])
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


@pytest.mark.parametrize("result, caught, flag", [
    ({"status": "ok"}, "overflow", "overflow encountered in exp"),
    ({"status": "ok", "degenerate": "constant scores"}, "overflow", "constant scores; overflow encountered in exp"),
    ({"status": "ok"}, "none", None),
    ({"status": "ok", "degenerate": "constant scores"}, "none", "constant scores"),
])
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


def report(folder: Path, *args):
    return CliRunner().invoke(app, ["report", str(folder), *map(str, args)])


@pytest.mark.parametrize("damage", [*DAMAGE, "no config", "config not YAML"])
def test_report_with_a_damaged_run_json_sets_it_aside_and_finds_the_config(finished_run, damage):
    run_file = finished_run / "run.json"
    run = json.loads(run_file.read_text())
    content = {"no config": json.dumps({**run, "config": None}).encode(),
               "config not YAML": json.dumps({**run, "config": "name: [unclosed"}).encode()}.get(damage)
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


@pytest.mark.parametrize("damage", [*DAMAGE, "no source"])
def test_report_with_a_damaged_provenance_json_reads_the_dataset_again(finished_run, damage):
    content = json.dumps({"notes": "x"}).encode() if damage == "no source" else DAMAGE[damage]
    (finished_run / "provenance.json").write_bytes(content)
    result = report(finished_run)
    assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr, result.output + result.stderr
    assert result.stderr.count("\n") == 1 and "provenance.json is damaged" in result.stderr
    assert (finished_run / "provenance.damaged.json").read_bytes() == content
    assert "normal.csv" in (finished_run / "summary.md").read_text()  # the provenance, read again


@pytest.mark.parametrize("damage", [*DAMAGE, "environments not a list"])
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


@pytest.mark.parametrize("damage", ["not JSON", "not UTF-8", "a folder"])
def test_a_damaged_lock_file_does_not_stop_a_run(finished_run, damage):
    lock = finished_run / ".kpca-bench.lock"
    if damage == "a folder":
        lock.unlink()
        (lock / "inside").mkdir(parents=True)
    else:
        lock.write_bytes(DAMAGE[damage])
    result = invoke(finished_run.parents[1] / "normal.yaml", "--out", finished_run.parent, "--quiet")
    assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr, result.stderr
    assert json.loads(lock.read_text())["pid"] == os.getpid()  # the holder is written anew
    assert (finished_run / ".kpca-bench.damaged.lock" / "inside").is_dir() == (damage == "a folder")
    assert result.stderr.count("\n") == (damage == "a folder")


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


def test_on_a_full_disk_the_message_names_records_jsonl_and_it_holds_whole_lines(tmpfs):
    point, remount = tmpfs
    result = invoke(QUICKSTART, "--out", point, "--quiet", "--trials", "3")
    assert_one_error_line(result, f"cannot write {point / 'quickstart' / 'records.jsonl'}: No space left on device")
    folder = point / "quickstart"
    kept = whole_lines(folder / "records.jsonl")
    assert 0 < len(kept) < 12
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    remount("size=4m")  # room again: the same command finishes what is left
    assert invoke(QUICKSTART, "--out", point, "--quiet", "--trials", "3").exit_code == 0
    assert len(whole_lines(folder / "records.jsonl")) == 12
    assert pd.read_csv(folder / "summary.csv")["trials"].tolist() == [3] * 4


@pytest.mark.parametrize("command", ["run", "report"])
def test_a_read_only_results_folder_is_one_line(tmpfs, command):
    point, remount = tmpfs
    remount("size=4m")
    assert invoke(QUICKSTART, "--out", point, "--quiet", "--trials", "1").exit_code == 0
    remount("ro")
    folder = point / "quickstart"
    before = (folder / "records.jsonl").read_bytes()
    if command == "run":
        result = invoke(QUICKSTART, "--out", point, "--quiet", "--trials", "1")
    else:
        result = report(folder)
    assert_one_error_line(result, "Read-only file system")
    assert (folder / "records.jsonl").read_bytes() == before
