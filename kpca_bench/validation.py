"""Checks of user-given values that report every problem at once, each as (key, message), and the
declarations of config keys (:func:`declared`) the checks read.

The config loader and the protocols' option parsers share them, so that a bad
value reads the same wherever it is written: ``<file>: <key>: <what is wrong>``.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import MISSING, field, fields, is_dataclass
from numbers import Integral, Real
from typing import Any, TypeVar, overload

from kpca_bench.errors import ConfigError

# A config's profiles (``profiles:``); ``full`` is the file as written.
PROFILES = ("full", "quick")

_T = TypeVar("_T")


class Problems:
    """The problems found in one file so far, each a ``(key, message)`` pair; ``prefix`` is prepended to keys."""

    def __init__(self, prefix: str = ""):
        self.prefix = prefix
        self.items: list[tuple[str, str]] = []

    def add(self, key: str, message: str) -> None:
        """Add a problem; the same problem found again (e.g. in every setting of a grid) is kept once."""
        item = (join_key(self.prefix, key), message)
        if item not in self.items:
            self.items.append(item)

    def under(self, prefix: str) -> "Problems":
        """A view that adds to the same list with ``prefix`` before every key."""
        view = Problems(join_key(self.prefix, prefix))
        view.items = self.items
        return view


def join_key(prefix: str, key: str) -> str:
    """``methods`` + ``[2].nu`` is ``methods[2].nu``; ``protocol`` + ``cv`` is ``protocol.cv``."""
    if not prefix or not key:
        return prefix or key
    return f"{prefix}{key}" if key.startswith("[") else f"{prefix}.{key}"


def did_you_mean(word, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_keys(mapping: dict, allowed, required, problems: Problems) -> bool:
    """Unknown keys and missing required keys of ``mapping``; True if there were none."""
    ok = True
    for key in mapping:
        if key not in allowed:
            problems.add(str(key), f"unknown key{did_you_mean(key, allowed)}; accepted: {', '.join(allowed) or 'none'}")
            ok = False
    for key in required:
        if key not in mapping:
            problems.add(key, "missing (required); add it")
            ok = False
    return ok


def is_integer(value) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def is_number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def integer(value, key: str, problems: Problems, minimum: int) -> int | None:
    """``value`` as an int if it is an integer >= ``minimum``; else a problem and None."""
    if not is_integer(value):
        whole = isinstance(value, float) and value.is_integer()
        hint = f"; write it as a whole number ({int(value)})" if whole else ""
        problems.add(key, f"must be an integer >= {minimum}, got {value!r}{hint}")
        return None
    if value < minimum:
        problems.add(key, f"must be >= {minimum}, got {value}")
        return None
    return int(value)


def mapping(value, key: str, problems: Problems) -> dict | None:
    """``value`` if it is a mapping (None counts as empty); else a problem and None."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.add(key, f"must be a mapping (key: value lines), got {type(value).__name__}")
        return None
    return value


RANGE_KEYS = ("start", "stop", "step")


def expand_range(value, key: str, problems: Problems):
    """``{start, stop, step}`` becomes the list ``start, start + step, ..., stop`` (stop included).

    Values are rounded to 10 decimals, so 0.2 + 0.2 + 0.2 is written 0.6 in
    labels and records; integer bounds and step give integers. Any other value
    is returned unchanged.
    """
    if not isinstance(value, dict) or set(value) != set(RANGE_KEYS):
        return value
    start, stop, step = (value[k] for k in RANGE_KEYS)
    if not all(is_number(v) for v in (start, stop, step)) or step <= 0 or stop < start:
        problems.add(key, f"a range needs numbers start <= stop and step > 0, got {value!r}")
        return value
    count = math.floor((stop - start) / step + 1e-9) + 1
    if all(is_integer(v) for v in (start, step)):
        return [start + i * step for i in range(count)]
    return [round(start + i * step, 10) for i in range(count)]


# Typed as dataclasses.field is (typeshed): to a type checker, ``x: T = declared(...)`` assigns a T; at run time it
# is the Field the dataclass decorator reads.
@overload
def declared(
    default: _T,
    *,
    doc: str,
    choices: tuple = (),
    minimum: int | None = None,
    key: bool = True,
    required: bool | None = None,
) -> _T: ...


@overload
def declared(
    *,
    doc: str,
    choices: tuple = (),
    minimum: int | None = None,
    key: bool = True,
    required: bool | None = None,
    default_factory: Callable[[], _T],
) -> _T: ...


@overload
def declared(
    *,
    doc: str,
    choices: tuple = (),
    minimum: int | None = None,
    key: bool = True,
    required: bool | None = None,
) -> Any: ...


def declared(
    default: Any = MISSING,
    *,
    doc: str,
    choices: tuple = (),
    minimum: int | None = None,
    key: bool = True,
    required: bool | None = None,
    default_factory: Any = MISSING,
) -> Any:
    """A config dataclass field declared once: its default, what it means and the values it takes.

    Which keys a config entry accepts (:func:`accepted_keys`), which it requires (:func:`required_keys`),
    the messages of its checks and its JSON Schema (``kpca-bench schema``) are read from these declarations.
    ``key``: whether a config writes it (False: the loader derives it).
    ``required``: whether a config must give it; by default, when it has no default.
    """
    if required is None:
        required = default is MISSING and default_factory is MISSING
    metadata = {"doc": doc, "choices": tuple(choices), "minimum": minimum, "key": key, "required": required}
    return field(default=default, default_factory=default_factory, metadata=metadata)


def accepted_keys(cls) -> tuple[str, ...]:
    """The keys a config entry of dataclass ``cls`` may give, in declaration order."""
    return tuple(f.name for f in fields(cls) if f.metadata.get("key", True))


