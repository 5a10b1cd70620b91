"""Suites: several datasets in one config, end to end through the CLI, each with resume after an interruption.

No real data: the datasets are the small example files shipped in kpca_bench/configs/examples/data and, for the ADBench
collection, stand-in files written into a temporary data folder under the names of the four
ADBench files that have no checksum (backdoor, census, fraud, speech).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.experiment.config_parser import load_config, parse_config
from kpca_bench.report import suite as suite_report
from kpca_bench.experiment.planning import plan_cells

DATA = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data"
METHODS = [
    {
        "name": "kpca",
        "label": "KPCA RE",
        "params": {"n_components": 3, "gamma": "mean_pairwise"},
        "score": "reconstruction_error",
    },
    {"name": "knn", "label": "kNN"},
    {"name": "isolation_forest", "label": "IForest", "params": {"n_estimators": 10}},
]
NPZ = {"name": "file", "options": {"path": str(DATA / "example.npz")}, "scaling": "minmax"}
CSV = {
    "name": "file",
    "options": {"path": str(DATA / "example.csv"), "label": "status"},
    "inliers": ["ok"],
    "outliers": ["faulty"],
    "scaling": "minmax",
}


def write_config(path: Path, **entries) -> Path:
    config = {
        "name": "suite",
        "protocol": {"name": "adbench", "max_train": 50},
        "trials": 2,
        "seed": 0,
        "methods": METHODS,
        **entries,
    }
    path.write_text(yaml.safe_dump(config))
    return path


def run(config: Path, out: Path, *args):
    return CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--quiet", *args])


def trials_of(folder: Path) -> pd.DataFrame:
    frame = pd.read_csv(folder / "trials.csv")
    return frame.drop(columns=[c for c in frame if "time" in c or "memory" in c]).reset_index(drop=True)


def interrupted_then_resumed(monkeypatch, config: Path, out: Path, stop_at: int) -> int:
    """Run ``config`` with Ctrl-C at evaluation ``stop_at``, then again; return how many cells the second run ran."""
    real = PROTOCOLS["adbench"].evaluate
    calls = []

    def evaluate(*args):
        calls.append(args)
        if len(calls) == stop_at:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(PROTOCOLS["adbench"], "evaluate", evaluate)
    first = run(config, out)
    assert first.exit_code == 130, first.output
    calls.clear()
    monkeypatch.setattr(PROTOCOLS["adbench"], "evaluate", lambda *a: calls.append(a) or real(*a))
    second = run(config, out)
    assert second.exit_code == 0, second.output
    return len(calls)


def assert_same_results(a: Path, b: Path, members: list[str]) -> None:
    for member in members:
        pd.testing.assert_frame_equal(trials_of(a / member), trials_of(b / member))
    pd.testing.assert_frame_equal(pd.read_csv(a / "ranks.csv"), pd.read_csv(b / "ranks.csv"))


@pytest.mark.slow  # two datasets run, interrupted and resumed
def test_two_datasets_run_into_sub_folders_and_resume(tmp_path, monkeypatch):
    config = write_config(tmp_path / "two.yaml", datasets=[NPZ, CSV])
    whole = run(config, tmp_path / "whole")
    assert whole.exit_code == 0, whole.output
    suite = tmp_path / "whole" / "suite"
    members = ["example", "example_2"]
    for member in members:
        trials = pd.read_csv(suite / member / "trials.csv")
        assert len(trials) == 6 and set(trials["status"]) == {"ok"}
        assert trials["auprc"].between(0, 1).all()
        assert (suite / member / "summary.md").exists()
    for name in (
        "summary.md",
        "summary.csv",
        "datasets.csv",
        "ranks.csv",
        "wilcoxon_holm.csv",
        "win_tie_loss.csv",
        "cd_auroc.png",
        "cd_auprc.png",
        "auroc_box.png",
        "run.json",
    ):
        assert (suite / name).exists(), name
    summary = (suite / "summary.md").read_text()
    assert "# suite: 2 datasets" in summary and "Average ranks" in summary and "Where kernel PCA stands" in summary
    assert set(pd.read_csv(suite / "ranks.csv")["method"]) == {"KPCA RE", "kNN", "IForest"}
    # Ctrl-C in the second dataset; the resumed run computes only what is missing, to the same tables.
    ran = interrupted_then_resumed(monkeypatch, config, tmp_path / "resumed", stop_at=9)
    assert ran == 12 - 8
    assert_same_results(suite, tmp_path / "resumed" / "suite", members)


@pytest.fixture
def adbench_stand_ins(tmp_path, monkeypatch):
    """A data folder with small stand-ins for ADBench's backdoor, census, fraud and speech (no checksums)."""
    folder = tmp_path / "data" / "adbench_classical"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for index, file in enumerate(["3_backdoor.npz", "9_census.npz", "13_fraud.npz", "36_speech.npz"]):
        X = np.r_[rng.normal(size=(90, 4)), rng.normal(3 + index, 1, size=(10, 4))]
        np.savez(folder / file, X=X, y=np.r_[np.zeros(90), np.ones(10)])
    monkeypatch.setenv("KPCA_BENCH_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("KPCA_BENCH_REQUIRE_DATA", raising=False)
    return tmp_path


@pytest.mark.slow
def test_a_collection_with_an_exclusion_skips_and_counts_missing_datasets(adbench_stand_ins, monkeypatch):
    tmp_path = adbench_stand_ins
    config = write_config(
        tmp_path / "collection.yaml", suite={"collection": "adbench", "exclude": ["speech"], "scaling": "minmax"}
    )
    loaded = load_config(config)
    assert len(loaded.datasets) == 46 and "adbench_speech" not in [d.name for d in loaded.datasets]
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "whole")])
    assert result.exit_code == 0, result.output
    assert "skipped dataset adbench_aloi: its files are not in" in result.output
    suite = tmp_path / "whole" / "suite"
    members = ["adbench_backdoor", "adbench_census", "adbench_fraud"]
    assert sorted(p.name for p in suite.iterdir() if p.is_dir()) == members
    summary = (suite / "summary.md").read_text()
    assert (
        "datasets: 3 run (100 to 100 rows, 4 to 4 features; sizes and scaling per dataset in `datasets.csv`), "
        "43 skipped"
    ) in summary
    skipped = [line for line in summary.splitlines() if "adbench_aloi" in line]
    assert len(skipped) == 1 and skipped[0].startswith("Skipped, files not here: adbench_aloi, adbench_annthyroid, ")
    assert skipped[0].endswith("; 'kpca-bench datasets fetch <name>' downloads them.")
    assert skipped[0].count("For each: its files are not in ") == 1
    sizes = pd.read_csv(suite / "datasets.csv").drop_duplicates("dataset").set_index("dataset")
    assert sizes.loc[members, ["n_rows", "n_features"]].to_numpy().tolist() == [[100, 4]] * 3
    assert set(sizes["scaling"]) == {"minmax"} and (sizes["n_test_mean"] == 30).all()
    assert "n_rows" not in pd.read_csv(suite / "summary.csv")  # sizes are no metric for bless
    ran = interrupted_then_resumed(monkeypatch, config, tmp_path / "resumed", stop_at=4)
    assert ran == 18 - 3
    assert_same_results(suite, tmp_path / "resumed" / "suite", members)


