"""The command line itself: a light import, --version, methods, protocols, plan, compare, export, --jobs."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app, options
from kpca_bench.experiment.store import ResultStore

ROOT = Path(__file__).parents[1]
QUICKSTART = ROOT / "configs" / "quickstart.yaml"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_importing_the_cli_imports_no_heavy_library():
    code = (
        "import sys, kpca_bench.cli; print(' '.join(m for m in ('sklearn', 'pandas', 'matplotlib', 'scipy') "
        "if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert not loaded, f"importing kpca_bench.cli loads {loaded}"


def test_the_cli_mirrors_of_heavier_modules_agree():
    from kpca_bench.experiment.config import DEFAULT_CONFIG_DIR
    from kpca_bench.validation import PROFILES
    from kpca_bench.experiment.export import FORMATS

    assert options.PROFILE_NAMES == PROFILES
    assert options.DEFAULT_CONFIG_DIR == DEFAULT_CONFIG_DIR and options.EXPORT_FORMATS == FORMATS


def test_version():
    from kpca_bench import __version__

    result = invoke("--version")
    assert result.exit_code == 0 and result.output.strip() == f"kpca-bench {__version__}"


@pytest.mark.parametrize(
    "command",
    ["run", "plan", "report", "compare", "export", "methods", "protocols", "datasets"],
)
def test_every_command_has_help(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0 and "Usage" in result.output


@pytest.mark.parametrize("command", ["report", "analyse", "check", "bless", "datasets"])
def test_every_command_of_the_reproductions_has_help_and_none_is_the_librarys(command):
    from reproductions.framework.cli import app as reproductions_app

    result = CliRunner().invoke(reproductions_app, [command, "--help"])
    assert result.exit_code == 0 and "Usage" in result.output
    assert command in ("report", "datasets") or "No such command" in invoke(command, "--help").output


def test_jobs_help_states_joblibs_meaning_and_zero_is_an_error(tmp_path):
    assert "joblib" in invoke("run", "--help").output
    result = invoke("run", QUICKSTART, "--jobs", "0", "--out", tmp_path)
    assert result.exit_code == 2 and "--jobs: 0 runs nothing" in result.output
    assert not (tmp_path / "quickstart").exists()


def test_negative_jobs_follow_joblib_and_more_than_the_cores_are_one_per_core():
    from joblib import cpu_count, effective_n_jobs

    assert options.worker_count(-1) == effective_n_jobs(-1) and options.worker_count(1) == 1
    assert options.worker_count(cpu_count() + 1) == cpu_count()


def test_methods_and_protocols_list_the_registries():
    from kpca_bench.methods.registry import METHODS
    from kpca_bench.protocols import PROTOCOLS

    listing = invoke("methods")
    assert listing.exit_code == 0 and all(name in listing.output for name in METHODS)
    detail = invoke("methods", "kpca")
    assert detail.exit_code == 0 and "n_components" in detail.output and "eigen_solver" in detail.output
    assert invoke("methods", "nope").exit_code == 2
    protocols = invoke("protocols")
    assert protocols.exit_code == 0 and all(name in protocols.output for name in PROTOCOLS)
    wide = CliRunner().invoke(app, ["protocols"], env={"COLUMNS": "300"})
    assert "statistics='settings' (report only)" in wide.output and wide.output.count("(report only)") == 1


def test_plan_counts_li_balance_before_anything_runs(tmp_path):
    result = invoke("plan", ROOT / "reproductions" / "li" / "configs" / "li_balance.yaml", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "1,470 cells, 0 stored" in result.output and "unknown" in result.output
    assert not any(tmp_path.iterdir())


def test_plan_counts_stored_cells_and_estimates_the_time_left(tmp_path):
    assert invoke("run", QUICKSTART, "--out", tmp_path, "--trials", "2", "--quiet").exit_code == 0
    result = invoke("plan", QUICKSTART, "--out", tmp_path, "--trials", "4")
    assert result.exit_code == 0 and "16 cells, 8 stored" in result.output and "min with 1 worker" in result.output


# The quickstart in the quick subset; the sweep over every config (a third of this module's time) in `make test`.
@pytest.mark.parametrize(
    "config",
    [
        pytest.param(path, marks=() if path == QUICKSTART else pytest.mark.slow)
        for path in sorted(
            [*(ROOT / "configs").glob("**/*.yaml"), *(ROOT / "reproductions").glob("*/configs/**/*.yaml")]
        )
    ],
    ids=lambda path: path.relative_to(ROOT).as_posix(),
)
def test_plan_works_for_every_committed_config(config, tmp_path):
    """Single datasets, lists and collections alike: plan reads configs and stores, no data, no folder made."""
    result = invoke("plan", config, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "estimated time left" in result.output and not any(tmp_path.iterdir())


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    for name, components in (("a", 5), ("b", 10)):
        config = yaml.safe_load(QUICKSTART.read_text())
        config["methods"][0]["params"]["n_components"] = components
        config.update(name=name, trials=4)
        path = root / f"{name}.yaml"
        path.write_text(yaml.safe_dump(config))
        assert invoke("run", path, "--out", root, "--quiet").exit_code == 0
    return root / "a", root / "b"


@pytest.mark.slow  # two runs of the quickstart (the two_runs fixture)
def test_compare_pairs_the_trials_of_runs_with_the_same_splits(two_runs):
    from kpca_bench.report.compare_runs import compare_runs

    rows = {(r["method"], r["metric"]): r for r in compare_runs(*two_runs)}
    auroc = rows[("KPCA", "auroc")]
    assert auroc["n_paired"] == 4 and auroc["p_value"] is not None
    assert auroc["difference"] == pytest.approx(auroc["mean_b"] - auroc["mean_a"])
    result = invoke("compare", *two_runs)
    assert result.exit_code == 0 and "paired" in result.output and "auroc" in result.output
    assert invoke("compare", two_runs[0], two_runs[0].parent / "missing").exit_code == 2


@pytest.mark.slow  # two runs of the quickstart (the two_runs fixture)
@pytest.mark.parametrize("fmt", ["parquet", "json", "csv"])
def test_export(two_runs, fmt, tmp_path):
    output = tmp_path / f"out.{fmt}"
    result = invoke("export", two_runs[0], "--format", fmt, "--output", output)
    assert result.exit_code == 0, result.output
    if fmt == "json":
        records = json.loads(output.read_text())
        assert len(records) == 16 and isinstance(records[0]["versions"], dict)
        return
    frame = pd.read_parquet(output) if fmt == "parquet" else pd.read_csv(output)
    assert len(frame) == 16 and json.loads(frame["versions"][0])["kpca-bench"]


def test_run_ends_with_a_table_and_the_files_written(tmp_path):
    result = invoke("run", QUICKSTART, "--out", tmp_path, "--trials", "1")
    assert result.exit_code == 0
    assert "![" not in result.output and "KPCA" in result.output and "auroc" in result.output
    assert str(tmp_path / "quickstart" / "summary.csv") in result.output
    assert str(tmp_path / "quickstart" / "environment.json") in result.output


def test_a_piped_run_shows_every_summary_number_whole_then_its_headline(tmp_path):
    """CliRunner's stdout is no terminal, as in a pipe or a log: no number may be cut to fit 80 columns."""
    result = invoke("run", QUICKSTART, "--out", tmp_path, "--trials", "2")
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    summary = pd.read_csv(tmp_path / "quickstart" / "summary.csv")
    for _, row in summary.iterrows():
        for metric in ("f1", "auroc", "auprc", "fit_time"):
            assert f"{row[f'{metric}_mean']:.3f} ± {row[f'{metric}_std']:.3f}" in result.output, (row["method"], metric)
    best = summary.sort_values("auroc_mean", ascending=False, kind="stable").iloc[0]
    headline = next(
        line for line in result.output.splitlines() if line.startswith("highest mean AUROC (an order, not a test): ")
    )
    assert headline.startswith(f"highest mean AUROC (an order, not a test): {best['method']} {best['auroc_mean']:.3f}")
    assert result.output.index(headline) < result.output.index("written:")


