"""``kpca-bench report RESULTS_DIR``: any run's tables rebuilt from its records; a suite's rank table printed."""

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from reproductions.framework.loader import config_folders

from kpca_bench.cli import app
from kpca_bench.report.rebuild import rebuild, trials_file

QUICKSTART = Path(__file__).parents[1] / "configs" / "quickstart.yaml"
DATA = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_a_single_run_gets_its_tables_back(tmp_path):
    assert invoke("run", QUICKSTART, "--out", tmp_path, "--trials", "1", "--quiet").exit_code == 0
    folder = tmp_path / "quickstart"
    before, trials = (folder / "summary.csv").read_text(), (folder / "trials.csv").read_text()
    for name in ("summary.csv", "summary.md", "trials.csv", "roc.png"):
        (folder / name).unlink()
    result = invoke("report", folder)
    assert result.exit_code == 0, result.output
    assert (folder / "summary.csv").read_text() == before and (folder / "roc.png").exists()
    assert "# quickstart: digits" in result.output
    # Without run.json (runs from before it), the config is found by name and hash; the command line's
    # --trials is not known then, so the summary counts the config's 10 trials as planned.
    (folder / "run.json").unlink()
    result = invoke("report", folder, "--configs", QUICKSTART.parent)
    assert result.exit_code == 0 and (folder / "trials.csv").read_text() == trials
    assert "1 / 10" in (folder / "summary.md").read_text()


@pytest.mark.slow
def test_a_suite_prints_its_rank_table(tmp_path):
    config = {
        "name": "pair",
        "protocol": "adbench",
        "trials": 1,
        "datasets": [
            {"name": "file", "options": {"path": str(DATA / "example.npz")}},
            {"name": "file", "options": {"path": str(DATA / "example.mat")}},
        ],
        "methods": [{"name": "knn", "label": "kNN"}, {"name": "pca", "label": "PCA"}, {"name": "lof", "label": "LOF"}],
    }
    path = tmp_path / "pair.yaml"
    path.write_text(yaml.safe_dump(config))
    assert invoke("run", path, "--out", tmp_path, "--quiet").exit_code == 0
    (tmp_path / "pair" / "ranks.csv").unlink()
    result = invoke("report", tmp_path / "pair")
    assert result.exit_code == 0, result.output
    assert "AUROC rank [95% CI]" in result.output and "kNN" in result.output
    assert set(pd.read_csv(tmp_path / "pair" / "ranks.csv")["method"]) == {"kNN", "PCA", "LOF"}


def test_a_folder_without_a_run_is_an_error(tmp_path):
    result = invoke("report", tmp_path)
    assert result.exit_code == 2 and "holds no run" in result.stderr


def test_a_run_whose_config_file_moved_since_is_tied_to_the_file_where_it_is_now(tmp_path):
    from kpca_bench.experiment.config_parser import load_config
    from kpca_bench.report.rebuild import where_it_is_now

    text = QUICKSTART.read_text()
    moved = tmp_path / "reproductions" / "toy" / "configs" / "quickstart.yaml"
    moved.parent.mkdir(parents=True)
    moved.write_text(text)
    ran = tmp_path / "configs" / "quickstart.yaml"  # where it ran from, gone since
    ran.parent.mkdir()
    ran.write_text(text)
    config = load_config(ran)
    ran.unlink()
    folders = [tmp_path / "configs", tmp_path / "reproductions"]
    assert where_it_is_now(config, folders).source == moved.as_posix()
    moved.write_text(text.replace("seed: 0", "seed: 1"))  # another config of the same name: left as it ran
    assert "seed: 0" in text
    assert where_it_is_now(config, folders).source == ran.as_posix()


def test_the_stored_config_reads_numbers_in_exponent_form(tmp_path):
    import json

    from kpca_bench.report.rebuild import config_of_run

    text = QUICKSTART.read_text().replace("gamma: mean_pairwise    #", "gamma: 1e-3    #")
    assert "gamma: 1e-3" in text
    run = {"source": str(tmp_path / "gone.yaml"), "profile": "full", "trials": 1, "seed": 0, "config": text}
    (tmp_path / "run.json").write_text(json.dumps(run))
    assert config_of_run(tmp_path).methods[0].params["gamma"] == 1e-3


ROOT = Path(__file__).parents[1]
FOLDERS = config_folders(ROOT / "reproductions", ROOT / "configs")


@pytest.mark.parametrize(
    "run",
    ["quickstart", "sas_ionosphere", "adbench_classical_capped/adbench_wine"],
    ids=["generic", "classification", "suite_member"],
)
def test_trials_file_writes_from_the_records_what_the_runs_report_writes(run, tmp_path):
    """trials.csv is not committed: trials_file writes it where the claims and analyses read it, as rebuild does."""
    suite = run.split("/")[0] if "/" in run else None
    derived = shutil.ignore_patterns("*.csv", "*.md", "*.png", "*.html")
    shutil.copytree(
        ROOT / "results" / (suite or run),
        tmp_path / (suite or run),  # a suite: this member only
        ignore=lambda where, names: [
            *derived(where, names),
            *(
                name
                for name in names
                if suite and Path(where).name == suite and name.startswith("adbench_") and name != Path(run).name
            ),
        ],
    )
    folder = tmp_path / run
    notes = []
    written = trials_file(folder, FOLDERS, notes.append)
    assert notes == [] and written == folder / "trials.csv"
    made = written.read_text()
    written.unlink()
    rebuild(tmp_path / (suite or run), FOLDERS, lambda line: None)
    assert made == written.read_text()


def test_trials_file_writes_again_when_the_records_are_newer_and_says_when_it_cannot(tmp_path):
    folder = tmp_path / "quickstart"
    shutil.copytree(ROOT / "results" / "quickstart", folder, ignore=shutil.ignore_patterns("*.csv", "*.md", "*.png"))
    (folder / "trials.csv").write_text("stale\n")
    os.utime(folder / "trials.csv", (0, 0))
    assert trials_file(folder, FOLDERS).read_text().startswith("experiment,")
    (folder / "trials.csv").unlink()
    (folder / "run.json").unlink()
    notes = []
    assert not trials_file(folder, [tmp_path], notes.append).exists()
    assert len(notes) == 1 and "trials.csv is missing and cannot be written from the records" in notes[0]


def test_a_paper_datasets_summary_states_how_its_data_were_read(tmp_path):
    """Every dataset's summary says how its data were read where its loader noted it (paper datasets too)."""
    folder = tmp_path / "sas_novelty"
    shutil.copytree(ROOT / "results" / "sas_novelty", folder, ignore=shutil.ignore_patterns("*.csv", "*.md", "*.png"))
    rebuild(folder, FOLDERS, lambda line: None)
    facts = [line for line in (folder / "summary.md").read_text().splitlines() if line.startswith("- data: ")]
    assert facts == [
        "- data: 16 rows with missing values dropped; uniform noise of +-0.05 feature standard deviations (seed 0)"
    ]
