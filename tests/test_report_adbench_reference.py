"""Our detectors beside ADBench's stored per-seed results: name mapping, share 0.0 only, differences,
by AUROC and AUPRC."""

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
# The AUPRC extract of the same rows (ADBench's AUCPR file has the AUROC file's layout).
FIXTURE_AUPRC = """,IForest,OCSVM,CBLOF,COF,COPOD,ECOD,FeatureBagging,HBOS,KNN,LODA,LOF,PCA,SOD,SOGAAL,DAGMM
"('wine', 0.0, 1)",0.3,0.2,,,,,,,0.1,,0.1,0.4,,,
"('wine', 0.0, 2)",0.5,0.4,,,,,,,0.3,,0.2,0.2,,,
"('wine', 0.01, 1)",0.9,0.9,,,,,,,0.9,,0.9,0.9,,,
"('Pima_withoutdupl_35', 0.0, 1)",0.6,,,,,,,,0.55,,0.5,0.58,,,
"('Parkinson_withoutdupl_75', 0.0, 1)",0.5,0.3,,,,,,,0.5,,0.5,0.3,,,
"""
OURS = pd.DataFrame({"dataset": ["adbench_wine", "adbench_wine", "adbench_pima"],
                     "method": ["IForest", "kNN", "IForest"], "auroc_mean": [0.85, 0.5, 0.75],
                     "auprc_mean": [0.45, 0.3, 0.6], "trials": [5, 5, 5]})


@pytest.fixture
def root(tmp_path):
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "adbench_unsupervised_aucroc.csv").write_text(FIXTURE)
    (tmp_path / "reference" / "adbench_unsupervised_aucpr.csv").write_text(FIXTURE_AUPRC)
    return tmp_path


def test_reference_keeps_share_zero_and_maps_names(root):
    reference = adbench_reference.load_reference(root)
    assert set(reference["dataset"]) == {"adbench_wine", "adbench_pima"}  # Parkinson is not in ADBench's 47
    wine = reference[(reference["dataset"] == "adbench_wine") & (reference["method"] == "IForest")]
    assert sorted(wine["value"]) == [0.7, 0.9]  # the 0.01-share row is left out
    assert set(reference["metric"]) == {"auroc"}
    assert "OCSVM" not in set(reference.loc[reference["dataset"] == "adbench_pima", "method"])  # empty cell


def test_comparison_gives_the_difference_of_means_and_a_cause(root):
    table = adbench_reference.comparison(adbench_reference.load_reference(root), OURS, rows={"adbench_wine": 129})
    assert set(table["metric"]) == {"auroc"}
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
    assert "AUPRC" not in text


def test_auprc_reference_is_read_the_same_way(root):
    reference = adbench_reference.load_reference(root, "auprc")
    assert set(reference["metric"]) == {"auprc"}
    assert set(reference["dataset"]) == {"adbench_wine", "adbench_pima"}
    wine = reference[(reference["dataset"] == "adbench_wine") & (reference["method"] == "IForest")]
    assert sorted(wine["value"]) == [0.3, 0.5]  # the 0.01-share row is left out
    assert "OCSVM" not in set(reference.loc[reference["dataset"] == "adbench_pima", "method"])


def test_comparison_of_both_metrics_compares_each_with_its_own_column(root):
    table = adbench_reference.comparison(adbench_reference.load_references(root), OURS, rows={"adbench_wine": 129})
    assert list(table["metric"].unique()) == ["auroc", "auprc"]
    auprc = table[table["metric"] == "auprc"].set_index(["dataset", "method"])
    assert auprc.loc[("adbench_wine", "IForest"), "adbench"] == pytest.approx(0.4)
    assert auprc.loc[("adbench_wine", "IForest"), "ours"] == pytest.approx(0.45)
    assert auprc.loc[("adbench_wine", "IForest"), "difference"] == pytest.approx(0.05)
    assert auprc.loc[("adbench_wine", "kNN"), "difference"] == pytest.approx(0.1)
    assert auprc.loc[("adbench_pima", "IForest"), "difference"] == pytest.approx(0)
    auroc = table[table["metric"] == "auroc"].set_index(["dataset", "method"])
    assert auroc.loc[("adbench_wine", "kNN"), "difference"] == pytest.approx(-0.1)
    text = adbench_reference.comparison_markdown(table)
    assert text.index("Mean AUROC") < text.index("Mean AUPRC")
    assert "AUCPR_DB_test_Tabular_None_None_unsupervise.csv" in text
    auprc_part = text[text.index("Mean AUPRC"):]
    assert "| adbench_wine | 0.450 / 0.400 (+0.050) | 0.300 / 0.200 (+0.100) |" in auprc_part
    assert auprc_part.count("mean abs. difference") == 1 and text.count("mean abs. difference") == 2


def test_only_the_extracts_present_are_compared(tmp_path):
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "adbench_unsupervised_aucpr.csv").write_text(FIXTURE_AUPRC)
    table = adbench_reference.comparison(adbench_reference.load_references(tmp_path), OURS)
    assert set(table["metric"]) == {"auprc"}
    assert adbench_reference.load_references(tmp_path / "nowhere").empty
