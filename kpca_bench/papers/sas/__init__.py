"""Shen & Asgharzadeh: kernel PCA using SAS (Nyström landmarks), dimension reduction and novelty detection."""

from kpca_bench.papers.base import Paper
from kpca_bench.papers.sas import visualization

PAPER = Paper(
    key="sas",
    reference="Shen & Asgharzadeh",
    citation="H. Shen, A. Asgharzadeh. Kernel principal component analysis using SAS.",
    configs=("sas_*.yaml",),
    analyses=(visualization.analyse,),
)