def test_methods_show_their_defaults_uncut_off_a_terminal():
    result = invoke("methods")
    assert result.exit_code == 0 and "…" not in result.output
    assert "eigen_solver='auto'" in result.output and "rank_cutoff='numerical'" in result.output


@pytest.mark.slow  # two runs of the quickstart (the two_runs fixture)
def test_trials_csv_holds_versions_as_json(two_runs):
    trials = pd.read_csv(two_runs[0] / "trials.csv")
    assert json.loads(trials["versions"][0])["scikit-learn"]


@pytest.mark.slow  # two runs of the quickstart (the two_runs fixture)
def test_run_json_stores_the_environment_once(two_runs):
    stored = json.loads((two_runs[0] / "environment.json").read_text())["environments"]
    assert len(stored) == 1
    environment = stored[0]
    assert environment["cpu"]["count"] and environment["python"]["version"] and "numpy" in environment["packages"]
    assert isinstance(environment["blas"], list) and "version" in environment["kpca_bench"]


def test_a_cells_warnings_are_counted_and_summarised_once(tmp_path):
    """A linear kernel on 64 features has rank <= 64: 70 components warn of zero eigenvalues."""
    config = yaml.safe_load(QUICKSTART.read_text())
    config["methods"] = [{"name": "kpca", "label": "KPCA", "params": {"n_components": 70, "kernel": "linear"}}]
    config.update(name="warns", trials=2)
    path = tmp_path / "warns.yaml"
    path.write_text(yaml.safe_dump(config))
    result = invoke("run", path, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    records = ResultStore(tmp_path / "warns").records()
    assert all(r["warnings"]["UserWarning"] >= 1 for r in records)
    assert "zero eigenvalue" in records[0]["warning_messages"]["UserWarning"]
    summary = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(summary) == 1 and "in 2 of 2 cells" in summary[0]
