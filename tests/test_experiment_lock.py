"""One writer per results folder: a second run waits or, with --no-wait, names the holder; a dead run's lock is
taken over; two runs at once compute each cell once."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kpca_bench.experiment.lock import HOLDER_FILE, FolderInUse, folder_lock, prepare_folder
from kpca_bench.experiment.store import ResultStore

ROOT = Path(__file__).parents[1]
QUICKSTART = ROOT / "configs" / "quickstart.yaml"


def test_a_second_holder_is_refused_naming_the_first(tmp_path):
    with folder_lock(tmp_path):
        with pytest.raises(FolderInUse, match=f"pid {os.getpid()} on {socket.gethostname()}"):
            with folder_lock(tmp_path, wait=False):
                pass


def test_the_lock_is_free_again_after_the_block_and_only_the_empty_lock_file_stays(tmp_path):
    with folder_lock(tmp_path):
        assert (tmp_path / HOLDER_FILE).is_file()
    with folder_lock(tmp_path, wait=False):
        pass
    assert [path.name for path in tmp_path.iterdir()] == [".kpca-bench.lock"]
    assert (tmp_path / ".kpca-bench.lock").stat().st_size == 0


def test_a_stale_lock_of_a_dead_process_is_taken_over(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / HOLDER_FILE).write_text(
        json.dumps({"pid": int(dead.stdout), "host": socket.gethostname(), "started": "yesterday"})
    )
    with folder_lock(tmp_path, wait=False):
        assert json.loads((tmp_path / HOLDER_FILE).read_text())["pid"] == os.getpid()


def test_a_killed_holder_leaves_a_lock_the_next_run_takes(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from kpca_bench.experiment.lock import folder_lock\n"
            f"with folder_lock(Path({str(tmp_path)!r})):\n    print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(FolderInUse, match=f"pid {holder.pid}"):
        with folder_lock(tmp_path, wait=False):
            pass
    holder.kill()
    holder.wait()
    with folder_lock(tmp_path, wait=False):
        pass


def test_a_waiting_run_says_whom_it_waits_for_once(tmp_path):
    messages = []
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; from pathlib import Path; "
            "from kpca_bench.experiment.lock import folder_lock\n"
            f"with folder_lock(Path({str(tmp_path)!r})):\n    print('held', flush=True); time.sleep(1.5)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    start = time.monotonic()
    with folder_lock(tmp_path, notify=messages.append):
        waited = time.monotonic() - start
    holder.wait()
    assert waited > 0.5 and len(messages) == 1 and f"pid {holder.pid}" in messages[0]


def test_importing_the_lock_needs_no_fcntl():
    """Windows has no fcntl: the module imports without it and, with it blocked, still locks a folder."""
    code = (
        "import sys; import kpca_bench.experiment.lock; assert 'fcntl' not in sys.modules, 'fcntl imported'\n"
        "sys.modules['fcntl'] = None\n"
        "import tempfile; from kpca_bench.experiment.lock import folder_lock\n"
        "with tempfile.TemporaryDirectory() as folder:\n"
        "    with folder_lock(folder, wait=False): print('locked')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "locked", result.stderr


def test_prepare_folder_creates_nested_folders(tmp_path):
    prepare_folder(tmp_path / "a" / "b")
    assert (tmp_path / "a" / "b").is_dir() and list((tmp_path / "a" / "b").iterdir()) == []


@pytest.mark.slow
def test_two_runs_at_once_on_one_folder_compute_each_cell_once(tmp_path):
    command = [
        sys.executable,
        "-m",
        "kpca_bench",
        "run",
        str(QUICKSTART),
        "--out",
        str(tmp_path),
        "--quiet",
        "--trials",
        "3",
    ]
    runs = [
        subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert sum("waiting for" in err for _, err in outputs) <= 1  # the second waits, unless the first was done
    assert all("Traceback" not in err for _, err in outputs)
    records = ResultStore(tmp_path / "quickstart").records()
    assert len(records) == 12 and {r["status"] for r in records} == {"ok"}
