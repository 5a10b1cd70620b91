"""The HTML report (kpca_bench.report.html) and its command-line flags: one page that needs no network, every
table sortable, the failures of the config's plan and INCOMPLETE marks shown, the records it no longer plans counted
apart, the committed pages in place; the run names its page."""

import json
import shutil
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import kpca_bench
from kpca_bench.cli import app
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.report.rebuild import rebuild
from reproductions.framework.loader import config_folders
from kpca_bench.report.html import REPORT_FILE, run_page, write_markdown_html, write_run_html
from kpca_bench.report.tables import summary_markdown
from kpca_bench.experiment.store import ResultStore

ROOT = Path(__file__).parents[1]
QUICKSTART_RUN = ROOT / "results" / "quickstart"
QUICKSTART = ROOT / "configs" / "quickstart.yaml"
MEGABYTE = 2**20


class Tags(HTMLParser):
    """Every start tag of a page, with its attributes, in order."""

    def __init__(self, page: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def of(self, name: str) -> list[dict]:
        return [attrs for tag, attrs in self.tags if tag == name]


def assert_self_contained(page: str) -> None:
    """Nothing the page loads or links to is outside it: no URL in a src or href, no stylesheet or script file,
    every figure a data URI, every table sortable with a filter box."""
    tags = Tags(page)
    for tag, attrs in tags.tags:
        for name in ("src", "href"):
            value = attrs.get(name) or ""
            assert not value.startswith(("http:", "https:", "//", "file:")), (tag, value[:80])
    assert not tags.of("link") and not [attrs for attrs in tags.of("script") if "src" in attrs]
    assert all(attrs["src"].startswith("data:image/png;base64,") for attrs in tags.of("img"))
    tables = tags.of("table")
    assert tables and all(attrs.get("class") == "sortable" for attrs in tables)
    assert len(tags.of("input")) == len(tables)
    assert "p > strong" in page  # the style sheet inlined as it is, not escaped as text


@pytest.fixture
def quickstart_run(tmp_path):
    """A copy of the committed quickstart run, its tables and figures rebuilt from its records (no report.html)."""
    directory = tmp_path / "quickstart"
    shutil.copytree(QUICKSTART_RUN, directory, ignore=shutil.ignore_patterns(REPORT_FILE))
    rebuild(directory, config_folders(ROOT / "reproductions", ROOT / "configs"))
    return directory


@pytest.fixture(scope="module")
def quickstart_config():
    """The config of the committed quickstart run."""
    return load_config(QUICKSTART)


def append_record(directory: Path, record: dict) -> None:
    with open(directory / "records.jsonl", "a") as records:
        records.write(json.dumps(record) + "\n")


def fail_cell(directory: Path, method: str, trial: int) -> None:
    """Store the cell of ``method``'s ``trial`` again, as failed (a later record wins for its key)."""
    records = ResultStore(directory).records()
    record = next(r for r in records if r["method"] == method and r["trial"] == trial)
    append_record(directory, {**record, "status": "failed", "error_type": "ValueError", "error": "no convergence"})


def add_unplanned_failure(directory: Path, method: str) -> None:
    """Append the record of a failed cell that no config plans (its key is no cell's)."""
    append_record(
        directory,
        {
            "key": "not-planned",
            "status": "failed",
            "method": method,
            "trial": 0,
            "error_type": "ValueError",
            "error": "no convergence",
        },
    )


def test_a_run_page_is_one_self_contained_file_with_its_figures_and_table(quickstart_run, quickstart_config):
    path = write_run_html(quickstart_run, quickstart_config)
    page = path.read_text()
    assert path == quickstart_run / REPORT_FILE
    assert_self_contained(page)
    assert path.stat().st_size < MEGABYTE
    assert len(Tags(page).of("img")) == 2  # f1_box.png and roc.png, as summary.md shows them
    assert "<title>quickstart: digits</title>" in page
    summary = pd.read_csv(quickstart_run / "summary.csv")
    for value in summary["auroc_mean"]:
        assert f"{value:.3f}" in page
    assert 'id="failed-cells"' not in page and 'id="not-planned"' not in page


def test_failed_cells_are_listed_above_the_tables(quickstart_run, quickstart_config):
    fail_cell(quickstart_run, "KPCA", trial=0)
    fail_cell(quickstart_run, "KPCA", trial=1)
    page = run_page(quickstart_run, quickstart_config)
    assert page.index('id="failed-cells"') < page.index("<table")
    assert "quickstart: 2 cells failed (KPCA 2)" in page
    assert 'id="not-planned"' not in page


def test_only_the_plans_failed_cells_are_in_the_box_and_other_records_get_a_line_of_their_own(
    quickstart_run, quickstart_config
):
    fail_cell(quickstart_run, "KPCA", trial=0)
    add_unplanned_failure(quickstart_run, "LOF")
    page = run_page(quickstart_run, quickstart_config)
    assert "quickstart: 1 cell failed (KPCA 1)" in page and "LOF 1" not in page
    line = (
        '<p class="hint" id="not-planned">1 stored record is not part of the config&#39;s plan (quickstart 1): '
        "an entry removed or a grid narrowed since they ran."
    )
    assert page.index('id="failed-cells"') < page.index(line) < page.index("<table")


def test_the_records_of_an_entry_removed_from_the_config_are_counted_not_failed(quickstart_run, quickstart_config):
    fail_cell(quickstart_run, "Isolation forest", trial=0)
    narrowed = replace(quickstart_config, methods=quickstart_config.methods[:-1])
    page = run_page(quickstart_run, narrowed)
    assert 'id="failed-cells"' not in page
    assert "10 stored records are not part of the config&#39;s plan (quickstart 10)" in page


def test_an_incomplete_run_says_so_in_bold_and_marks_its_methods(tmp_path, quickstart_config):
    summary = pd.DataFrame(
        {
            "method": ["A", "B"],
            "trials": [3, 5],
            "planned": [5, 5],
            "failed": [2, 0],
            "auroc_mean": [0.9, 0.8],
            "auroc_std": [0.01, 0.02],
        }
    )
    (tmp_path / "summary.md").write_text(summary_markdown(summary, title="t: d", facts=["a fact"], figures=[]))
    page = run_page(tmp_path, quickstart_config)
    assert "<strong>INCOMPLETE, not final: A 3 of 5 trials, 2 failed.</strong>" in page
    assert "<td>A <strong>(incomplete)</strong></td>" in page


def test_a_missing_figure_is_named_not_left_as_a_broken_image(tmp_path, quickstart_config):
    (tmp_path / "summary.md").write_text("# t\n\n![roc.png](roc.png)\n\n![web](https://example.org/a.png)\n")
    page = run_page(tmp_path, quickstart_config)
    assert "figure missing: roc.png" in page and "figure missing: https://example.org/a.png" in page
    assert not Tags(page).of("img")


def test_a_suite_page_has_each_dataset_and_opens_the_one_that_failed(tmp_path, quickstart_run, quickstart_config):
    config = replace(quickstart_config, datasets=(quickstart_config.dataset,) * 2)
    first, second = [label for label, _ in config.members()]
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "summary.md").write_text("# suite: 2 datasets\n\n| method | rank |\n|---|---|\n| A | 1.5 |\n")
    for name in (second, first, "dropped"):  # "dropped": a dataset the suite no longer names
        shutil.copytree(quickstart_run, suite / name)
    fail_cell(suite / second, "One-class SVM", trial=0)
    fail_cell(suite / "dropped", "KPCA", trial=0)
    page = run_page(suite, config)
    assert_self_contained(page)
    assert (
        page.index(f'<details id="dataset-{first}">')
        < page.index(f'<details id="dataset-{second}" open>')
        < page.index('<details id="dataset-dropped">')
    )
    assert f'<a href="#dataset-{second}">{second}: 1 cell failed (One-class SVM 1)</a>' in page
    assert f"{first}:" not in page and "dropped:" not in page
    assert "40 stored records are not part of the config&#39;s plan (dropped 40)" in page
    assert len(Tags(page).of("img")) == 6


