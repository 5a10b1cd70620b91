"""The five reproduced papers as plug-ins: each sub-package declares its :class:`Paper`.

A paper's analyses read what finished runs left on disk (records, tables) and
``results/reference/*.yaml``; none re-runs a method or redraws a split. Adding a
paper is one sub-package with a ``PAPER`` and one line in :data:`PAPERS`.
"""

from __future__ import annotations

from kpca_bench.papers import das, kim, li, sas, wang
from kpca_bench.papers.base import Analysis, Paper

PAPERS: dict[str, Paper] = {paper.key: paper for paper in (li.PAPER, kim.PAPER, das.PAPER, sas.PAPER, wang.PAPER)}

__all__ = ["Analysis", "PAPERS", "Paper"]
