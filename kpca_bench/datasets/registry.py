"""The one list of datasets a config can name, and how to load one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from kpca_bench.datasets.base import Dataset
from kpca_bench.datasets.bundled import load_digits


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset a config can name.

    ``load(**options)`` returns a :class:`Dataset`; options come from the
    config's ``dataset.options``.
    """

    name: str
    load: Callable[..., Dataset]
    description: str
    papers: tuple[str, ...] = ()


DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in [
        DatasetSpec("digits", load_digits,
                    "scikit-learn's bundled 8x8 handwritten digits (1,797 x 64, 10 classes)",
                    ("quickstart",)),
    ]
}


def load_dataset(name: str, *, offline: bool = False, **options) -> Dataset:
    """Load a registered dataset by name."""
    return DATASETS[name].load(**options)