def test_a_missing_dataset_is_an_error_when_data_are_required(adbench_stand_ins, monkeypatch):
    config = write_config(adbench_stand_ins / "c.yaml", suite={"collection": "adbench", "include": ["fraud", "wine"]})
    monkeypatch.setenv("KPCA_BENCH_REQUIRE_DATA", "1")
    result = run(config, adbench_stand_ins / "out")
    assert result.exit_code == 2
    assert "dataset adbench_wine of suite suite: its files are not in" in result.stderr


@pytest.mark.slow
def test_a_config_naming_one_missing_dataset_runs_the_others_and_resumes(tmp_path, monkeypatch):
    monkeypatch.delenv("KPCA_BENCH_REQUIRE_DATA", raising=False)
    missing = {"name": "file", "options": {"path": str(tmp_path / "nowhere.npz")}}
    config = write_config(tmp_path / "missing.yaml", datasets=[NPZ, missing, CSV])
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "whole")])
    assert result.exit_code == 0, result.output
    assert f"skipped dataset nowhere: its file {tmp_path / 'nowhere.npz'} does not exist" in result.output
    suite = tmp_path / "whole" / "suite"
    summary = (suite / "summary.md").read_text()
    assert "datasets: 2 run (" in summary and "`datasets.csv`), 1 skipped" in summary
    assert f"Skipped, files not here: nowhere. For each: its file {tmp_path / '<name>.npz'} does not exist." in summary
    ran = interrupted_then_resumed(monkeypatch, config, tmp_path / "resumed", stop_at=3)
    assert ran == 12 - 2
    assert_same_results(suite, tmp_path / "resumed" / "suite", ["example", "example_2"])


