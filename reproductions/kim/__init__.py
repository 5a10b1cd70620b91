"""Kim & Klabjan: L1-norm kernel PCA (outlier detection and robustness)."""

from reproductions.framework.claims import claims_analysis
from reproductions.framework.loader import Reproduction

from . import outliers

REPRODUCTION = Reproduction(
    reference="Kim & Klabjan",
    citation="C. Kim, D. Klabjan. A simple and fast algorithm for L1-norm kernel PCA.",
    analyses=(outliers.analyse, claims_analysis("kim_report.md")),
)
