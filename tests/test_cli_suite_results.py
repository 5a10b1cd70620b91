"""``export`` and ``compare`` on suites' results folders, and the headline a suite's run ends with.

Hand-built suite folders (a records.jsonl per dataset) where the answer is known, and two tiny
suites run end to end on the example files shipped in kpca_bench/configs/examples/data (2 datasets, 2 trials).
"""

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from scipy.stats import wilcoxon
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.report.compare_runs import compare_suites, with_holm

DATA = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data"
DATASETS = [{"name": "file", "options": {"path": str(DATA / "example.npz")}, "scaling": "minmax"},
            {"name": "file", "options": {"path": str(DATA / "example.csv"), "label": "status"}, "inliers": ["ok"],
             "outliers": ["faulty"], "scaling": "minmax"}]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def write_suite(folder: Path, aurocs: dict[tuple[str, str], list[float]]) -> Path:
    """A suite folder by hand: per (method, dataset) the AUROC of each trial, plus one failed cell each."""
    for (method, dataset), values in aurocs.items():
        records = [{"key": f"{method}-{trial}", "method": method, "trial": trial, "status": "ok", "auroc": value}
                   for trial, value in enumerate(values)]
        records.append({"key": f"{method}-failed", "method": method, "trial": 99, "status": "failed", "auroc": None})
        member = folder / dataset
        member.mkdir(parents=True, exist_ok=True)
        with (member / "records.jsonl").open("a") as stream:
            stream.writelines(json.dumps(record) + "\n" for record in records)
    return folder


def test_two_suites_pair_by_dataset_with_a_wilcoxon_test_over_datasets(tmp_path):
    differences = [0.10, 0.02, -0.01, 0.05, 0.07]
    a = {("KPCA", f"d{i}"): [0.6, 0.7] for i in range(5)} | {("LOF", "d0"): [0.5], ("only A", "d0"): [0.9]}
    b = {("KPCA", f"d{i}"): [0.65 + d, 0.65 + d] for i, d in enumerate(differences)} | {("LOF", "d0"): [0.4]}
    b |= {("KPCA", "d_only_b"): [0.99]}
    rows, tests = compare_suites(write_suite(tmp_path / "a", a), write_suite(tmp_path / "b", b))
    kpca = [row for row in rows if row["method"] == "KPCA"]
    assert [row["dataset"] for row in kpca] == [f"d{i}" for i in range(5)]
    assert [row["difference"] for row in kpca] == pytest.approx(differences)
    assert all(row["mean_a"] == pytest.approx(0.65) for row in kpca)
    assert {row["method"] for row in rows} == {"KPCA", "LOF"}
    by_method = {test["method"]: test for test in tests}
    assert by_method["KPCA"]["n_datasets"] == 5
    assert by_method["KPCA"]["mean_difference"] == pytest.approx(sum(differences) / 5)
    assert by_method["KPCA"]["p_value"] == pytest.approx(wilcoxon(differences).pvalue)
    assert by_method["LOF"]["p_value"] is None  # one dataset: no test
    assert by_method["KPCA"]["p_holm"] == pytest.approx(by_method["KPCA"]["p_value"])  # the only test made
    assert by_method["LOF"]["p_holm"] is None


def test_two_suites_correct_the_per_method_tests_for_their_number():
    tests = [{"method": m, "p_value": p} for m, p in (("A", 0.01), ("B", 0.04), ("C", None), ("D", 0.03))]
    holm = {test["method"]: test["p_holm"] for test in with_holm(tests)}
    assert holm == pytest.approx({"A": 0.03, "B": 0.06, "C": None, "D": 0.06})


def test_a_suite_compared_with_a_single_run_is_one_line_exit_2(tmp_path):
    suite = write_suite(tmp_path / "suite", {("KPCA", "d0"): [0.6]})
    for args in ((suite, suite / "d0"), (suite / "d0", suite)):
        result = invoke("compare", *args)
        assert result.exit_code == 2
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
        assert "a suite's results folder" in result.stderr and "Traceback" not in result.output


@pytest.fixture(scope="module")
def two_suites(tmp_path_factory):
    root = tmp_path_factory.mktemp("suites")
    outputs = {}
    for name, components in (("a", 2), ("b", 4)):
        methods = [{"name": "kpca", "label": "KPCA RE", "score": "reconstruction_error",
                    "params": {"n_components": components, "gamma": "mean_pairwise"}}, {"name": "knn", "label": "kNN"}]
        config = {"name": name, "protocol": {"name": "adbench", "max_train": 50}, "trials": 2, "seed": 0,
                  "methods": methods, "datasets": DATASETS}
        (root / f"{name}.yaml").write_text(yaml.safe_dump(config))
        outputs[name] = invoke("run", root / f"{name}.yaml", "--out", root)
        assert outputs[name].exit_code == 0, outputs[name].output
    return root / "a", root / "b", outputs


@pytest.mark.slow  # two suites run (the two_suites fixture)
def test_a_suites_run_ends_with_its_best_average_ranks(two_suites):
    suite, _, outputs = two_suites
    ranks = pd.read_csv(suite / "ranks.csv").sort_values("rank_auroc", kind="stable")
    best = ranks.iloc[0]
    assert (f"best average AUROC rank across datasets: 1. {best['method']} {best['rank_auroc']:.2f} "
            f"(mean AUROC {best['auroc_mean']:.3f})") in outputs["a"].output


@pytest.mark.slow  # two suites run (the two_suites fixture)
def test_export_of_a_suite_writes_every_datasets_cells_and_its_tables(two_suites, tmp_path):
    suite = two_suites[0]
    result = invoke("export", suite, "--format", "csv", "--output", tmp_path / "cells.csv")
    assert result.exit_code == 0, result.output
    cells = pd.read_csv(tmp_path / "cells.csv")
    assert len(cells) == 2 * 2 * 2 and sorted(cells["dataset"].unique()) == ["example", "example_2"]
    assert cells["dataset_source"].str.endswith(("example.npz", "example.csv")).all()
    for table in ("ranks", "datasets", "wilcoxon_holm"):
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / f"cells_{table}.csv"), pd.read_csv(suite / f"{table}.csv"))
    result = invoke("export", suite, "--format", "json", "--output", tmp_path / "only.json", "--no-tables")
    assert result.exit_code == 0 and len(json.loads((tmp_path / "only.json").read_text())) == 8
    assert sorted(p.name for p in tmp_path.glob("only*")) == ["only.json"]


@pytest.mark.slow  # two suites run (the two_suites fixture)
def test_compare_of_two_suites_prints_per_dataset_means_and_the_test(two_suites):
    a, b, _ = two_suites
    result = invoke("compare", a, b)
    assert result.exit_code == 0, result.output
    means = {name: pd.read_csv(folder / "datasets.csv").set_index(["method", "dataset"])["auroc_mean"]
             for name, folder in (("a", a), ("b", b))}
    for (method, dataset), mean_a in means["a"].items():
        mean_b = means["b"][(method, dataset)]
        row = next(line for line in result.output.splitlines() if f" {method} " in line and f" {dataset} " in line)
        assert f"{mean_a:.4f}" in row and f"{mean_b:.4f}" in row and f"{mean_b - mean_a:+.4f}" in row
    assert "p (Wilcoxon)" in result.output
