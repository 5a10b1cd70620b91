"""Claim a results folder before computing anything: create it, check that it takes writes, lock it.

One run writes to a folder at a time. The lock is an ``flock`` on
``.kpca-bench.lock`` in the folder, which also holds the holder's pid, host and
start time so that a second run can say whom it waits for. The kernel releases
an ``flock`` when its process dies however it dies, so the lock of a killed run
(a dead pid) is simply taken over by the next one. The file itself is never
removed: removing it would let two runs lock two different files of the same
name; its content only names the holder, so unreadable content is simply
rewritten, and a folder in its place is moved aside. Readers (``report``,
``check``'s comparison, the papers' analyses) do not take the lock: the store
is append-only and tables are replaced atomically.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from kpca_bench.errors import KpcaBenchError, StorageError
from kpca_bench.experiment.store import set_aside, writing

LOCK_FILE = ".kpca-bench.lock"
POLL_INTERVAL_S = 0.5


class FolderInUse(KpcaBenchError):
    """Another run holds the results folder's lock."""


def prepare_folder(directory: Path) -> None:
    """Create ``directory`` and check that a file can be written in it, or raise a one-line StorageError."""
    directory = Path(directory)
    for parent in [*reversed(directory.parents), directory]:
        if parent.exists() and not parent.is_dir():
            raise StorageError(f"cannot use {directory} as a results folder: {parent} is a file, not a folder")
    with writing(directory):
        directory.mkdir(parents=True, exist_ok=True)
    probe = directory / f".write-probe.{os.getpid()}"
    with writing(directory):
        try:
            probe.write_bytes(b"probe")
        finally:
            probe.unlink(missing_ok=True)


def holder_description(path: Path) -> str:
    """Who holds the lock at ``path``, as written in it by the holder."""
    try:
        holder = json.loads(path.read_text())
        return f"pid {holder['pid']} on {holder['host']}, started {holder['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def _try_lock(handle: int) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextmanager
def folder_lock(directory: Path, *, wait: bool = True, notify: Callable[[str], None] = print) -> Iterator[None]:
    """Hold the exclusive lock of a results folder for the block.

    If another run holds it: with ``wait``, say so once through ``notify`` and
    wait for it; without, raise :class:`FolderInUse` naming the holder.
    """
    path = Path(directory) / LOCK_FILE
    if path.exists() and not path.is_file():
        # A folder (or a device) in the lock's place cannot be locked by any run: set it aside, lock anew.
        notify(f"{path} is not a file; moved it to {set_aside(path)}")
    with writing(path):
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if not _try_lock(handle):
            holder = holder_description(path)
            if not wait:
                raise FolderInUse(f"{directory} is in use by another run ({holder}); wait for it to finish, "
                                  "run without --no-wait to wait, or choose another --out")
            notify(f"waiting for {directory}: another run is writing it ({holder})")
            while not _try_lock(handle):
                time.sleep(POLL_INTERVAL_S)
        _write_holder(handle, path)
        yield
    finally:
        os.close(handle)


def _write_holder(handle: int, path: Path) -> None:
    holder = {"pid": os.getpid(), "host": socket.gethostname(),
              "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    with writing(path):
        os.ftruncate(handle, 0)
        os.pwrite(handle, json.dumps(holder).encode(), 0)
