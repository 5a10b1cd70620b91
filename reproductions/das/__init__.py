"""Das, Golatkar & Awate: sparse kernel PCA for outlier detection."""

from reproductions.framework.claims import claims_analysis
from reproductions.framework.loader import Reproduction

from . import consistency, report

REPRODUCTION = Reproduction(
    reference="Das et al.",
    citation="R. Das, A. Golatkar, S. P. Awate. Sparse kernel PCA for outlier detection. ICMLA 2018.",
    analyses=(report.analyse, consistency.analyse, claims_analysis("das_report.md")),
)
