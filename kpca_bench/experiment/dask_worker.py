"""Preloaded by the workers of the LocalCluster a run starts (``--scheduler local``): they ignore Ctrl-C.

A Ctrl-C at the terminal reaches every process of the foreground group. The
run's own process handles it (one line, exit 130) and shuts the cluster down;
workers that died of it first would make the scheduler log lost data while the
run writes its tables.
"""

from __future__ import annotations

import signal


def dask_setup(worker) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
