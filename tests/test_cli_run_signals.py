"""The run command under signals: kill -9 at random points loses no finished cell and leaves no process;
SIGTERM and SIGHUP stop it like Ctrl-C; Ctrl-C on a Dask LocalCluster is one line.

Each test starts ``kpca-bench run`` as a process of its own session, so that a signal can go to its whole
process group, as a terminal's Ctrl-C or a job scheduler's kill does.
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from kpca_bench.experiment.store import ResultStore

ROOT = Path(__file__).parents[1]
QUICKSTART = ROOT / "configs" / "quickstart.yaml"
# Digits cells take about a tenth of a second: 8 trials x 4 methods keep two workers busy for a few seconds.
RUN = [sys.executable, "-m", "kpca_bench", "run", str(QUICKSTART), "--quiet", "--trials", "8"]
TIMING = ["fit_time", "score_time", "wall_time", "peak_memory_mb", "fit_time_mean", "fit_time_std"]
KILL_ROUNDS = 20
WORKERS_GONE_WITHIN_S = 10


def start(out: Path, *args) -> subprocess.Popen:
    return subprocess.Popen(
        [*RUN, "--out", str(out), *args],
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_for_group_to_end(pgid: int, timeout: float = WORKERS_GONE_WITHIN_S) -> float:
    start_time = time.monotonic()
    while group_alive(pgid):
        if time.monotonic() - start_time > timeout:
            os.killpg(pgid, signal.SIGKILL)
            pytest.fail(f"processes of the run were still alive {timeout} s after it was killed")
        time.sleep(0.1)
    return time.monotonic() - start_time


def tables(folder: Path) -> dict[str, pd.DataFrame]:
    return {
        name: pd.read_csv(folder / "quickstart" / name).drop(columns=TIMING, errors="ignore")
        for name in ("trials.csv", "summary.csv")
    }


def assert_same_tables(folder: Path, reference: dict[str, pd.DataFrame]) -> None:
    for name, frame in tables(folder).items():
        pd.testing.assert_frame_equal(frame, reference[name], obj=name)


def wait_for_records(folder: Path, at_least: int, process: subprocess.Popen, timeout: float = 60) -> None:
    path = folder / "quickstart" / "records.jsonl"
    deadline = time.monotonic() + timeout
    while not (path.exists() and len(path.read_bytes().splitlines()) >= at_least):
        assert process.poll() is None and time.monotonic() < deadline, "the run ended before it was signalled"
        time.sleep(0.05)


def wait_for_file(path: Path, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert process.poll() is None and time.monotonic() < deadline, f"the run ended before {path.name} appeared"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("uninterrupted")
    subprocess.run([*RUN, "--out", str(out), "--jobs", "2"], cwd=ROOT, check=True, capture_output=True)
    return tables(out)


@pytest.mark.slow
def test_kill_9_at_random_points_loses_no_finished_cell_and_leaves_no_process(tmp_path, reference):
    rng = random.Random(18)
    folder = tmp_path / "killed"
    for round_ in range(KILL_ROUNDS):
        before = ResultStore(folder / "quickstart").load()
        run = start(folder, "--jobs", "2")
        time.sleep(rng.uniform(0.5, 2.5))  # the first second or so is start-up: imports, workers
        if run.poll() is None:
            # Alternately the whole process group (as a job scheduler does) and the main process alone.
            if round_ % 2:
                os.killpg(run.pid, signal.SIGKILL)
            else:
                os.kill(run.pid, signal.SIGKILL)
        run.communicate()
        wait_for_group_to_end(run.pid)
        after = ResultStore(folder / "quickstart").load()
        assert all(after.get(key) == record for key, record in before.items()), f"round {round_} lost a cell"
        if run.returncode == 0:  # it finished before the kill: start over to be killed again
            assert_same_tables(folder, reference)
            shutil.rmtree(folder)
    finished = subprocess.run([*RUN, "--out", str(folder), "--jobs", "2"], cwd=ROOT, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr
    assert_same_tables(folder, reference)


@pytest.mark.slow
@pytest.mark.parametrize("signum, jobs", [(signal.SIGTERM, "2"), (signal.SIGHUP, "1")])
def test_sigterm_and_sighup_stop_the_run_like_ctrl_c(tmp_path, reference, signum, jobs):
    run = start(tmp_path, "--jobs", jobs)
    wait_for_records(tmp_path, 3, run)
    run.send_signal(signum)
    _, stderr = run.communicate(timeout=60)
    wait_for_group_to_end(run.pid)
    name = signal.Signals(signum).name
    assert run.returncode == 128 + signum, stderr
    assert stderr.count("\n") == 1 and stderr.startswith(f"stopped by {name}: finished cells are saved"), stderr
    assert "INCOMPLETE, not final" in (tmp_path / "quickstart" / "summary.md").read_text()
    resumed = subprocess.run([*RUN, "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert_same_tables(tmp_path, reference)


@pytest.mark.slow
@pytest.mark.parametrize("when", ["starting", "running"])
def test_ctrl_c_on_a_dask_local_cluster_is_one_line(tmp_path, when):
    pytest.importorskip("distributed")
    run = start(tmp_path, "--scheduler", "local", "--jobs", "2")
    if when == "running":
        wait_for_records(tmp_path, 2, run)
    else:  # the cluster is starting: its workers' log is opened just before it starts
        wait_for_file(tmp_path / "quickstart" / "dask-workers.log", run)
    os.killpg(run.pid, signal.SIGINT)  # as a terminal's Ctrl-C: every process of the group
    _, stderr = run.communicate(timeout=60)
    wait_for_group_to_end(run.pid, timeout=20)
    assert run.returncode == 130, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("interrupted: finished cells are saved"), stderr