def test_a_member_has_the_cells_of_its_single_dataset_config(tmp_path):
    suite = parse_config({"name": "s", "datasets": [NPZ, CSV], "protocol": "adbench", "methods": METHODS})
    alone = parse_config({"name": "s", "dataset": CSV, "protocol": "adbench", "methods": METHODS})
    ((_, member),) = [m for m in suite.members() if m[0] == "example_2"]
    assert [c.key for c in plan_cells(member)] == [c.key for c in plan_cells(alone)]
    assert [c.split_seed for c in plan_cells(member)] == [c.split_seed for c in plan_cells(alone)]
    assert member.config_hash() == alone.config_hash() != suite.config_hash()
    keys = [c.key for _, m in suite.members() for c in plan_cells(m)]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize(
    "entries, message",
    [
        ({"dataset": NPZ, "datasets": [NPZ]}, "dataset: give dataset (one) or datasets / suite (several), not both"),
        ({"suite": {"collection": "odds"}}, "suite.collection: unknown collection 'odds'"),
        (
            {"suite": {"collection": "adbench", "exclude": ["wien"]}},
            "suite.exclude: 'wien' is not in collection adbench",
        ),
        ({"datasets": []}, "datasets: must be a non-empty list"),
        ({"datasets": [{"name": "nope"}]}, "datasets[0].name: unknown dataset 'nope'"),
    ],
)
def test_bad_suite_entries_are_config_errors(tmp_path, entries, message):
    result = run(write_config(tmp_path / "bad.yaml", **entries), tmp_path)
    assert result.exit_code == 2 and message in result.stderr, result.stderr


def test_plan_counts_the_datasets_whose_files_are_here_and_names_the_others(adbench_stand_ins):
    config = write_config(adbench_stand_ins / "c.yaml", suite={"collection": "adbench", "include": ["fraud", "wine"]})
    out = adbench_stand_ins / "out"
    before = CliRunner().invoke(app, ["plan", str(config), "--out", str(out)])
    assert before.exit_code == 0, before.output
    assert "1 of 2 datasets with files here" in before.output
    assert "skipped (files not here, as run skips them): adbench_wine" in before.output
    assert "6 cells, 0 stored" in before.output
    assert run(config, out).exit_code == 0
    after = CliRunner().invoke(app, ["plan", str(config), "--out", str(out)])
    assert "6 cells, 6 stored" in after.output


def test_a_suite_with_no_dataset_here_exits_2_with_one_line_and_writes_nothing(adbench_stand_ins):
    config = write_config(adbench_stand_ins / "c.yaml", suite={"collection": "adbench", "include": ["wine", "glass"]})
    result = run(config, adbench_stand_ins / "out")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: no dataset of suite suite has its files here, e.g. adbench_glass: its files are not in "
    )
    assert "'kpca-bench datasets fetch adbench_glass' downloads them" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (adbench_stand_ins / "out").exists()


def test_one_line_per_distinct_setting_naming_the_datasets_when_they_differ():
    other = {**CSV, "scaling": "standard"}
    config = parse_config({"name": "s", "datasets": [NPZ, other], "protocol": "adbench", "methods": METHODS})
    lines = suite_report.setting_lines(config, {"example": [], "example_2": []})
    assert len(lines) == 2
    assert lines[0].startswith("protocol: adbench: ") and lines[0].endswith("; scaling: minmax (1 datasets: example)")
    assert lines[1].endswith("; scaling: standard (1 datasets: example_2)")
    same = parse_config({"name": "s", "datasets": [NPZ, CSV], "protocol": "adbench", "methods": METHODS})
    assert len(suite_report.setting_lines(same, {"example": [], "example_2": []})) == 1
    methods = suite_report.method_lines(
        parse_config(
            {
                "name": "s",
                "datasets": [NPZ],
                "protocol": "adbench",
                "methods": [*METHODS, {**METHODS[0], "label": "KPCA MD", "score": "mahalanobis"}],
            }
        )
    )
    assert (
        methods[0]
        == (
            "method kpca {'n_components': 3, 'gamma': 'mean_pairwise'}: KPCA RE (scored by "
            "reconstruction_error), KPCA MD (scored by mahalanobis)"
        )
        and len(methods) == 3
    )


