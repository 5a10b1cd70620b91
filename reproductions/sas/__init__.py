"""Shen & Asgharzadeh: kernel PCA using SAS (Nyström landmarks), dimension reduction and novelty detection."""

from kpca_bench.report.reproductions import Reproduction

from . import visualization

REPRODUCTION = Reproduction(
    key="sas",
    reference="Shen & Asgharzadeh",
    citation="H. Shen, A. Asgharzadeh. Kernel principal component analysis using SAS.",
    configs=("sas_*.yaml",),
    analyses=(visualization.analyse,),
)
