"""Protocols: how one trial splits the data and evaluates a method (the contract: :mod:`.base`).

Adding a protocol is one module in this package, holding a subclass of
:class:`~kpca_bench.protocols.base.Protocol`, and its instance in :data:`PROTOCOLS`
(plus a report module and a line in :data:`kpca_bench.report.PROTOCOL_REPORTS` if its
records need tables of their own).
"""

from __future__ import annotations

from kpca_bench.protocols import (
    adbench,
    classification,
    classification_cv,
    novelty,
    robustness,
    sweep,
    toy_components,
    unsupervised,
)
from kpca_bench.protocols.base import DatasetConfig, Method, MethodConfig, Protocol, ThresholdConfig

PROTOCOLS: dict[str, Protocol] = {
    protocol.name: protocol
    for protocol in [
        novelty.Novelty(),
        sweep.NoveltySweep(),
        unsupervised.Unsupervised(),
        adbench.Adbench(),
        robustness.Robustness(),
        classification.Classification(),
        classification_cv.ClassificationCV(),
        toy_components.ToyComponents(),
    ]
}

__all__ = ["DatasetConfig", "Method", "MethodConfig", "PROTOCOLS", "Protocol", "ThresholdConfig"]
