"""The peak memory of a cell: the resident-memory high-water mark of the process that ran it.

Linux keeps each process's peak resident set size (``VmHWM`` in
``/proc/self/status``) and resets it to the current size when 5 is written to
``/proc/self/clear_refs``. That costs nothing while the cell runs and counts
every allocation, including those inside C libraries (BLAS, libsvm).
``tracemalloc`` would give a Python-level peak instead, but it slows a cell
3-9x (isolation forest's many small Python objects the most) and misses C
allocations.

The figure is the whole process's peak: the interpreter, its libraries and the
data it holds are included. When several cells run in one process at once
(threads of one Dask worker), the mark is reset only while no cell runs, so each
cell's figure covers its whole run and is an upper bound that includes its
neighbours. Elsewhere than on Linux it is None.
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")
RESET_PEAK = "5"


@dataclass
class PeakReading:
    """The peak resident memory in MiB, set when the measured block ends (None if unknown)."""

    mib: float | None = None


class _ProcessPeak:
    """Resets the process's high-water mark only when no other cell in the process is running."""

    def __init__(self):
        self._lock = threading.Lock()
        self._running = 0
        self._reset_ok = False

    @contextmanager
    def measure(self) -> Iterator[PeakReading]:
        with self._lock:
            if self._running == 0:
                self._reset_ok = _reset_high_water_mark()
            self._running += 1
        reading = PeakReading()
        try:
            yield reading
        finally:
            with self._lock:
                reading.mib = _high_water_mark_mib() if self._reset_ok else None
                self._running -= 1


def _reset_high_water_mark() -> bool:
    try:
        CLEAR_REFS.write_text(RESET_PEAK)
    except OSError:
        return False
    return True


def _high_water_mark_mib() -> float | None:
    match = re.search(r"^VmHWM:\s+(\d+) kB", STATUS.read_text(), re.MULTILINE)
    return round(int(match.group(1)) / 1024, 1) if match else None


peak_memory = _ProcessPeak().measure
