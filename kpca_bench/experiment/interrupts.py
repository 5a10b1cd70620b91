"""SIGTERM and SIGHUP handled like Ctrl-C, so that a run stopped by a job scheduler or a closed terminal
keeps its records and rebuilds its tables on the way out."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """The run was stopped by ``signal``: unwinds like Ctrl-C, exits with 128 + the signal's number."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signal_name = signal.Signals(signum).name
        self.exit_code = 128 + signum


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Stopped` in the main thread, as SIGINT raises KeyboardInterrupt."""

    def stop(signum, frame):
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, stop) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