def test_the_adbench_comparison_adds_the_pyod_defaults_run_beside_the_suite(tmp_path):
    config = parse_config({"name": "s", "datasets": [NPZ], "protocol": "adbench", "methods": METHODS})
    table = pd.DataFrame(
        {
            "dataset": ["adbench_wine"] * 3,
            "method": ["KPCA RE", "kNN", "IForest"],
            "auroc_mean": [0.9, 0.5, 0.8],
            "auprc_mean": [0.5, 0.2, 0.3],
            "trials": [2, 2, 2],
        }
    )
    compared, missing = suite_report.adbench_comparison(config, table, tmp_path / "s")
    assert set(compared["method"]) == {"kNN", "IForest"} and "difference_pyod_defaults" not in compared
    assert missing == []
    (tmp_path / "s_pyod_defaults").mkdir()
    table.assign(auroc_mean=[0.9, 0.45, 0.8]).to_csv(tmp_path / "s_pyod_defaults" / "datasets.csv", index=False)
    compared, _ = suite_report.adbench_comparison(config, table, tmp_path / "s")
    knn = compared[(compared["metric"] == "auroc") & (compared["method"] == "kNN")].iloc[0]
    # ADBench's kNN on wine: mean of 0.501020, 0.387606, 0.460626 (its file's three seeds) = 0.449751
    assert knn["difference"] == pytest.approx(0.5 - 0.449751, abs=1e-6)
    assert knn["difference_pyod_defaults"] == pytest.approx(0.45 - 0.449751, abs=1e-6)
    assert knn["explained_by_defaults"] == pytest.approx(0.05, abs=1e-6)


@pytest.mark.slow
@pytest.mark.real_data
def test_detectors_by_import_path_run_report_and_plan_on_two_adbench_datasets(real_data_dir, tmp_path, monkeypatch):
    """PyOD's ECOD and scikit-learn's IsolationForest by import path beside a kernel-PCA variant, on two small
    ADBench sets: through run, the suite tables, win / tie / loss, the ADBench comparison, report and plan."""
    pytest.importorskip("pyod")
    monkeypatch.delenv("KPCA_BENCH_REQUIRE_DATA", raising=False)
    config = tmp_path / "pyod.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "name": "pyod_suite",
                "suite": {"collection": "adbench", "include": ["wine", "vertebral"], "scaling": "minmax"},
                "protocol": {"name": "adbench", "test_size": 0.3, "subsample": 10000, "max_train": 2000},
                "trials": 2,
                "seed": 0,
                "methods": [
                    METHODS[0],
                    {"name": "pyod.models.ecod:ECOD", "label": "ECOD"},
                    {
                        "name": "sklearn.ensemble:IsolationForest",
                        "label": "IForest (sklearn)",
                        "params": {"n_estimators": 50},
                    },
                ],
            }
        )
    )
    out = tmp_path / "out"
    result = run(config, out)
    assert result.exit_code == 0, result.output
    suite = out / "pyod_suite"
    assert set(pd.read_csv(suite / "win_tie_loss.csv").columns) >= {"ECOD", "IForest (sklearn)"}
    compared = pd.read_csv(suite / "adbench_comparison.csv")
    assert set(zip(compared["method"], compared["column"])) == {("ECOD", "ECOD"), ("IForest (sklearn)", "IForest")}
    assert set(compared["dataset"]) == {"adbench_wine", "adbench_vertebral"} and set(compared["metric"]) == {
        "auroc",
        "auprc",
    }
    assert compared["difference"].notna().all()
    summary = (suite / "summary.md").read_text()
    assert "## Against ADBench's own results" in summary
    assert "| dataset | ECOD | IForest (sklearn) |" in summary
    assert summary.count("| ECOD | 2 | ") == 2 and summary.count("| IForest (sklearn) | 2 | ") == 2
    (suite / "summary.md").unlink()
    rebuilt = CliRunner().invoke(app, ["report", str(suite)])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert (suite / "summary.md").read_text() == summary
    planned = CliRunner().invoke(app, ["plan", str(config), "--out", str(out)])
    assert planned.exit_code == 0 and "12 cells, 12 stored" in planned.output, planned.output


