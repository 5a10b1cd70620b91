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
from kpca_bench.report.compare_runs import (
    compare_suites,
    holm_floor,
    method_standing,
    suite_mismatches,
    suite_verdict,
    with_holm,
)

DATA = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data"
DATASETS = [
    {"name": "file", "options": {"path": str(DATA / "example.npz")}, "scaling": "minmax"},
    {
        "name": "file",
        "options": {"path": str(DATA / "example.csv"), "label": "status"},
        "inliers": ["ok"],
        "outliers": ["faulty"],
        "scaling": "minmax",
    },
]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def write_suite(
    folder: Path, aurocs: dict[tuple[str, str], list[float]], params: dict[str, dict] | None = None
) -> Path:
    """A suite folder by hand: per (method, dataset) the AUROC of each trial (with the method's ``params``, {} by
    default), plus one failed cell each."""
    for (method, dataset), values in aurocs.items():
        records = [
            {
                "key": f"{method}-{trial}",
                "method": method,
                "trial": trial,
                "status": "ok",
                "auroc": value,
                "params": (params or {}).get(method, {}),
            }
            for trial, value in enumerate(values)
        ]
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


def seven_dataset_suites(tmp_path: Path) -> tuple[Path, Path]:
    """Two hand-built suites of 7 datasets: KPCA RE (other n_components in B) a little better in B on 6, LOF alike,
    IForest in A only and kNN in B only."""
    shifts = [0.02, 0.03, 0.01, 0.04, -0.01, 0.05, 0.06]
    a = {("KPCA RE", f"d{i}"): [0.7] for i in range(7)} | {("LOF", f"d{i}"): [0.6] for i in range(7)}
    a |= {("IForest", "d0"): [0.8]}
    b = {("KPCA RE", f"d{i}"): [0.7 + shift] for i, shift in enumerate(shifts)}
    b |= {("LOF", f"d{i}"): [0.6 + 0.01 * (-1) ** i] for i in range(7)} | {("kNN", "d0"): [0.8]}
    return (
        write_suite(tmp_path / "a", a, {"KPCA RE": {"n_components": 10}}),
        write_suite(tmp_path / "b", b, {"KPCA RE": {"n_components": 20}}),
    )


def test_two_suites_name_what_they_do_not_share(tmp_path):
    mismatches = suite_mismatches(*seven_dataset_suites(tmp_path))
    assert (mismatches.only_a, mismatches.only_b) == (["IForest"], ["kNN"])
    assert mismatches.collisions == [("KPCA RE", ['{"n_components": 10}'], ['{"n_components": 20}'])]


def test_the_comparison_of_two_suites_states_its_floor_and_opens_with_what_the_test_supports(tmp_path):
    a, b = seven_dataset_suites(tmp_path)
    _, tests = compare_suites(a, b)
    # 2 methods tested on 7 datasets: 2 x 2 / 2**7 = 0.03125.
    assert holm_floor(tests) == pytest.approx(2 * 2 / 2**7)
    text = suite_verdict(tests)
    assert text.startswith(
        "AUROC, B against A: no detectable difference for any of the 2 methods at this size (smallest Holm p = "
    )
    assert "the smallest attainable at this size is 2 x 0.0156 = 0.0312 (2 methods tested, at most 7 datasets)" in text
    result = invoke("compare", a, b)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == text
    assert f"only in {a} (not compared): IForest" in lines[1] and f"only in {b} (not compared): kNN" in lines[2]
    assert lines[3] == (
        "KPCA RE has other parameters in the two suites (compared by label all the same): "
        'A {"n_components": 10}; B {"n_components": 20}'
    )


def test_a_method_whose_every_dataset_moves_one_way_is_named_as_differing():
    tests = with_holm(
        [
            {"method": "A", "n_datasets": 12, "mean_difference": 0.03, "p_value": 2 / 2**12},
            {"method": "B", "n_datasets": 12, "mean_difference": 0.0, "p_value": 0.8},
        ]
    )
    assert suite_verdict(tests).startswith(
        "AUROC, B against A: 1 of 2 methods differ at alpha 0.05 after Holm's "
        "correction: A (mean B - A +0.0300, Holm p = 0.000977)"
    )


def test_a_suites_terminal_summary_opens_with_its_verdict(tmp_path, capsys):
    from types import SimpleNamespace

    from kpca_bench.cli.render import print_run_summary

    verdict = "AUROC: no detectable difference among the 4 methods at this size (7 datasets; Friedman p = 0.934)."
    summary = pd.DataFrame({"dataset": ["d"], "method": ["KPCA RE"], "auroc_mean": [0.8], "auroc_std": [0.1]})
    results = SimpleNamespace(
        outcome=SimpleNamespace(n_run=7, n_reused=0),
        summary=summary,
        folder=tmp_path,
        ranks=pd.DataFrame({"method": ["KPCA RE"]}),
        verdict=verdict,
    )
    print_run_summary(results, 1.0)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == verdict
    assert lines[-1] == "written:" and lines[-2] == verdict
    row = next(line for line in lines if "KPCA RE" in line)
    assert [cell.strip() for cell in row.split("│")[1:3]] == [
        "d",
        "KPCA RE",
    ]  # the dataset and the method in columns of their own


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
        methods = [
            {
                "name": "kpca",
                "label": "KPCA RE",
                "score": "reconstruction_error",
                "params": {"n_components": components, "gamma": "mean_pairwise"},
            },
            {"name": "knn", "label": "kNN"},
        ]
        config = {
            "name": name,
            "protocol": {"name": "adbench", "max_train": 50},
            "trials": 2,
            "seed": 0,
            "methods": methods,
            "datasets": DATASETS,
        }
        (root / f"{name}.yaml").write_text(yaml.safe_dump(config))
        outputs[name] = invoke("run", root / f"{name}.yaml", "--out", root)
        assert outputs[name].exit_code == 0, outputs[name].output
    return root / "a", root / "b", outputs


