"""Li, Georgiopoulos & Anagnostopoulos: kernel principal subspace Mahalanobis distances for outlier detection."""

from reproductions.framework.claims import claims_analysis
from reproductions.framework.loader import Reproduction

from . import consistency, figure3, tables

REPRODUCTION = Reproduction(
    reference="Li et al.",
    citation="C. Li, M. Georgiopoulos, G. C. Anagnostopoulos. Kernel principal subspace Mahalanobis "
    "distances for outlier detection.",
    analyses=(figure3.analyse, tables.analyse, consistency.analyse, claims_analysis("li_summary.md")),
)
