"""End to end: the quickstart through the CLI, determinism across runs and --jobs, resume and --reuse-from."""

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.experiment.store import ResultStore

QUICKSTART = Path(__file__).parents[1] / "configs" / "quickstart.yaml"
TIMING = ["fit_time", "score_time", "wall_time", "peak_memory_mb"]
# The quickstart's 4 methods at 3 of its 10 trials, 12 cells: determinism, resume and reuse show as they do at 40.
THREE_TRIALS = ("--trials", "3")


def patch_evaluate(monkeypatch, evaluate):
    """Replace the novelty protocol's evaluation (runs in-process with --jobs 1)."""
    monkeypatch.setattr(PROTOCOLS["novelty"], "evaluate", evaluate)


def run(out, *args):
    result = CliRunner().invoke(app, ["run", str(QUICKSTART), "--out", str(out), "--quiet", *args])
    assert result.exit_code == 0, result.output + result.stderr
    return pd.read_csv(out / "quickstart" / "trials.csv")


def without_timing(frame):
    return frame.drop(columns=TIMING)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory):
    out = tmp_path_factory.mktemp("quickstart")
    return out, run(out, *THREE_TRIALS)


def test_quickstart_writes_tables_and_figures(quickstart):
    out, trials = quickstart
    directory = out / "quickstart"
    for name in ["trials.csv", "summary.csv", "summary.md", "f1_box.png", "roc.png", "records.parquet"]:
        assert (directory / name).stat().st_size > 0, name
    assert not (directory / "records.jsonl").exists()  # the journal is folded into the table at the end
    assert len(trials) == 12 and set(trials["status"]) == {"ok"}
    kpca = trials[trials["method"] == "KPCA"]
    assert kpca["auroc"].mean() > 0.9
    assert (kpca["sparsity"] == 100).all() and kpca["gamma"].gt(0).all()
    assert trials["config_hash"].nunique() == 1 and trials["data_fingerprint"].nunique() == 1
    summary = pd.read_csv(directory / "summary.csv")
    assert list(summary["method"]) == ["KPCA", "KPCA-Mahalanobis", "One-class SVM", "Isolation forest"]


def test_same_config_twice_gives_identical_trials(quickstart, tmp_path):
    _, first = quickstart
    pd.testing.assert_frame_equal(without_timing(first), without_timing(run(tmp_path, *THREE_TRIALS)))


@pytest.mark.slow
def test_parallel_run_is_identical_to_serial(quickstart, tmp_path):
    _, serial = quickstart
    pd.testing.assert_frame_equal(without_timing(serial), without_timing(run(tmp_path, *THREE_TRIALS, "--jobs", "2")))


def test_rerun_reuses_every_finished_cell(quickstart, monkeypatch):
    out, trials = quickstart
    calls = []
    patch_evaluate(monkeypatch, lambda *a: calls.append(a))
    pd.testing.assert_frame_equal(trials, run(out, *THREE_TRIALS))
    assert calls == []


@pytest.mark.slow
def test_interrupted_run_resumes_without_recomputing(quickstart, tmp_path, monkeypatch):
    _, complete = quickstart
    real = PROTOCOLS["novelty"].evaluate
    calls = []

    def interrupt_after_five(*args):
        calls.append(args)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real(*args)

    patch_evaluate(monkeypatch, interrupt_after_five)
    result = CliRunner().invoke(app, ["run", str(QUICKSTART), "--out", str(tmp_path), "--quiet", *THREE_TRIALS])
    assert result.exit_code == 130 and "run the same command again to resume" in result.stderr
    partial = pd.read_csv(tmp_path / "quickstart" / "trials.csv")
    assert len(partial) == 5

    calls.clear()
    patch_evaluate(monkeypatch, lambda *a: calls.append(a) or real(*a))
    resumed = run(tmp_path, *THREE_TRIALS)
    assert len(calls) == len(complete) - 5
    pd.testing.assert_frame_equal(without_timing(complete), without_timing(resumed))