@pytest.mark.slow  # two suites run (the two_suites fixture)
def test_a_suites_run_opens_and_ends_with_what_the_test_supports(two_suites):
    suite, _, outputs = two_suites
    ranks = pd.read_csv(suite / "ranks.csv").sort_values("rank_auroc", kind="stable")
    headline = (suite / "headline.md").read_text().strip()
    # 2 methods on 2 datasets: no Friedman (3 methods at least), and no pair can be significant.
    assert headline.startswith("AUROC: no detectable difference among the 2 methods at this size (2 datasets; ")
    assert f"top mean rank, not significant: {ranks.iloc[0]['method']}" in headline
    lines = outputs["a"].stdout.splitlines()
    assert lines[0] == headline and headline in lines


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


def test_where_each_method_stands_ranks_within_each_suite_over_shared_datasets_with_adbench_gaps(tmp_path):
    """Ranks by hand: on d0 and d1 (d2 lacks LOF in B, so it is left out) A ranks KPCA 1, 1.5 and LOF 2, 1.5 (a
    tie on d1); B ranks LOF first on both. The ADBench gap is read from A's adbench_comparison.csv alone."""
    a = {
        ("KPCA", "d0"): [0.9],
        ("LOF", "d0"): [0.5],
        ("KPCA", "d1"): [0.7],
        ("LOF", "d1"): [0.7],
        ("KPCA", "d2"): [0.8],
        ("LOF", "d2"): [0.6],
    }
    b = {
        ("KPCA", "d0"): [0.6],
        ("LOF", "d0"): [0.8],
        ("KPCA", "d1"): [0.5],
        ("LOF", "d1"): [0.9],
        ("KPCA", "d2"): [0.8],
    }
    suite_a, suite_b = write_suite(tmp_path / "a", a), write_suite(tmp_path / "b", b)
    pd.DataFrame(
        {
            "metric": ["auroc", "auroc", "auroc", "auprc"],
            "dataset": ["d0", "d1", "d0", "d0"],
            "method": ["LOF", "LOF", "KPCA", "LOF"],
            "difference": [0.1, -0.3, None, 0.5],
        }
    ).to_csv(suite_a / "adbench_comparison.csv", index=False)
    rows, _ = compare_suites(suite_a, suite_b)
    standing = method_standing(suite_a, suite_b, rows).set_index("method")
    assert standing.loc["KPCA", "datasets"] == 2
    assert standing[["rank_a", "rank_b"]].to_dict("index") == {
        "KPCA": {"rank_a": 1.25, "rank_b": 2.0},
        "LOF": {"rank_a": 1.75, "rank_b": 1.0},
    }
    assert standing.loc["LOF", "mean_a"] == pytest.approx(0.6) and standing.loc["LOF", "mean_b"] == pytest.approx(0.85)
    assert standing.loc["LOF", "difference"] == pytest.approx(0.25)
    assert standing.loc["LOF", "gap_a"] == pytest.approx(-0.1) and pd.isna(standing.loc["LOF", "gap_b"])
    assert pd.isna(standing.loc["KPCA", "gap_a"])  # its only ADBench row has no difference
    assert standing.loc["LOF", "gap_datasets"] == 0  # B has no comparison


def test_compare_writes_the_standing_as_markdown_and_refuses_it_for_two_runs(tmp_path):
    suites = [
        write_suite(tmp_path / name, {("KPCA", "d0"): [0.6], ("LOF", "d0"): [value]})
        for name, value in (("a", 0.5), ("b", 0.7))
    ]
    result = invoke("compare", *suites, "--table", tmp_path / "standing.md")
    assert result.exit_code == 0, result.output
    assert "where each method stands, over 1 datasets" in result.output
    table = (tmp_path / "standing.md").read_text().splitlines()
    assert table[0].startswith("| method | rank (a) | rank (b) |") and len(table) == 4
    assert table[3] == "| LOF | 2.00 | 1.00 | 0.500 | 0.700 | +0.200 | – | – |"
    single = invoke("compare", suites[0] / "d0", suites[1] / "d0", "--table", tmp_path / "x.csv")
    assert single.exit_code == 2 and "--table is for two suites" in single.output


@pytest.mark.slow  # two suites run (the two_suites fixture)
def test_compare_of_two_suites_prints_per_dataset_means_and_the_test(two_suites):
    a, b, _ = two_suites
    result = invoke("compare", a, b)
    assert result.exit_code == 0, result.output
    means = {
        name: pd.read_csv(folder / "datasets.csv").set_index(["method", "dataset"])["auroc_mean"]
        for name, folder in (("a", a), ("b", b))
    }
    for (method, dataset), mean_a in means["a"].items():
        mean_b = means["b"][(method, dataset)]
        row = next(line for line in result.output.splitlines() if f" {method} " in line and f" {dataset} " in line)
        assert f"{mean_a:.4f}" in row and f"{mean_b:.4f}" in row and f"{mean_b - mean_a:+.4f}" in row
    assert "p (Wilcoxon)" in result.output
