"""Cells on a Dask cluster give the serial run's numbers and resume the same way; the memory budget
bounds the test-vs-train kernel, reaches every cell and is recorded with the cell's peak memory; workers and
their BLAS threads stay within the machine's usable cores."""

import atexit
import json
import logging
import socket
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.kernels import BLOCK_BYTES, blas_threads
from kpca_bench.methods import KernelPCA, KernelSubspaceDetector
from kpca_bench.methods.kpca import BaseKernelPCA
from kpca_bench.experiment import execution
from kpca_bench.experiment.config import ExecutionConfig
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.execution import discard_output, is_not_failed_sync_cancel, quiet_on_interrupt
from kpca_bench.experiment.memory import peak_memory
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.experiment.store import ResultStore

QUICKSTART = Path(__file__).parents[1] / "configs" / "quickstart.yaml"
MEASUREMENTS = ["fit_time", "score_time", "wall_time", "peak_memory_mb", "max_memory_mb"]
ON_LINUX = sys.platform == "linux"


def invoke(out, *args):
    return CliRunner().invoke(app, ["run", str(QUICKSTART), "--out", str(out), "--quiet", "--trials", "2", *args])


def run(out, *args):
    result = invoke(out, *args)
    assert result.exit_code == 0, result.output + result.stderr
    return pd.read_csv(out / "quickstart" / "trials.csv").drop(columns=MEASUREMENTS, errors="ignore")


def stored_records(out) -> list[dict]:
    return ResultStore(out / "quickstart").records()


def assert_one_error_line(result, expected):
    assert result.exit_code == 2, result.output + result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert expected in result.stderr


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """The quickstart's first two trials, run in this process."""
    return run(tmp_path_factory.mktemp("serial"))


