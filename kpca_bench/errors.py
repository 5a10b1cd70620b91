"""Errors that the command line reports as one line and exit code 2.

Anything raised as a :class:`KpcaBenchError` is a problem with the user's input
(a config, a data file, a parameter) or their machine (a full disk, a folder in
use), never a bug: its message must name the problem and the fix on one line.
"""

from __future__ import annotations

import os
from pathlib import Path


class KpcaBenchError(Exception):
    """Base class of the errors a user can fix."""

    exit_code = 2


class ConfigError(KpcaBenchError):
    """A config file is malformed or names something that does not exist."""


class DataError(KpcaBenchError):
    """A dataset is missing, corrupted or not usable as asked."""


class StorageError(KpcaBenchError):
    """A file or folder of the results could not be written (full disk, read-only, I/O error, not a folder)."""

    @classmethod
    def from_os_error(cls, path, error: OSError) -> StorageError:
        """The one-line error for ``error`` raised while writing ``path``: the path and the system's cause."""
        cause = os.strerror(error.errno) if error.errno else str(error)
        return cls(f"cannot write {Path(path)}: {cause}")