def required_keys(cls) -> tuple[str, ...]:
    """The keys of ``cls`` a config entry must give."""
    return tuple(f.name for f in fields(cls) if f.metadata.get("key", True) and f.metadata.get("required"))


def written_fields(entry) -> dict:
    """The fields of the config dataclass instance ``entry`` that a config writes (:func:`accepted_keys`), by
    name, as plain data: what identifies the entry in a cell key and the config hash."""
    return {name: plain(getattr(entry, name)) for name in accepted_keys(type(entry))}


def plain(value):
    """``value`` as JSON-able data: a dataclass as its written fields, a tuple as a list, mappings and lists
    element by element, a number of another type (numpy's) as Python's int or float. Other values are left as
    they are (a key hashes them by their text)."""
    if is_dataclass(value) and not isinstance(value, type):
        return written_fields(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, Real) and not isinstance(value, bool):
        return float(value)
    return value


def declaration(cls, name: str) -> dict:
    """The declaration (``doc``, ``choices``, ``minimum``) of field ``name`` of ``cls``."""
    return cls.__dataclass_fields__[name].metadata


def address_problem(address) -> str | None:
    """What is wrong with a Dask scheduler address, or None if it is usable."""
    if address == "local" or (isinstance(address, str) and "://" in address and not address.endswith("://")):
        return None
    return f"must be 'local' (start a LocalCluster) or a scheduler address such as tcp://HOST:8786, got {address!r}"


def max_memory_problem(value) -> str | None:
    """What is wrong with a memory budget in MiB, or None if it is usable."""
    if is_number(value) and value > 0:
        return None
    return f"must be a positive number of MiB (e.g. 512), got {value!r}"


def count_problem(minimum: int) -> Callable[[object], str | None]:
    """The check of a whole number at least ``minimum``; None (not given) passes."""

    def problem(value) -> str | None:
        if value is None or (is_integer(value) and value >= minimum):
            return None
        quoted = isinstance(value, str) and value.strip().lstrip("-").isdigit()
        whole = isinstance(value, float) and value.is_integer() and value >= minimum
        hint = (
            "; give it as a number, without quotes"
            if quoted
            else f"; write it as a whole number ({int(value)})"
            if whole
            else ""
        )
        return f"must be an integer >= {minimum}, got {value!r}{hint}"

    return problem


def profile_problem(value) -> str | None:
    """What is wrong with a profile name, or None if it is one of :data:`PROFILES`."""
    if value in PROFILES:
        return None
    return f"unknown profile {value!r}{did_you_mean(value, PROFILES)}; accepted: {', '.join(PROFILES)}"


def folder_problem(value) -> str | None:
    """What is wrong with a folder given as a path; None (not given) passes."""
    if value is None or (isinstance(value, (str, os.PathLike)) and str(os.fspath(value)).strip()):
        return None
    if isinstance(value, str):
        return "is empty; give a folder, e.g. 'results'"
    return f"must be a folder path (a str or a pathlib.Path), got {type(value).__name__} {value!r}"


def switch_problem(value) -> str | None:
    """What is wrong with an on / off argument, or None if it is True or False."""
    return None if isinstance(value, bool) else f"must be True or False, got {value!r}"


def optional(check: Callable[[object], str | None]) -> Callable[[object], str | None]:
    """``check``, with None (not given) passing."""
    return lambda value: None if value is None else check(value)


def jobs_problem(value) -> str | None:
    """What is wrong with a number of workers, or None: a non-zero integer, negative as in joblib (-1: one per
    core, -2: all but one); a value that leaves no core is refused where the cores are counted
    (:func:`kpca_bench.experiment.execution.bounded_workers`)."""
    if value is None or (is_integer(value) and value != 0):
        return None
    quoted = isinstance(value, str) and value.strip().lstrip("-").isdigit()
    hint = "; give it as a number, without quotes" if quoted else ""
    return (
        f"must be a number of workers (1, 2, ...) or a negative value as in joblib (-1: one per CPU core), "
        f"got {value!r}{hint}"
    )


# The arguments of a run (kpca_bench.run's keywords, kpca-bench run's options) and their checks, declared once.
RUN_ARGUMENTS: dict[str, Callable[[object], str | None]] = {
    "jobs": jobs_problem,
    "trials": count_problem(1),
    "seed": count_problem(0),
    "profile": profile_problem,
    "out": folder_problem,
    "reuse_from": folder_problem,
    "scheduler": optional(address_problem),
    "max_memory": optional(max_memory_problem),
    **dict.fromkeys(("offline", "quiet", "retry_failed", "fail_fast", "wait", "html"), switch_problem),
}


def as_keyword(name: str) -> str:
    """How a Python caller names an argument: ``trials``."""
    return name


def as_flag(name: str) -> str:
    """How the command line names an argument: ``--max-memory``."""
    return "--" + name.replace("_", "-")


def run_argument_problems(arguments: Mapping[str, object], spell: Callable[[str], str] = as_keyword) -> list[str]:
    """One line per argument of :data:`RUN_ARGUMENTS` that is not valid, each named as the caller wrote it
    (``spell``: :func:`as_keyword` or :func:`as_flag`)."""
    return [f"{spell(name)}: {problem}" for name, value in arguments.items() if (problem := RUN_ARGUMENTS[name](value))]


def check_run_arguments(arguments: Mapping[str, object], spell: Callable[[str], str] = as_keyword) -> None:
    """Raise :class:`~kpca_bench.errors.ConfigError` listing :func:`run_argument_problems`, if there are any."""
    problems = run_argument_problems(arguments, spell)
    if problems:
        raise ConfigError("\n".join(problems))
