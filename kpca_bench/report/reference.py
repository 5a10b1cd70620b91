"""Published numbers to print beside ours: ``results/reference/papers.yaml``.

The file is a list of entries, each with the keys ``paper``, ``source`` (table or
figure), ``dataset`` (as the paper names it), ``method`` (the config label),
``metric``, ``value``, ``tolerance`` and ``reason`` (one line on why that
tolerance). It sits in the results root, beside the experiments' folders.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from kpca_bench.errors import ConfigError

REFERENCE_FILE = Path("reference") / "papers.yaml"
ENTRY_KEYS = ("paper", "source", "dataset", "method", "metric", "value", "tolerance", "reason")


def load_references(results_root) -> list[dict]:
    """Every entry of ``<results_root>/reference/papers.yaml``; empty if there is no such file."""
    path = Path(results_root) / REFERENCE_FILE
    if not path.exists():
        return []
    entries = yaml.safe_load(path.read_text()) or []
    bad = [i for i, e in enumerate(entries) if not isinstance(e, dict) or set(e) != set(ENTRY_KEYS)]
    if not isinstance(entries, list) or bad:
        raise ConfigError(f"{path}: entries {bad} must each have exactly the keys {', '.join(ENTRY_KEYS)}")
    return entries


def reference_values(entries: list[dict], *, paper: str, dataset: str) -> dict[tuple[str, str], dict]:
    """``(method, metric) -> entry`` for one paper and dataset."""
    return {(e["method"], e["metric"]): e for e in entries if e["paper"] == paper and e["dataset"] == dataset}


def in_reference_order(configs: list, references: list[dict]) -> list:
    """The configs that name a paper's numbers (``reference``), in the paper's order of datasets.

    The order is that of each dataset's first entry in ``references`` (so Table I before Table II); a
    config whose dataset has no entry comes last.
    """
    named = [config for config in configs if config.reference is not None]
    papers = {config.reference.paper for config in named}
    order = list(dict.fromkeys(entry["dataset"] for entry in references if entry["paper"] in papers))
    return sorted(named, key=lambda c: order.index(c.reference.dataset) if c.reference.dataset in order
                  else len(order))


def read_reference_mapping(path) -> dict:
    """The mapping a ``results/reference/*.yaml`` file holds (a paper's analysis's own reference numbers or prose).

    A missing file, a YAML syntax error or anything but a mapping is a one-line :class:`ConfigError` naming the file.
    """
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"{path}: missing; it holds what the paper's analysis prints beside the runs")
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}: YAML syntax error{where}: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: must be a mapping of named entries, got {type(raw).__name__}")
    return raw
