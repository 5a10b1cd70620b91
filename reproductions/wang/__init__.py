"""Wang & Tanaka: kernel PCA allowing sparse representation and sample selection (ADMM, l1 and l2,1)."""

from reproductions.framework.claims import claims_analysis
from reproductions.framework.loader import Reproduction

from . import report

REPRODUCTION = Reproduction(
    reference="Wang & Tanaka",
    citation="D. Wang, T. Tanaka. Kernel principal component analysis allowing sparse representation "
    "and sample selection.",
    analyses=(report.analyse, claims_analysis("wang_report.md")),
)
