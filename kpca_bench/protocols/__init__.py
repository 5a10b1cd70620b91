"""Protocols: how one trial splits the data and evaluates a method.

A protocol is a module in this package with ``check`` (can the dataset serve
the config's sizes? called once, before any work), ``split`` (one trial's data
from a seed) and ``evaluate`` (fit, score, measure: the metrics of one result
row), plus an optional ``report`` that writes protocol-specific tables and
figures from the records. Adding one is a module and an entry in
:data:`PROTOCOLS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from kpca_bench.protocols import novelty


@dataclass(frozen=True)
class Protocol:
    name: str
    description: str
    check: Callable
    split: Callable
    evaluate: Callable
    report: Callable | None = None


PROTOCOLS = {
    protocol.name: protocol
    for protocol in [
        Protocol("novelty", "train on inliers only, test on a fresh mix of inliers and outliers",
                 novelty.check_novelty_sizes, novelty.novelty_split, novelty.evaluate_novelty),
    ]
}
