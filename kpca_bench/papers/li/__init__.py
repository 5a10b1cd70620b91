"""Li, Georgiopoulos & Anagnostopoulos: kernel principal subspace Mahalanobis distances for outlier detection."""

from kpca_bench.papers.base import Paper
from kpca_bench.papers.li import consistency, figure3, tables

PAPER = Paper(
    key="li",
    reference="Li et al.",
    citation="C. Li, M. Georgiopoulos, G. C. Anagnostopoulos. Kernel principal subspace Mahalanobis "
             "distances for outlier detection.",
    configs=("li_*.yaml",),
    analyses=(figure3.analyse, tables.analyse, consistency.analyse),
)
