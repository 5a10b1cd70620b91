"""Published numbers to print beside ours: a reproduction's ``reference/numbers.yaml``.

Each reproduction folder keeps its paper's reference files in ``<folder>/reference/``
(:func:`reference_folder` finds it from a config's path). ``numbers.yaml`` is a list of
entries, each with the keys ``paper``, ``source`` (table or figure), ``dataset`` (as the
paper names it), ``method`` (the config label), ``metric``, ``value``, ``tolerance`` and
``reason`` (one line on why that tolerance), and optionally the tolerance's two parts, ``statistical``
and ``floor`` (the tolerance is the larger, rounded up: never below either part), and ``by_construction`` (why the number equals
the paper's whatever the run does). ``choices.yaml`` lists the readings a paper's configs take, each with its ``source``; a variant run is a reading
only where an entry names it (:func:`declared_variants`); an entry marked ``diagnostic: true`` names variants that
probe the code, not readings of the paper.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from kpca_bench.errors import ConfigError
from kpca_bench.experiment.config import Config, ReferenceConfig
from kpca_bench.experiment.yaml_loader import read_yaml

REFERENCE_DIR = "reference"
NUMBERS_FILE = "numbers.yaml"
CONFIGS_DIR = "configs"
CHOICES_FILE = "choices.yaml"
ENTRY_KEYS = ("paper", "source", "dataset", "method", "metric", "value", "tolerance", "reason")
OPTIONAL_KEYS = ("statistical", "floor", "by_construction")


def reference_folder(config_path) -> Path | None:
    """The reference files of the reproduction that holds a config file, or None for a config outside one.

    A config belongs to a reproduction by its folder: ``<reproduction>/configs/x.yaml`` (or below, as the
    variants in ``configs/variants/``) has its paper's files in ``<reproduction>/reference/``.
    """
    # absolute: a config run from inside its own configs/ folder (``kpca-bench run x.yaml``) still finds it
    path = Path(config_path).absolute()
    folder = next((parent for parent in path.parents if parent.name == CONFIGS_DIR), None)
    return None if folder is None else folder.parent / REFERENCE_DIR


def load_references(folder) -> list[dict]:
    """Every entry of ``<folder>/numbers.yaml`` (``folder`` a reproduction's reference files); empty if there is no
    such file or no folder (None)."""
    if folder is None or not (path := Path(folder) / NUMBERS_FILE).exists():
        return []
    entries = read_yaml(path.read_text()) or []
    bad = [
        i
        for i, e in enumerate(entries)
        if not isinstance(e, dict) or not set(ENTRY_KEYS) <= set(e) <= {*ENTRY_KEYS, *OPTIONAL_KEYS}
    ]
    if not isinstance(entries, list) or bad:
        raise ConfigError(
            f"{path}: entries {bad} must each have the keys {', '.join(ENTRY_KEYS)} "
            f"(optional: {', '.join(OPTIONAL_KEYS)})"
        )
    below = [i for i, entry in enumerate(entries) if tolerance_below_parts(entry)]
    if below:
        raise ConfigError(
            f"{path}: entries {below}: the tolerance is below its statistical part or its floor; "
            "round it up (a tolerance is never below either part)"
        )
    return entries


def tolerance_below_parts(entry: dict) -> bool:
    """Whether an entry's ``tolerance`` is below its ``statistical`` part or its ``floor`` (where it gives them)."""
    parts = [entry[key] for key in ("statistical", "floor") if isinstance(entry.get(key), (int, float))]
    return any(entry["tolerance"] < part for part in parts)


def _choices(folder) -> list[dict]:
    """The entries of ``<folder>/choices.yaml``, checked; empty without the file or a folder (None)."""
    if folder is None or not (path := Path(folder) / CHOICES_FILE).exists():
        return []
    entries = read_yaml(path.read_text()) or []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{path}: must be a list of entries (paper, choice, option, source, why, variants)")
    bad = [i for i, e in enumerate(entries) if not isinstance(e.get("diagnostic", False), bool)]
    if bad:
        raise ConfigError(f"{path}: entries {bad}: diagnostic must be true or false")
    return entries


def diagnostic_variants(folder) -> set[str]:
    """The variant stems that ``<folder>/choices.yaml`` lists under entries marked ``diagnostic: true``."""
    return {str(stem) for e in _choices(folder) if e.get("diagnostic", False) for stem in e.get("variants", [])}


def declared_variants(folder) -> dict[str, str]:
    """Variant stem -> the source of the reading it runs, for every variant ``<folder>/choices.yaml`` names under an
    entry that states its ``source``."""
    return {
        str(stem): str(e["source"])
        for e in _choices(folder)
        if str(e.get("source") or "").strip()
        for stem in e.get("variants", [])
    }


def config_references(config) -> list[dict]:
    """The paper's numbers beside which a config's runs are shown: those of the reproduction its file is in."""
    return load_references(reference_folder(config.source)) if config.source else []


def references_of(config_paths) -> list[dict]:
    """The paper's numbers of the reproductions holding ``config_paths``, each reference folder read once."""
    folders = dict.fromkeys(reference_folder(path) for path in config_paths)
    return [entry for folder in folders for entry in load_references(folder)]


def paper_reference(config: Config) -> ReferenceConfig:
    """``config.reference`` of a config that reproduces a paper's numbers (a reproduction's configs all name one)."""
    assert config.reference is not None, f"{config.source or config.name} names no reference (the paper's numbers)"
    return config.reference


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
    return sorted(named, key=lambda c: order.index(c.reference.dataset) if c.reference.dataset in order else len(order))


def read_reference_mapping(path) -> dict:
    """The mapping a reproduction's ``reference/*.yaml`` file holds (a paper's analysis's own reference numbers or prose).

    A missing file, a YAML syntax error or anything but a mapping is a one-line :class:`ConfigError` naming the file.
    """
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"{path}: missing; it holds what the paper's analysis prints beside the runs")
    try:
        raw = read_yaml(path.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}: YAML syntax error{where}: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: must be a mapping of named entries, got {type(raw).__name__}")
    return raw
