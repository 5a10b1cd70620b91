"""Protocols: how one trial splits the data and evaluates a method.

A protocol is a module in this package with three functions, each given the
validated :class:`~kpca_bench.config.Config`: ``check(dataset, config)`` (can
the dataset serve the config's sizes? called once, before any work),
``split(dataset, config, seed)`` (one trial's data) and
``evaluate(detector, split, config)`` (fit, score, measure: the fields of one
result row), plus an optional ``report(config, records, directory)`` that writes
protocol-specific tables and figures from the records. ``options`` names the
keys a config may give under ``protocol:`` (read them from
``config.protocol_options``). Adding a protocol is a module and an entry in
:data:`PROTOCOLS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
    options: tuple[str, ...] = field(default=())


PROTOCOLS = {
    protocol.name: protocol
    for protocol in [
        Protocol("novelty", "train on inliers only, test on a fresh mix of inliers and outliers",
                 novelty.check_novelty_sizes, novelty.novelty_split, novelty.evaluate_novelty),
    ]
}