@pytest.mark.slow
def test_a_torn_last_record_is_dropped_and_recomputed(quickstart, tmp_path, as_journal):
    _, complete = quickstart
    run(tmp_path, "--trials", "1")
    records = as_journal(tmp_path / "quickstart")
    records.write_bytes(records.read_bytes() + b'{"key": "half-writ')
    resumed = run(tmp_path, *THREE_TRIALS)
    pd.testing.assert_frame_equal(without_timing(complete), without_timing(resumed))


def test_overrides_change_trials_and_seed(tmp_path):
    trials = run(tmp_path, "--trials", "2", "--seed", "7")
    assert sorted(trials["trial"].unique()) == [0, 1]


def test_help_explains_the_run_command():
    result = CliRunner().invoke(app, ["run", "--help"])
    assert result.exit_code == 0
    assert "--jobs" in result.output and "resum" in result.output


def test_entries_that_differ_only_in_label_are_both_reported(tmp_path):
    config = tmp_path / "twins.yaml"
    config.write_text(
        QUICKSTART.read_text()
        .replace("label: KPCA-Mahalanobis", "label: Twin")
        .replace(
            "score: mahalanobis        # Li et al.: distance inside the principal subspace",
            "score: reconstruction_error",
        )
    )
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path), "--quiet", "--trials", "2"])
    assert result.exit_code == 0, result.output
    trials = pd.read_csv(tmp_path / "quickstart" / "trials.csv")
    kpca, twin = trials[trials["method"] == "KPCA"], trials[trials["method"] == "Twin"]
    assert len(kpca) == len(twin) == 2
    assert list(kpca["auroc"]) == list(twin["auroc"]) and list(kpca["key"]) == list(twin["key"])


def kpca_only(tmp_path):
    """The quickstart with its first method entry alone."""
    config = yaml.safe_load(QUICKSTART.read_text())
    config["methods"] = config["methods"][:1]
    path = tmp_path / "kpca_only.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_reuse_from_copies_the_planned_finished_cells_and_runs_the_rest(quickstart, tmp_path, monkeypatch):
    source, complete = quickstart
    real = PROTOCOLS["novelty"].evaluate
    calls = []
    patch_evaluate(monkeypatch, lambda *a: calls.append(a) or real(*a))
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(kpca_only(tmp_path)),
            "--out",
            str(tmp_path / "out"),
            "--quiet",
            "--trials",
            "4",
            "--reuse-from",
            str(source / "quickstart"),
        ],
    )
    assert result.exit_code == 0, result.output + result.stderr
    assert f"reused 3 finished cells of {source / 'quickstart'}" in result.stderr
    assert len(calls) == 1  # trial 3 alone is not in the source
    records = ResultStore(tmp_path / "out" / "quickstart").records()
    assert len(records) == 4 and sum("reused_from" in r for r in records) == 3
    trials = pd.read_csv(tmp_path / "out" / "quickstart" / "trials.csv").set_index("trial")
    expected = complete[complete["method"] == "KPCA"].set_index("trial")
    assert_allclose(trials.loc[range(3), "auroc"], expected["auroc"])


def test_reuse_from_refuses_other_data_and_an_empty_folder(quickstart, tmp_path):
    source, _ = quickstart
    other = tmp_path / "other"
    other.mkdir()
    (other / "records.jsonl").write_text(
        "".join(
            json.dumps({**record, "data_fingerprint": "0123456789abcdef"}) + "\n"
            for record in ResultStore(source / "quickstart").records()
        )
    )
    for folder, message in [
        (other, "computed on other data (data fingerprint 0123456789abcdef"),
        (tmp_path / "empty", "no finished records there"),
    ]:
        result = CliRunner().invoke(
            app,
            [
                "run",
                str(QUICKSTART),
                "--out",
                str(tmp_path / "out"),
                "--quiet",
                "--trials",
                "1",
                "--reuse-from",
                str(folder),
            ],
        )
        assert result.exit_code == 2, result.output + result.stderr
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not ResultStore(tmp_path / "out" / "quickstart").exists()


@pytest.mark.parametrize("command", ["run", "plan"])
@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_out_is_one_line_and_exit_2(tmp_path, monkeypatch, command, out):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [command, str(QUICKSTART), "--out", out])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: --out: an empty path names no folder (the run would write into "
        "the current one); give a folder, e.g. --out results"
    ]
    assert list(tmp_path.iterdir()) == []
