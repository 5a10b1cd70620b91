"""Where cells run: given the unfinished cells as tasks, yield each task's records as it finishes.

A task is a tuple of cells of one trial that run together in one process: one cell, or a
fit group's cells, which share one fit (:func:`kpca_bench.experiment.cell.run_task`).

Two backends, chosen by the config's ``execution`` section or ``--scheduler``:

* ``local``: joblib's worker processes on this machine (``--jobs``); one job
  runs in this process.
* ``dask``: a dask.distributed cluster, reached at a scheduler address or
  started here as a LocalCluster. Each trial's split is sent to the cluster once
  and shared by that trial's cells; only a few tasks per worker thread are in
  flight at a time, so the client and the workers hold a few splits, not all.

Either way the records come back to this process, which stores each one as it
arrives: resume and interrupts work as with a local run, and since a cell's
numbers depend only on its seeds, not on where it ran, so do the tables.
Dask is an optional extra, imported only when asked for.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from joblib import Parallel, cpu_count, delayed

from kpca_bench.devices import check_device, device_fields, device_name, is_cuda, use_device
from kpca_bench.errors import ConfigError, KpcaBenchError
from kpca_bench.experiment.config import ExecutionConfig
from kpca_bench.experiment.store import failed_record

# How long to wait for a remote scheduler before giving up with an error.
CONNECT_TIMEOUT_S = 10
# How often a worker process checks that the run that started it is still there.
PARENT_CHECK_INTERVAL_S = 0.5
# Tasks in flight per worker thread: enough to keep workers busy while the client stores results.
TASKS_PER_THREAD = 2
FIX_ADDRESS = "start a scheduler with 'dask scheduler' or fix the address (--scheduler, execution.address)"


def exit_with_parent(parent_pid: int) -> None:
    """In a worker process started by ``parent_pid``, start a thread that ends it when that parent is gone.

    The initializer of every joblib worker: loky's workers outlive a run killed
    with SIGKILL (they wait on their task queue for minutes), holding memory and
    cores. A dead parent shows as a changed ``getppid()`` (the worker is
    re-parented), also while a cell is computing, since BLAS releases the
    interpreter lock. A worker whose parent died while it was starting ends at once.
    """

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_CHECK_INTERVAL_S)
        os._exit(1)

    threading.Thread(target=watch, name="kpca-bench-parent-watch", daemon=True).start()


def usable_cores() -> int:
    """The CPU cores this process may use: joblib's count, which honours the affinity mask
    (``os.sched_getaffinity``), a container's CPU quota and ``LOKY_MAX_CPU_COUNT``."""
    return cpu_count()


def bounded_workers(jobs: int, execution: ExecutionConfig, notify: Callable[[str], None]) -> int:
    """``jobs`` worker processes, at most one per usable core on this machine (joblib's workers or a LocalCluster's),
    said once through ``notify`` when fewer than asked; a remote Dask cluster's workers are its own, left as asked.

    More workers than cores only share the cores (and each holds a copy of the data), so a mistyped
    ``--jobs 100000`` would start hundreds of processes and exhaust the memory. A negative ``jobs`` counts as in
    joblib (-1: one per core, -2: all but one); one that leaves no core is a :class:`ConfigError`.
    """
    cores = usable_cores()
    if jobs < 0:
        if cores + 1 + jobs < 1:
            raise ConfigError(
                f"jobs={jobs}: means all CPU cores but {-jobs - 1}, and this machine has {cores}, so no "
                f"worker is left; give -1 to -{cores} or a number of workers (1, 2, ...)"
            )
        return cores + 1 + jobs
    if jobs <= cores or (execution.backend == "dask" and execution.address != "local"):
        return jobs
    notify(f"note: jobs={jobs} asks for more workers than this machine's {cores} usable CPU cores; starting {cores}")
    return cores


