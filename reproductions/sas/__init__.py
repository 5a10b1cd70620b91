"""Shen & Asgharzadeh: kernel PCA using SAS (Nyström landmarks), dimension reduction and novelty detection."""

from reproductions.framework.claims import claims_analysis
from reproductions.framework.loader import Reproduction

from . import visualization

REPRODUCTION = Reproduction(
    reference="Shen & Asgharzadeh",
    citation="H. Shen, A. Asgharzadeh. Kernel principal component analysis using SAS.",
    analyses=(visualization.analyse, claims_analysis("{config}/README.md")),
)