def test_incomplete_datasets_name_missing_and_failed_trials():
    table = pd.DataFrame(
        {
            "dataset": ["a", "a", "b"],
            "method": ["PCA", "OCSVM", "PCA"],
            "trials": [1, 5, 3],
            "planned": [5, 5, 5],
            "failed": [4, 0, 0],
        }
    )
    assert suite_report.incomplete_datasets(table) == ["a (PCA 1/5, 4 failed)", "b (PCA 3/5)"]


SKPCA_STOPPED = {
    "name": "skpca_enet",
    "label": "SKPCA RE",
    "score": "reconstruction_error",
    "params": {"n_components": 3, "l1_ratio": 0.5, "gamma": "mean_pairwise", "eigen_solver": "arpack", "max_iter": 1},
}


@pytest.fixture
def figure_texts(monkeypatch) -> dict[str, list[str]]:
    """Every text of every figure saved (titles, tick labels, legends), by the figure's file name and folder."""
    import matplotlib.text

    from kpca_bench.report import plots

    texts, save = {}, plots.save_figure

    def saving(fig, path, **options):
        fig.canvas.draw()  # tick labels get their text when drawn
        texts[f"{Path(path).parent.name}/{Path(path).name}"] = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
        save(fig, path, **options)

    monkeypatch.setattr(plots, "save_figure", saving)
    return texts


@pytest.mark.slow  # a two-dataset suite run through the command line, its figures and page
def test_a_suite_shows_its_unconverged_fits_and_its_incompleteness_everywhere(tmp_path, monkeypatch, figure_texts):
    config = write_config(tmp_path / "s.yaml", datasets=[NPZ, CSV], methods=[*METHODS, SKPCA_STOPPED])
    real, calls = PROTOCOLS["adbench"].evaluate, []

    def evaluate(method, split, options):
        calls.append(method.label)
        if method.label == "kNN" and calls.count("kNN") == 1:
            raise ValueError("made to fail")
        return real(method, split, options)

    monkeypatch.setattr(PROTOCOLS["adbench"], "evaluate", evaluate)
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out")])  # not quiet: the headline
    assert result.exit_code == 1, result.output  # a cell failed
    suite = tmp_path / "out" / "suite"
    incomplete = "INCOMPLETE, not final: example (kNN 1/2, 1 failed)"
    verdict = "SKPCA RE: 4 of 4 fits stopped at max_iter = 1 (not converged"
    terminal = " ".join(result.output.split())
    assert incomplete in terminal and verdict in terminal, result.output
    headline = (suite / "headline.md").read_text()
    assert headline.startswith(incomplete) and verdict in headline
    summary = (suite / "summary.md").read_text()
    assert f"- {verdict}" in summary and "| SKPCA RE (not converged 4/4) |" in summary
    # on the first screen, under what the tests support, before any rank
    assert summary.index("**What the tests support:**") < summary.index(f"- {verdict}") < summary.index("## Where")
    rows = pd.read_csv(suite / "summary.csv").set_index(["dataset", "method"])["not_converged"]
    assert rows.to_dict() == {
        (dataset, method): 2 if method == "SKPCA RE" else 0
        for dataset in ("example", "example_2")
        for method in ("KPCA RE", "kNN", "IForest", "SKPCA RE")
    }
    member = pd.read_csv(suite / "example" / "summary.csv").set_index("method")
    assert member.loc["SKPCA RE", "not_converged"] == 2 and member.loc["KPCA RE", "not_converged"] == 0
    assert (
        "SKPCA RE **(not converged, stopped at max_iter = 1: 2 of 2 trials)**"
        in (suite / "example" / "summary.md").read_text()
    )
    for name in ("cd_auroc.png", "rank_heatmap_auroc.png", "auroc_box.png"):
        texts = figure_texts[f"suite/{name}"]
        assert any("SKPCA RE (not converged 4/4)" in text for text in texts), (name, texts)
        assert any(incomplete.replace(" ", "") in text.replace("\n", "").replace(" ", "") for text in texts), name
    assert any(text.startswith("SKPCA RE (not converged 2/2) (AUROC") for text in figure_texts["example/roc.png"])
    page = (suite / "report.html").read_text()
    assert "SKPCA RE (not converged 4/4)" in page and verdict in page and "INCOMPLETE" in page
