"""Our detectors beside ADBench's per-seed results: the shipped files, name and class mapping, share 0.0 only,
the gap with the config's parameters and with PyOD's defaults, datasets without a reference, by AUROC and AUPRC."""

import hashlib
import re
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import IsolationForest
from sklearn.svm import OneClassSVM

from kpca_bench.methods import KernelPCA
from kpca_bench.methods.baselines import KNNDetector, PCADetector
from kpca_bench.report import adbench_reference

FIXTURE = """,IForest,OCSVM,CBLOF,COF,COPOD,ECOD,FeatureBagging,HBOS,KNN,LODA,LOF,PCA,SOD,SOGAAL,DAGMM
"('wine', 0.0, 1)",0.7,0.6,,,,,,,0.5,,0.4,0.8,,,
"('wine', 0.0, 2)",0.9,0.8,,,,,,,0.7,,0.6,0.6,,,
"('wine', 0.01, 1)",0.1,0.1,,,,,,,0.1,,0.1,0.1,,,
"('Pima_withoutdupl_35', 0.0, 1)",0.75,,,,,,,,0.7,,0.65,0.72,,,
"('Parkinson_withoutdupl_75', 0.0, 1)",0.5,0.3,,,,,,,0.5,,0.5,0.3,,,
"('pendigits', 0.0, 1)",,,,,,,,,,,,,,,
"""
OURS = pd.DataFrame(
    {
        "dataset": ["adbench_wine", "adbench_wine", "adbench_pima", "adbench_pima"],
        "method": ["IForest", "kNN", "IForest", "OCSVM"],
        "auroc_mean": [0.85, 0.5, 0.75, 0.6],
        "auprc_mean": [0.45, 0.3, 0.6, 0.2],
        "trials": [5, 5, 5, 5],
    }
)
COLUMNS = {"IForest": "IForest", "kNN": "KNN", "OCSVM": "OCSVM"}


@pytest.fixture
def reference(tmp_path):
    path = tmp_path / "AUCROC.csv"
    path.write_text(FIXTURE)
    return adbench_reference.load_reference("auroc", path)


def test_reference_keeps_share_zero_maps_names_and_drops_empty_cells(reference):
    assert set(reference["dataset"]) == {"adbench_wine", "adbench_pima"}  # Parkinson: not in the 47; pendigits: empty
    wine = reference[(reference["dataset"] == "adbench_wine") & (reference["column"] == "IForest")]
    assert sorted(wine["value"]) == [0.7, 0.9]  # the 0.01-share row is left out
    assert set(reference["metric"]) == {"auroc"}
    assert "OCSVM" not in set(reference.loc[reference["dataset"] == "adbench_pima", "column"])


def test_the_shipped_files_are_adbench_s_as_their_provenance_says():
    folder = resources.files("kpca_bench.report") / "adbench_results"
    provenance = (folder / "SOURCE.md").read_text()
    assert "6a9c8b0724c006cb9ea7c98c1acdf3ccebccd8da" in provenance
    for metric in ("auroc", "auprc"):
        name = adbench_reference.file_name(metric)
        digest = hashlib.sha256((folder / name).read_bytes()).hexdigest()
        assert re.search(
            rf"`{re.escape(name)}` \| https://github.com/Minqi824/ADBench/blob/[0-9a-f]+/result/"
            rf"{re.escape(name)} \| {digest} \|",
            provenance,
        ), name


def test_the_shipped_reference_has_adbench_s_numbers():
    auroc = adbench_reference.load_reference("auroc")
    # ('Pima_withoutdupl_35', 0.0, 1), IForest: the first number of ADBench's AUCROC file.
    first = auroc[(auroc["dataset"] == "adbench_pima") & (auroc["seed"] == 1) & (auroc["column"] == "IForest")]
    assert first["value"].tolist() == [0.7568899521531101]
    wine = auroc[(auroc["dataset"] == "adbench_wine") & (auroc["column"] == "ECOD")]
    assert wine["value"].mean() == pytest.approx((0.767226 + 0.805707 + 0.743683) / 3, abs=1e-6)
    assert len(set(auroc["dataset"])) == 22 and "adbench_pendigits" not in set(auroc["dataset"])
    assert auroc.groupby(["dataset", "column"]).size().max() == 3  # three seeds
    both = adbench_reference.load_references()
    assert set(both["metric"]) == {"auroc", "auprc"}


def test_detector_classes_map_to_adbench_s_columns():
    assert adbench_reference.column_of(IsolationForest) == "IForest"
    assert adbench_reference.column_of(OneClassSVM) == "OCSVM"
    assert adbench_reference.column_of(KNNDetector) == "KNN" and adbench_reference.column_of(PCADetector) == "PCA"
    assert adbench_reference.column_of(KernelPCA) is None
    so_gaal = type("SO_GAAL", (), {"__module__": "pyod.models.so_gaal"})
    assert adbench_reference.column_of(so_gaal) == "SOGAAL"
    ecod = pytest.importorskip("pyod.models.ecod").ECOD
    assert adbench_reference.column_of(ecod) == "ECOD"


