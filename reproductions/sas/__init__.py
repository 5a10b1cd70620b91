"""Shen & Asgharzadeh: kernel PCA using SAS (Nyström landmarks), dimension reduction and novelty detection."""

from kpca_bench.report.claims import claims_analysis
from kpca_bench.report.reproductions import Reproduction

from . import visualization

REPRODUCTION = Reproduction(
    reference="Shen & Asgharzadeh",
    citation="H. Shen, A. Asgharzadeh. Kernel principal component analysis using SAS.",
    analyses=(visualization.analyse, claims_analysis("{config}/README.md")),
)
