"""Progress of a run: a live bar on a terminal, plain lines in a log, or nothing."""

from __future__ import annotations

import sys

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class PlainProgress:
    """One line per finished cell, for logs and CI."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.total = self.done = 0

    def start(self, total: int, already_done: int) -> None:
        self.total, self.done = total, already_done
        print(f"{total} cells, {already_done} already finished", file=self.stream, flush=True)

    def advance(self, description: str) -> None:
        self.done += 1
        print(f"[{self.done}/{self.total}] {description}", file=self.stream, flush=True)

    def close(self) -> None:
        pass


class BarProgress(PlainProgress):
    """A rich progress bar with cells done / total and the time remaining."""

    def start(self, total: int, already_done: int) -> None:
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            transient=False,
        )
        self._bar.start()
        self._task = self._bar.add_task("cells", total=total, completed=already_done)

    def advance(self, description: str) -> None:
        self._bar.update(self._task, advance=1, description=description[:40])

    def close(self) -> None:
        self._bar.stop()


class NoProgress(PlainProgress):
    def start(self, total: int, already_done: int) -> None:
        pass

    def advance(self, description: str) -> None:
        pass


def make_progress(quiet: bool, stream=None) -> PlainProgress:
    # sys.stderr is looked up at each call, not bound at import, since the CLI's test runner swaps it.
    if quiet:
        return NoProgress()
    stream = stream or sys.stderr
    return BarProgress(stream) if stream.isatty() else PlainProgress(stream)


def print_notice(message: str, stream=None) -> None:
    """Tell the user something about the run that is not progress (a damaged record, a wait), on stderr."""
    print(message, file=stream or sys.stderr, flush=True)