def test_comparison_gives_the_difference_of_means(reference):
    table = adbench_reference.comparison(reference, OURS, COLUMNS)
    assert set(table["metric"]) == {"auroc"} and "likely_cause" not in table
    wine = table.set_index(["dataset", "method"]).loc["adbench_wine"]
    assert wine.loc["IForest", "adbench"] == pytest.approx(0.8)
    assert wine.loc["IForest", "difference"] == pytest.approx(0.05)
    assert wine.loc["kNN", "difference"] == pytest.approx(-0.1) and wine.loc["kNN", "column"] == "KNN"
    assert ("adbench_pima", "OCSVM") not in table.set_index(["dataset", "method"]).index  # ADBench has no number
    assert table.set_index(["dataset", "method"]).loc[("adbench_pima", "IForest"), "difference"] == pytest.approx(0)


def test_comparison_says_how_much_of_a_gap_pyod_s_defaults_explain(reference):
    # With PyOD's defaults, IForest on wine moves from +0.05 to +0.01 (explains 0.04), kNN from -0.1 to -0.15
    # (0.05 farther); on pima the defaults run has no IForest number.
    defaults = pd.DataFrame(
        {
            "dataset": ["adbench_wine", "adbench_wine"],
            "method": ["IForest", "kNN"],
            "auroc_mean": [0.81, 0.45],
            "auprc_mean": [np.nan, np.nan],
            "trials": [5, 5],
        }
    )
    table = adbench_reference.comparison(reference, OURS, COLUMNS, defaults).set_index(["dataset", "method"])
    assert table.loc[("adbench_wine", "IForest"), "difference_pyod_defaults"] == pytest.approx(0.01)
    assert table.loc[("adbench_wine", "IForest"), "explained_by_defaults"] == pytest.approx(0.04)
    assert table.loc[("adbench_wine", "kNN"), "explained_by_defaults"] == pytest.approx(-0.05)
    assert np.isnan(table.loc[("adbench_pima", "IForest"), "explained_by_defaults"])
    summary = adbench_reference.gap_summary(table.reset_index()).set_index("method")
    assert summary.loc["IForest", "datasets"] == 2 and summary.loc["IForest", "datasets_pyod_defaults"] == 1
    assert summary.loc["IForest", "mean_abs_difference"] == pytest.approx(0.025)
    assert summary.loc["IForest", "mean_explained_by_defaults"] == pytest.approx(0.04)
    text = adbench_reference.comparison_markdown(table.reset_index(), ["adbench_yeast"])
    assert text.startswith("No unsupervised number in ADBench's file for: adbench_yeast.")
    assert "| IForest | 2 | +0.025 | 0.025 | 0.010 (1) | +0.040 |" in text
    assert "| kNN | 1 | -0.100 | 0.100 | 0.150 (1) | -0.050 |" in text


def test_datasets_without_a_reference_number_are_named(reference):
    assert adbench_reference.unreferenced(reference, ["adbench_wine", "adbench_pendigits", "adbench_x"]) == [
        "adbench_pendigits",
        "adbench_x",
    ]


def test_comparison_of_both_metrics_compares_each_with_its_own_column(tmp_path, reference):
    # The AUPRC file has the AUROC file's layout: here the same rows with other numbers.
    path = tmp_path / "AUCPR.csv"
    path.write_text(FIXTURE.replace("0.7,0.6,", "0.3,0.2,").replace("0.9,0.8,", "0.5,0.4,"))
    both = pd.concat([reference, adbench_reference.load_reference("auprc", path)], ignore_index=True)
    table = adbench_reference.comparison(both, OURS, COLUMNS)
    assert list(table["metric"].unique()) == ["auroc", "auprc"]
    auprc = table[table["metric"] == "auprc"].set_index(["dataset", "method"])
    assert auprc.loc[("adbench_wine", "IForest"), "adbench"] == pytest.approx(0.4)
    assert auprc.loc[("adbench_wine", "IForest"), "difference"] == pytest.approx(0.05)
    text = adbench_reference.comparison_markdown(table)
    assert text.index("Mean AUROC") < text.index("Mean AUPRC")
    assert "AUCPR_DB_test_Tabular_None_None_unsupervise.csv" in text
    assert "| adbench_wine | 0.450 / 0.400 (+0.050) | 0.300 / 0.600 (-0.300) |\n" in text[text.index("Mean AUPRC") :]


def test_a_detector_without_a_defaults_run_is_marked_and_the_mark_explained(reference):
    defaults = pd.DataFrame(
        {
            "dataset": ["adbench_wine"],
            "method": ["IForest"],
            "auroc_mean": [0.81],
            "auprc_mean": [np.nan],
            "trials": [5],
        }
    )
    text = adbench_reference.comparison_markdown(adbench_reference.comparison(reference, OURS, COLUMNS, defaults))
    assert "| kNN | 1 | -0.100 | 0.100 | – | – |" in text
    assert "–: no run of this detector with PyOD's defaults" in text
    with_all = adbench_reference.comparison_markdown(adbench_reference.comparison(reference, OURS, COLUMNS))
    assert "–: no run" not in with_all
