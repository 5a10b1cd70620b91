"""Our detectors beside ADBench's stored per-seed results: name mapping, share 0.0 only, differences."""

import pandas as pd
import pytest

from kpca_bench.report import adbench_reference

FIXTURE = """,IForest,OCSVM,CBLOF,COF,COPOD,ECOD,FeatureBagging,HBOS,KNN,LODA,LOF,PCA,SOD,SOGAAL,DAGMM
"('wine', 0.0, 1)",0.7,0.6,,,,,,,0.5,,0.4,0.8,,,
"('wine', 0.0, 2)",0.9,0.8,,,,,,,0.7,,0.6,0.6,,,
"('wine', 0.01, 1)",0.1,0.1,,,,,,,0.1,,0.1,0.1,,,
"('Pima_withoutdupl_35', 0.0, 1)",0.75,,,,,,,,0.7,,0.65,0.72,,,
"('Parkinson_withoutdupl_75', 0.0, 1)",0.5,0.3,,,,,,,0.5,,0.5,0.3,,,
"""


@pytest.fixture
def root(tmp_path):
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "adbench_unsupervised_aucroc.csv").write_text(FIXTURE)
    return tmp_path


def test_reference_keeps_share_zero_and_maps_names(root):
    reference = adbench_reference.load_reference(root)
    assert set(reference["dataset"]) == {"adbench_wine", "adbench_pima"}  # Parkinson is not in ADBench's 47
    wine = reference[(reference["dataset"] == "adbench_wine") & (reference["method"] == "IForest")]
    assert sorted(wine["auroc"]) == [0.7, 0.9]  # the 0.01-share row is left out
    assert "OCSVM" not in set(reference.loc[reference["dataset"] == "adbench_pima", "method"])  # empty cell


def test_comparison_gives_the_difference_of_means_and_a_cause(root):
    ours = pd.DataFrame({"dataset": ["adbench_wine", "adbench_wine", "adbench_pima"],
                         "method": ["IForest", "kNN", "IForest"], "auroc_mean": [0.85, 0.5, 0.75],
                         "trials": [5, 5, 5]})
    table = adbench_reference.comparison(adbench_reference.load_reference(root), ours, rows={"adbench_wine": 129})
    wine = table.set_index(["dataset", "method"]).loc["adbench_wine"]
    assert wine.loc["IForest", "adbench"] == pytest.approx(0.8)
    assert wine.loc["IForest", "difference"] == pytest.approx(0.05)
    assert wine.loc["kNN", "difference"] == pytest.approx(-0.1)
    assert "duplicated this 129-row dataset" in wine.loc["kNN", "likely_cause"]
    assert "data version" in wine.loc["kNN", "likely_cause"] and "data version" not in wine.loc["IForest",
                                                                                                  "likely_cause"]
    assert table.set_index(["dataset", "method"]).loc[("adbench_pima", "IForest"), "difference"] == pytest.approx(0)
    text = adbench_reference.comparison_markdown(table)
    assert "| adbench_wine | 0.850 / 0.800 (+0.050)" in text and "mean abs. difference" in text
