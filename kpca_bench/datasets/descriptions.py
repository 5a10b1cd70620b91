"""What each registered dataset is, and which datasets share their source (``descriptions.yaml``).

The text lives in the package data file ``descriptions.yaml``: per dataset its origin, the version of
the copy, its classes, what its anomalies and inliers are, its licence and the references to cite;
and the groups of datasets that share their source, which are not independent observations in a
suite's rank tests. Shapes, files and URLs are the registry's (:mod:`.registry`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from kpca_bench.datasets.registry import DATASETS, get_spec

FIELDS = ("origin", "version", "classes", "anomalies", "inliers", "licence", "cite")


@dataclass(frozen=True)
class Description:
    """One dataset's entry, its collection's defaults filled in; ``references`` as ``(key, reference)``."""

    name: str
    origin: str
    version: str
    classes: str
    anomalies: str
    inliers: str
    licence: str
    references: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RelatedGroup:
    """Datasets that share their source: the source's name, the datasets, why, and where that is stated."""

    name: str
    datasets: tuple[str, ...]
    reason: str
    source: str


@cache
def _document() -> dict:
    text = resources.files("kpca_bench.datasets").joinpath("descriptions.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def entries() -> dict[str, dict]:
    """Every dataset's raw entry, its collection's defaults filled in for the fields it leaves out."""
    document = _document()
    defaults = document.get("defaults", {})
    collection = {name: spec.collection for name, spec in DATASETS.items()}
    return {name: {**defaults.get(collection.get(name), {}), **entry} for name, entry in document["datasets"].items()}


def references() -> dict[str, str]:
    """BibTeX-ready key -> the reference in one line."""
    return dict(_document()["references"])


def describe(name: str) -> Description:
    """The description of the registered dataset ``name`` (:class:`~kpca_bench.errors.DataError` with the
    closest names if there is no such dataset)."""
    spec = get_spec(name)
    entry = entries()[spec.name]
    cited = references()
    return Description(
        name=spec.name,
        **{field: entry[field] for field in FIELDS if field != "cite"},
        references=tuple((key, cited[key]) for key in entry["cite"]),
    )


def related_groups() -> list[RelatedGroup]:
    """The declared groups of datasets that share their source."""
    return [
        RelatedGroup(group["name"], tuple(group["datasets"]), group["reason"], group["source"])
        for group in _document()["related"]
    ]


def related_present(names) -> list[tuple[RelatedGroup, list[str]]]:
    """Each group with two or more of ``names`` (registry names), with those names in the group's order."""
    names = set(names)
    present = [(group, [name for name in group.datasets if name in names]) for group in related_groups()]
    return [(group, members) for group, members in present if len(members) >= 2]
