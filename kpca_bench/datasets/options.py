"""Checking the options a config passes to a loader, with messages that name the fix."""

from __future__ import annotations

import inspect

from kpca_bench.errors import DataError


def check_choice(dataset: str, option: str, value, allowed) -> None:
    """Raise :class:`DataError` unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise DataError(f"dataset {dataset!r}: option {option}={value!r} is not one of {', '.join(map(repr, allowed))}")


# Keyword arguments the registry supplies to a loader, never a config.
SUPPLIED = ("files", "offline")


def accepted_options(loader) -> dict[str, object]:
    """The options a loader accepts and their defaults (``inspect.Parameter.empty``: required)."""
    return {
        name: parameter.default
        for name, parameter in inspect.signature(loader).parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY and name not in SUPPLIED
    }


def check_option_names(dataset: str, loader, options: dict) -> None:
    """Raise :class:`DataError` for an option the loader does not take (listing those it does), a missing one, or
    a non-boolean value for an option whose default is true or false."""
    accepted = accepted_options(loader)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        listed = (
            ", ".join(
                name if default is inspect.Parameter.empty else f"{name} (default {default!r})"
                for name, default in accepted.items()
            )
            or "none"
        )
        raise DataError(f"dataset {dataset!r}: unknown option {', '.join(unknown)}; accepted options: {listed}")
    required = [name for name, default in accepted.items() if default is inspect.Parameter.empty]
    missing = [name for name in required if name not in options]
    if missing:
        raise DataError(f"dataset {dataset!r}: dataset.options.{missing[0]} is required")
    for name, value in options.items():
        if isinstance(accepted[name], bool) and not isinstance(value, bool):
            raise DataError(f"dataset {dataset!r}: option {name}={value!r} must be true or false")