def test_a_markdown_page_keeps_its_anchors_and_is_written_beside_it(tmp_path):
    (tmp_path / "REPORT.md").write_text(
        "# Results\n\n[Kim](#kim--klabjan)\n\n## Kim & Klabjan\n\n| paper | ours |\n|---|---|\n| 0.9 | 0.8 |\n"
    )
    path = write_markdown_html(tmp_path / "REPORT.md")
    page = path.read_text()
    assert path == tmp_path / "REPORT.html"
    assert 'id="kim--klabjan"' in page and 'href="#kim--klabjan"' in page
    assert_self_contained(page)


def test_report_html_writes_a_runs_page(quickstart_run):
    result = CliRunner().invoke(app, ["report", str(quickstart_run), "--html"])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith(f"wrote {quickstart_run / REPORT_FILE}")
    assert_self_contained((quickstart_run / REPORT_FILE).read_text())


def test_report_without_html_writes_no_page(quickstart_run):
    assert CliRunner().invoke(app, ["report", str(quickstart_run)]).exit_code == 0
    assert not (quickstart_run / REPORT_FILE).exists()


def test_report_html_of_a_folder_without_a_run_fails_in_one_line(tmp_path):
    result = CliRunner().invoke(app, ["report", str(tmp_path), "--html"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1


def test_a_run_ends_by_naming_its_html_report(tmp_path):
    result = CliRunner().invoke(app, ["run", str(QUICKSTART), "--out", str(tmp_path), "--trials", "1"])
    assert result.exit_code == 0, result.output
    page = tmp_path / "quickstart" / REPORT_FILE
    lines = result.stdout.rstrip().splitlines()
    assert lines[-1] == f"HTML report (opens offline): {page}"
    assert lines.index(next(line for line in lines if line.startswith("highest mean AUROC"))) < len(lines) - 1
    assert_self_contained(page.read_text())


def test_no_html_writes_no_page_from_the_command_line_or_the_api(tmp_path):
    result = CliRunner().invoke(
        app, ["run", str(QUICKSTART), "--out", str(tmp_path / "cli"), "--trials", "1", "--no-html"]
    )
    assert result.exit_code == 0, result.output
    assert "HTML report" not in result.stdout
    assert not (tmp_path / "cli" / "quickstart" / REPORT_FILE).exists()
    results = kpca_bench.run(QUICKSTART, out=tmp_path / "api", trials=1, html=False)
    assert (results.folder / "summary.md").is_file() and not (results.folder / REPORT_FILE).exists()


def test_a_run_page_says_why_f1_is_low_beside_a_high_auroc_and_lists_the_parameters(quickstart_run):
    """The quickstart's KPCA-Mahalanobis: F1 0.031 at the 0.95 quantile of its training scores, AUROC 0.836."""
    result = CliRunner().invoke(app, ["report", str(quickstart_run), "--html"])
    assert result.exit_code == 0, result.output
    page = (quickstart_run / REPORT_FILE).read_text()
    assert "F1 (cut: 0.95 quantile of training scores)" in page
    assert "KPCA-Mahalanobis: F1 0.031 at the config's cut, 0.776 at the test-prior cut" in page
    assert "KPCA: F1" not in page  # its F1 0.902 is what its ranking allows
    assert "method kpca {'n_components': 10, 'kernel': 'rbf', 'gamma': 'mean_pairwise'}: KPCA" in page
