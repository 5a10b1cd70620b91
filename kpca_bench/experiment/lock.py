"""Claim a results folder before computing anything: create it, check that it takes writes, lock it.

One run writes to a folder at a time. The lock is a :class:`filelock.FileLock` on
``.kpca-bench.lock`` in the folder (``flock`` on POSIX, ``msvcrt`` on Windows); beside it,
``.kpca-bench.holder`` holds the holder's pid, host and start time so that a second run can say
whom it waits for; the holder removes it before it lets go. The lock file stays, empty: filelock never removes
it on POSIX, since a run waiting on a removed file and a run that made it anew would both hold "the" lock. The operating system releases the lock when its process dies however it dies,
so the lock of a killed run is simply taken over by the next one, whatever the holder file still
says. The holder file only names the holder, so unreadable content is simply rewritten; a folder
in the lock's place is moved aside. Readers (``report``, ``check``'s comparison, the papers'
analyses) do not take the lock: the store is append-only and tables are replaced atomically.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from kpca_bench.errors import KpcaBenchError, StorageError
from kpca_bench.experiment.store import set_aside, writing

LOCK_FILE = ".kpca-bench.lock"
HOLDER_FILE = ".kpca-bench.holder"
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


@contextmanager
def folder_lock(directory: Path, *, wait: bool = True, notify: Callable[[str], None] = print) -> Iterator[None]:
    """Hold the exclusive lock of a results folder for the block.

    If another run holds it: with ``wait``, say so once through ``notify`` and
    wait for it; without, raise :class:`FolderInUse` naming the holder.
    """
    # Imported here: filelock imports fcntl on POSIX, and importing this module must not need it.
    from filelock import FileLock

    path = Path(directory) / LOCK_FILE
    holder_path = Path(directory) / HOLDER_FILE
    if path.exists() and not path.is_file():
        # A folder (or a device) in the lock's place cannot be locked by any run: set it aside, lock anew.
        notify(f"{path} is not a file; moved it to {set_aside(path)}")
    lock = FileLock(path)
    if not _acquired(lock, path, timeout=0):
        holder = holder_description(holder_path)
        if not wait:
            raise FolderInUse(
                f"{directory} is in use by another run ({holder}); wait for it to finish, "
                "run without --no-wait to wait, or choose another --out"
            )
        notify(f"waiting for {directory}: another run is writing it ({holder})")
        _acquired(lock, path, poll_interval=POLL_INTERVAL_S)
    try:
        _write_holder(holder_path)
        yield
    finally:
        _remove_holder(holder_path)
        lock.release()


def _acquired(lock, path: Path, **acquire) -> bool:
    """Whether ``lock.acquire(**acquire)`` got the lock before its timeout; other OS errors are one line."""
    from filelock import Timeout

    try:
        lock.acquire(**acquire)
    except Timeout:  # a TimeoutError, so an OSError: caught before the one-line StorageError
        return False
    except OSError as error:
        raise StorageError.from_os_error(path, error) from None
    return True


def _remove_holder(path: Path) -> None:
    """Remove the holder file while the lock is still held (the next holder writes its own); one that cannot be
    removed only names a holder that is gone, which a waiting run is told as it is."""
    if path.is_file():
        with contextlib.suppress(OSError):
            path.unlink()


def _write_holder(path: Path) -> None:
    holder = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    with writing(path):
        path.write_text(json.dumps(holder))
