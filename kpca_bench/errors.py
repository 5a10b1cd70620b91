"""Errors that the command line reports as one line and exit code 2.

Anything raised as a :class:`KpcaBenchError` is a problem with the user's input
(a config, a data file, a parameter), never a bug: its message must name the
problem and the fix on one line.
"""


class KpcaBenchError(Exception):
    """Base class of the errors a user can fix."""


class ConfigError(KpcaBenchError):
    """A config file is malformed or names something that does not exist."""


class DataError(KpcaBenchError):
    """A dataset is missing, corrupted or not usable as asked."""