@pytest.fixture(scope="module")
def scheduler():
    """The address of a LocalCluster of two single-threaded worker processes on loopback."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address


@pytest.mark.slow  # a LocalCluster of two worker processes
def test_a_dask_run_gives_the_serial_numbers(serial, scheduler, tmp_path):
    trials = run(tmp_path, "--scheduler", scheduler, "--max-memory", "64")
    pd.testing.assert_frame_equal(serial, trials)
    records = stored_records(tmp_path)
    assert {r["max_memory_mb"] for r in records} == {64}  # read on the worker, inside the cell
    if ON_LINUX:
        assert all(r["peak_memory_mb"] > 0 for r in records)


@pytest.mark.slow  # a LocalCluster of two worker processes
def test_a_dask_run_stores_each_cell_as_it_arrives_and_resumes(serial, scheduler, tmp_path, monkeypatch):
    append = ResultStore.append

    def interrupt_after_three(store, record):
        if len(store.load()) == 3:
            raise KeyboardInterrupt
        append(store, record)

    monkeypatch.setattr(ResultStore, "append", interrupt_after_three)
    result = invoke(tmp_path, "--scheduler", scheduler)
    assert result.exit_code == 130 and "run the same command again to resume" in result.stderr
    assert len(stored_records(tmp_path)) == 3

    monkeypatch.setattr(ResultStore, "append", append)
    pd.testing.assert_frame_equal(serial, run(tmp_path, "--scheduler", scheduler))
    assert len(stored_records(tmp_path)) == len(serial)  # the three finished cells were not run again


@pytest.mark.slow  # starts a LocalCluster
def test_scheduler_local_starts_a_local_cluster(serial, tmp_path):
    pytest.importorskip("distributed")
    trials = run(tmp_path, "--scheduler", "local", "--jobs", "1", "--trials", "1")
    pd.testing.assert_frame_equal(serial[serial["trial"] == 0].reset_index(drop=True), trials)


def test_dask_without_the_extra_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes 'import distributed' fail
    result = invoke(tmp_path, "--scheduler", "local")
    assert_one_error_line(result, 'needs the dask extra: pip install "kpca-bench[dask]"')
    assert not ResultStore(tmp_path / "quickstart").exists()  # the folder is claimed first, but holds nothing


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_scheduler_is_one_line(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(execution, "CONNECT_TIMEOUT_S", 1)
    address = f"tcp://127.0.0.1:{free_port()}"
    assert_one_error_line(invoke(tmp_path, "--scheduler", address), f"cannot reach the Dask scheduler at {address}")


@pytest.mark.slow  # two runs
def test_a_finished_run_reaches_no_cluster(tmp_path):
    run(tmp_path, "--trials", "1")
    run(tmp_path, "--trials", "1", "--scheduler", f"tcp://127.0.0.1:{free_port()}")


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--scheduler", "tcp://[::1"], "bad Dask scheduler address tcp://[::1"),
        (
            ["--scheduler", "10.0.0.5:8786"],
            "--scheduler: must be 'local' (start a LocalCluster) or a scheduler address",
        ),
        (["--max-memory", "0"], "--max-memory: must be a positive number of MiB"),
    ],
)
def test_bad_execution_flags_are_one_line(tmp_path, args, expected):
    if args[1].startswith("tcp://"):
        pytest.importorskip("distributed")
    assert_one_error_line(invoke(tmp_path, *args), expected)


def test_help_names_the_flags_and_the_extra():
    result = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.replace("│", " ").split())  # rich wraps long help lines in a box
    assert "--scheduler" in text and "--max-memory" in text
    assert 'pip install "kpca-bench[dask]"' in text


def test_where_cells_run_changes_no_cell_key(tmp_path):
    config = tmp_path / "quickstart.yaml"
    config.write_text(
        QUICKSTART.read_text() + "execution: {backend: dask, address: tcp://cluster:8786, max_memory_mb: 256}\n"
    )
    on_dask, serial = load_config(config), load_config(QUICKSTART)
    assert on_dask.execution.max_memory_mb == 256 and on_dask.execution.address == "tcp://cluster:8786"
    assert on_dask.config_hash() == serial.config_hash()
    assert [c.key for c in plan_cells(on_dask)] == [c.key for c in plan_cells(serial)]


def test_scoring_builds_the_kernel_in_blocks_within_the_budget():
    rng = np.random.default_rng(0)
    X_train, X_test = rng.normal(size=(500, 8)), rng.normal(size=(6000, 8))
    full_kernel_mib = X_test.shape[0] * X_train.shape[0] * 8 / 2**20  # 22.9 MiB
    detector = KernelSubspaceDetector(KernelPCA(n_components=10, gamma=0.1)).fit(X_train)

    def result_and_peak_mib(func, budget_mib=1024):
        tracemalloc.start()
        try:
            with sklearn.config_context(working_memory=budget_mib):
                result = func()
            return result, tracemalloc.get_traced_memory()[1] / 2**20
        finally:
            tracemalloc.stop()

    _, full_peak = result_and_peak_mib(lambda: detector.estimator_.kernel_(X_test, X_train))
    blocked, blocked_peak = result_and_peak_mib(lambda: detector.score_samples(X_test), budget_mib=0.5)
    cached, cached_peak = result_and_peak_mib(lambda: detector.score_samples(X_test))
    assert full_peak > full_kernel_mib  # the measurement sees a full matrix when one is built
    assert blocked_peak < 2
    # A large budget still gets cache-sized blocks, one per BLAS thread at a time.
    assert cached_peak < (blas_threads() * BLOCK_BYTES + 2**20) / 2**20 < full_kernel_mib
    np.testing.assert_allclose(blocked, cached, rtol=1e-12)


@pytest.mark.slow  # two runs of the quickstart (one is the serial fixture)
def test_max_memory_reaches_the_scoring_and_the_record(serial, tmp_path, monkeypatch):
    budgets_seen = []
    block_rows = BaseKernelPCA._block_rows

    def spy(model):
        budgets_seen.append(sklearn.get_config()["working_memory"])
        return block_rows(model)

    monkeypatch.setattr(BaseKernelPCA, "_block_rows", spy)
    trials = run(tmp_path, "--max-memory", "0.05", "--trials", "1")
    assert budgets_seen and set(budgets_seen) == {0.05}
    pd.testing.assert_frame_equal(serial[serial["trial"] == 0].reset_index(drop=True), trials)
    records = stored_records(tmp_path)
    assert {r["max_memory_mb"] for r in records} == {0.05}
    assert set(pd.read_csv(tmp_path / "quickstart" / "trials.csv")["max_memory_mb"]) == {0.05}
    if ON_LINUX:
        assert all(r["peak_memory_mb"] > 0 for r in records)


@pytest.mark.slow  # two runs of the quickstart (one is the serial fixture)
def test_records_stored_before_the_memory_fields_still_report(serial, tmp_path):
    run(tmp_path, "--trials", "1")
    store = tmp_path / "quickstart" / "records.jsonl"
    old = [
        {k: v for k, v in r.items() if k not in ("max_memory_mb", "peak_memory_mb")} for r in stored_records(tmp_path)
    ]
    store.write_text("".join(json.dumps(r) + "\n" for r in old))
    pd.testing.assert_frame_equal(serial, run(tmp_path))
    assert len(stored_records(tmp_path)) == len(serial)


@pytest.mark.skipif(not ON_LINUX, reason="the peak resident memory is read from Linux's /proc")
def test_the_peak_is_reset_only_when_no_other_cell_runs_in_the_process():
    with peak_memory() as outer:
        big = np.ones(100 * 2**20 // 8)  # 100 MiB, touched
        with peak_memory() as inner:
            del big
    with peak_memory() as later:
        pass
    assert inner.mib >= later.mib + 90  # a neighbour's peak counts: the figure is an upper bound
    assert outer.mib >= inner.mib


def tornado_record(message: str) -> logging.LogRecord:
    return logging.LogRecord("tornado.application", logging.ERROR, __file__, 1, message, None, None)


def test_tornados_report_of_distributeds_failed_cancel_is_dropped_and_stays_dropped_after_an_interrupt():
    failed_cancel = tornado_record("Exception in callback functools.partial(<function sync.<locals>.cancel at 0x7f>)")
    other = tornado_record("Exception in callback functools.partial(<function other at 0x7f>)")
    tornado_log = logging.getLogger("tornado.application")
    with quiet_on_interrupt():
        assert not tornado_log.filter(failed_cancel) and tornado_log.filter(other)
    assert tornado_log.filter(failed_cancel)  # a block that ends normally takes its filter away
    try:
        with pytest.raises(KeyboardInterrupt), quiet_on_interrupt():
            raise KeyboardInterrupt
        assert not tornado_log.filter(failed_cancel) and tornado_log.filter(other)
    finally:
        tornado_log.removeFilter(is_not_failed_sync_cancel)
        logging.getLogger("distributed").setLevel(logging.NOTSET)
        atexit.unregister(discard_output)


@pytest.mark.parametrize(
    "jobs, backend, address, expected",
    [
        (100_000, "local", None, 2),
        (2, "local", None, 2),
        (1, "local", None, 1),
        (-1, "local", None, 2),
        (-2, "local", None, 1),
        (100_000, "dask", "local", 2),
        (100_000, "dask", "tcp://10.0.0.1:8786", 100_000),
    ],
)
def test_workers_are_bounded_by_the_usable_cores(monkeypatch, jobs, backend, address, expected):
    monkeypatch.setattr(execution, "usable_cores", lambda: 2)
    notes = []
    workers = execution.bounded_workers(jobs, ExecutionConfig(backend=backend, address=address), notes.append)
    assert workers == expected
    assert notes == (
        [f"note: jobs={jobs} asks for more workers than this machine's 2 usable CPU cores; starting 2"]
        if 0 < expected < jobs
        else []
    )


@pytest.mark.parametrize("cores", [1, 2, 3, 16])
def test_workers_times_blas_threads_stay_within_the_cores(monkeypatch, cores):
    monkeypatch.setattr(execution, "usable_cores", lambda: cores)
    for jobs in range(1, cores + 1):
        assert 1 <= execution.blas_threads_per_worker(jobs) and jobs * execution.blas_threads_per_worker(jobs) <= cores
    assert execution.blas_threads_per_worker(1) == cores


def most_children_while(command: list[str], cwd: Path) -> tuple[int, str]:
    """The most worker processes (children at any depth, loky's resource tracker aside) seen while ``command`` ran,
    and its stderr."""
    psutil = pytest.importorskip("psutil")
    process = psutil.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    most = 0
    while process.poll() is None:
        try:
            children = [c for c in process.children(recursive=True) if "resource_tracker" not in " ".join(c.cmdline())]
        except psutil.Error:  # a child ended while it was looked at
            continue
        most = max(most, len(children))
        time.sleep(0.05)
    stderr = process.stderr.read()
    assert process.returncode == 0, stderr
    return most, stderr


@pytest.mark.slow  # two runs of the quickstart's first two trials in worker processes
@pytest.mark.parametrize("caller", ["cli", "api"])
def test_jobs_100000_starts_at_most_one_worker_per_core_and_says_so(tmp_path, caller):
    from joblib import cpu_count

    out = tmp_path / "out"
    command = (
        [
            sys.executable,
            "-m",
            "kpca_bench",
            "run",
            str(QUICKSTART),
            "--jobs",
            "100000",
            "--trials",
            "2",
            "--out",
            str(out),
            "--quiet",
            "--no-html",
        ]
        if caller == "cli"
        else [
            sys.executable,
            "-c",
            f"import kpca_bench; kpca_bench.run({str(QUICKSTART)!r}, jobs=100000, "
            f"trials=2, out={str(out)!r}, html=False)",
        ]
    )
    most, stderr = most_children_while(command, tmp_path)
    said = "--jobs 100000" if caller == "cli" else "jobs=100000"
    assert f"note: {said} asks for more workers than this machine's {cpu_count()} usable CPU cores" in stderr
    assert stderr.count("note: ") == 1
    assert 1 <= most <= cpu_count()
    assert len(pd.read_csv(out / "quickstart" / "trials.csv")) == 8