def blas_threads_per_worker(workers: int) -> int:
    """Each of ``workers`` processes' share of the usable cores for BLAS (at least one), so that workers x
    threads stay within the cores while the workers do (:func:`bounded_workers`)."""
    return max(1, usable_cores() // max(workers, 1))


class LocalBackend:
    """Cells in joblib worker processes on this machine, each with an equal share of the cores for BLAS."""

    def __init__(self, jobs: int):
        self.jobs = jobs

    def run(self, run_task: Callable[..., list[dict]], tasks: list[tuple], split_of: Callable) -> Iterator[list[dict]]:
        """The records of each of ``tasks`` (tuples of cells of one trial), in the order the tasks finish;
        ``split_of(seed)`` is a trial's data."""
        blas_threads = blas_threads_per_worker(self.jobs)
        calls = (
            delayed(run_task)(task, split=split_of(task[0].split_seed), blas_threads=blas_threads) for task in tasks
        )
        with warnings.catch_warnings():
            # A stopped run (Ctrl-C, SIGTERM, --fail-fast) cancels the cells in flight on purpose; joblib's
            # warning about it would only break the one line that says how to resume.
            warnings.filterwarnings("ignore", message=".*tasks which were still being processed", category=UserWarning)
            yield from Parallel(
                n_jobs=self.jobs, return_as="generator_unordered", initializer=exit_with_parent, initargs=(os.getpid(),)
            )(calls)


class DaskBackend:
    """Cells as tasks on a dask.distributed cluster, each with one BLAS thread.

    One BLAS thread per task because a Dask worker already runs one task per
    thread, and workers are started one per core (as Dask's own nannies assume
    when they set ``OMP_NUM_THREADS=1``): more would oversubscribe the cores.
    """

    def __init__(self, client, distributed):
        self.client = client
        self.distributed = distributed

    def run(self, run_task: Callable[..., list[dict]], tasks: list[tuple], split_of: Callable) -> Iterator[list[dict]]:
        """The records of each of ``tasks`` (tuples of cells of one trial), in the order the tasks finish;
        ``split_of(seed)`` is a trial's data."""
        pending = iter(tasks)
        in_flight = self.distributed.as_completed(loop=self.client.loop)
        scattered: dict[int, object] = {}

        def submit_up_to_window() -> None:
            window = self._window()
            while in_flight.count() < window:
                task = next(pending, None)
                if task is None:
                    return
                seed = task[0].split_seed
                if seed not in scattered:
                    # Tasks come trial by trial: forgetting the previous split lets the
                    # cluster free it once its last task has run.
                    scattered.clear()
                    scattered[seed] = self.client.scatter(split_of(seed), hash=False)
                future = self.client.submit(run_task, task, split=scattered[seed], blas_threads=1, pure=False)
                task_of[future.key] = task
                in_flight.add(future)

        task_of: dict = {}
        submit_up_to_window()
        for future in in_flight:
            records = self._records_of(future, task_of.pop(future.key))
            submit_up_to_window()
            yield records

    def _records_of(self, future, task: tuple) -> list[dict]:
        """The task's records, or a failed one per cell if it could not run to the end (its workers died)."""
        try:
            return future.result()
        except self.distributed.KilledWorker as error:
            return [
                failed_record(
                    cell.key,
                    error,
                    cause="the Dask workers running it died, e.g. killed for using "
                    "too much memory (see the workers' logs): ",
                )
                for cell in task
            ]

    def _window(self) -> int:
        """Tasks to keep in flight, from the worker threads connected now (workers may join later)."""
        return TASKS_PER_THREAD * max(1, sum(self.client.nthreads().values()))


def check_execution_device(execution: ExecutionConfig, methods=()) -> None:
    """Raise DeviceError (one line, exit 2) before anything runs if ``execution.device``, or a device a method
    entry asks for (``params: {device: ...}`` or in its grid), is not to be had here."""
    for device in asked_devices(execution, methods):
        check_device(device)


def asked_devices(execution: ExecutionConfig, methods=()) -> list:
    """The devices a run asks for: ``execution.device`` and each method entry's ``device`` (params or grid)."""
    asked = [execution.device]
    for entry in methods:
        asked += [entry.params.get("device"), *entry.grid.get("device", ())]
    return [device for device in dict.fromkeys(asked) if device is not None]


def uses_cuda(execution: ExecutionConfig, methods=()) -> bool:
    """Whether the run asks for a CUDA device anywhere (its environment then names the GPU)."""
    return any(is_cuda(device) for device in asked_devices(execution, methods))


@contextmanager
def on_execution_device(execution: ExecutionConfig) -> Iterator[None]:
    """Within the block, estimators whose ``device`` is None compute on ``execution.device``."""
    with use_device(execution.device):
        yield


def computes_on(estimator, default: str | None) -> str:
    """Where a cell's estimator computes: 'cuda' (or 'cuda:N') only for a kernel-PCA variant that computes through
    the array API (``_array_api_support``: exact and Nystrom kernel PCA, also inside a KernelSubspaceDetector)
    whose own ``device``, or else the run's ``default``, is a CUDA device; every other estimator computes on the
    host."""
    from kpca_bench.methods.kpca import KernelPCA

    inner, seen = estimator, 0
    while inner is not None and not getattr(inner, "_array_api_support", False) and seen < 8:
        wrapped = getattr(inner, "estimator", None)
        # KernelSubspaceDetector(None) fits the default KernelPCA.
        inner = KernelPCA() if wrapped is None and type(inner).__name__ == "KernelSubspaceDetector" else wrapped
        seen += 1
    if inner is None or not getattr(inner, "_array_api_support", False):
        return "cpu"
    device = inner.device if getattr(inner, "device", None) is not None else default
    name = device_name(device)
    return name if name is not None and is_cuda(name) else "cpu"


def cell_device_fields(estimator, default: str | None) -> dict:
    """The record's fields saying where the cell computed (``device``, and ``gpu_model`` on a GPU)."""
    return device_fields(computes_on(estimator, default))


def import_distributed():
    """The ``distributed`` package, or a one-line error saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise KpcaBenchError('running on Dask needs the dask extra: pip install "kpca-bench[dask]"') from None
    return distributed


@contextmanager
def open_backend(
    execution: ExecutionConfig, jobs: int, worker_log: Path | None = None
) -> Iterator[LocalBackend | DaskBackend]:
    """The backend the execution config asks for, connected (and its cluster shut down on exit).

    A LocalCluster's worker processes write their output to ``worker_log`` (default: discarded).
    """
    if execution.backend != "dask":
        yield LocalBackend(jobs)
        return
    distributed = import_distributed()
    # The config parser and ExecutionConfig.with_overrides give backend dask its address ("local" by default).
    assert execution.address is not None, "backend dask without a scheduler address"
    with dask_client(distributed, execution.address, jobs, worker_log) as client:
        yield DaskBackend(client, distributed)


@contextmanager
def dask_client(distributed, address: str, jobs: int, worker_log: Path | None = None):
    """A client of the scheduler at ``address``, or of a LocalCluster of ``jobs`` single-threaded workers.

    The LocalCluster's workers are processes with one thread each, so a cell
    has its process to itself and its peak memory is its own
    (:mod:`kpca_bench.experiment.memory`).
    """
    if address == "local":
        with quiet_on_interrupt(), output_of_children_to(worker_log):
            # Any free port for the scheduler's HTTP server, which it starts even without a dashboard.
            cluster = distributed.LocalCluster(
                n_workers=jobs,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=":0",
                preload=["kpca_bench.experiment.dask_worker"],
            )
        # Twice: the client's start-up is interruptible too, and the inner one silences before the client closes.
        with (
            cluster,
            quiet_on_interrupt(),
            distributed.Client(cluster, set_as_default=False) as client,
            quiet_on_interrupt(),
        ):
            yield client
        return
    try:
        client = distributed.Client(
            resolved_address(distributed, address), timeout=CONNECT_TIMEOUT_S, set_as_default=False
        )
    except OSError:
        raise KpcaBenchError(
            f"cannot reach the Dask scheduler at {address} within {CONNECT_TIMEOUT_S} s; {FIX_ADDRESS}"
        ) from None
    with client, quiet_on_interrupt():
        yield client


@contextmanager
def output_of_children_to(log: Path | None) -> Iterator[None]:
    """Processes started in the block write their stdout and stderr to ``log`` (or nowhere), not the terminal.

    A Ctrl-C at the terminal reaches every process of the foreground group: a
    LocalCluster's workers would each print a traceback, while starting or
    running. This process keeps the terminal and reports the interrupt in one line.
    """
    target = os.open(log or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    saved = [os.dup(1), os.dup(2)]
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.dup2(target, 1)
        os.dup2(target, 2)
        yield
    finally:
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(target)


@contextmanager
def quiet_on_interrupt() -> Iterator[None]:
    """On Ctrl-C, silence distributed's loggers before the cluster closes: its complaints about the tasks
    cancelled by the shutdown are not news to a user who asked for it. Within the block, tornado's report of
    distributed's own cancel callback failing is dropped (:func:`is_not_failed_sync_cancel`), and after an
    interrupt it stays dropped: the callback runs on the event loop's thread, possibly after the block."""
    tornado_log = logging.getLogger("tornado.application")
    tornado_log.addFilter(is_not_failed_sync_cancel)
    try:
        yield
    except KeyboardInterrupt:
        logging.getLogger("distributed").setLevel(logging.CRITICAL + 1)
        # A cluster interrupted while starting is closed again at exit by distributed, which then fails loudly.
        atexit.register(discard_output)
        raise
    except BaseException:
        tornado_log.removeFilter(is_not_failed_sync_cancel)
        raise
    tornado_log.removeFilter(is_not_failed_sync_cancel)


def is_not_failed_sync_cancel(record: logging.LogRecord) -> bool:
    """False for tornado's report of an exception in distributed's ``sync.<locals>.cancel`` callback.

    A Ctrl-C during a client call (the cluster starting, say) makes distributed's ``sync`` schedule that
    callback, which fails with a NameError when the call had not yet begun (distributed 2026.8 reads a
    variable it has only declared); the interrupt itself is reported in one line by kpca-bench.
    """
    return "sync.<locals>.cancel" not in record.getMessage()


def discard_output() -> None:
    """Send what this process still writes to stdout and stderr nowhere (at exit, after the run's last line)."""
    sys.stdout.flush()
    sys.stderr.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


def resolved_address(distributed, address: str) -> str:
    """``address`` with its host resolved, or a one-line error.

    Checked before a Client exists: a Client that fails to parse its address
    stalls the exit for 20 s while it closes.
    """
    try:
        return distributed.comm.resolve_address(address)
    except (OSError, ValueError) as exc:
        raise KpcaBenchError(f"bad Dask scheduler address {address} ({exc}); {FIX_ADDRESS}") from None
