"""Das, Golatkar & Awate: sparse kernel PCA for outlier detection."""

from kpca_bench.report.reproductions import Reproduction

from . import consistency, report

REPRODUCTION = Reproduction(
    key="das",
    reference="Das et al.",
    citation="R. Das, A. Golatkar, S. P. Awate. Sparse kernel PCA for outlier detection. ICMLA 2018.",
    configs=("mnist.yaml", "fashion_mnist.yaml", "satimage2.yaml", "eth80.yaml", "internet_ads.yaml"),
    analyses=(report.analyse, consistency.analyse),
)
