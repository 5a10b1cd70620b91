"""The HTML report (kpca_bench.report.html) and its command-line flags: one page that needs no network, every
table sortable, failures and INCOMPLETE marks shown, the committed pages in place; the run names its page."""

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import kpca_bench
from kpca_bench.cli import app
from kpca_bench.report.html import REPORT_FILE, run_page, write_markdown_html, write_run_html
from kpca_bench.report.tables import summary_markdown

ROOT = Path(__file__).parents[1]
QUICKSTART_RUN = ROOT / "results" / "quickstart"
QUICKSTART = ROOT / "configs" / "quickstart.yaml"
COMMITTED_PAGES = [ROOT / "results" / "adbench_classical" / REPORT_FILE, ROOT / "results" / "REPORT.html"]
MEGABYTE = 2 ** 20


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
    """A copy of the committed quickstart run (records, summary.md and figures; no report.html)."""
    directory = tmp_path / "quickstart"
    shutil.copytree(QUICKSTART_RUN, directory, ignore=shutil.ignore_patterns(REPORT_FILE))
    return directory


def add_failed_cell(directory: Path, method: str) -> None:
    """Append the record of a failed cell of ``method`` to the folder's store, under a key of its own."""
    key = f"failed-{len((directory / 'records.jsonl').read_text().splitlines())}"
    record = {"key": key, "status": "failed", "method": method, "error_type": "ValueError",
              "error": "no convergence"}
    with open(directory / "records.jsonl", "a") as records:
        records.write(json.dumps(record) + "\n")


def test_a_run_page_is_one_self_contained_file_with_its_figures_and_table(quickstart_run):
    path = write_run_html(quickstart_run)
    page = path.read_text()
    assert path == quickstart_run / REPORT_FILE
    assert_self_contained(page)
    assert path.stat().st_size < MEGABYTE
    assert len(Tags(page).of("img")) == 2  # f1_box.png and roc.png, as summary.md shows them
    assert "<title>quickstart: digits</title>" in page
    summary = pd.read_csv(quickstart_run / "summary.csv")
    for value in summary["auroc_mean"]:
        assert f"{value:.3f}" in page
    assert 'id="failed-cells"' not in page


def test_failed_cells_are_listed_above_the_tables(quickstart_run):
    add_failed_cell(quickstart_run, "KPCA")
    add_failed_cell(quickstart_run, "KPCA")
    page = run_page(quickstart_run)
    assert page.index('id="failed-cells"') < page.index("<table")
    assert "quickstart: 2 cells failed (KPCA 2)" in page


def test_an_incomplete_run_says_so_in_bold_and_marks_its_methods(tmp_path):
    summary = pd.DataFrame({"method": ["A", "B"], "trials": [3, 5], "planned": [5, 5], "failed": [2, 0],
                            "auroc_mean": [0.9, 0.8], "auroc_std": [0.01, 0.02]})
    (tmp_path / "summary.md").write_text(summary_markdown(summary, title="t: d", facts=["a fact"], figures=[]))
    page = run_page(tmp_path)
    assert "<strong>INCOMPLETE, not final: A 3 of 5 trials, 2 failed.</strong>" in page
    assert "<td>A <strong>(incomplete)</strong></td>" in page


def test_a_missing_figure_is_named_not_left_as_a_broken_image(tmp_path):
    (tmp_path / "summary.md").write_text("# t\n\n![roc.png](roc.png)\n\n![web](https://example.org/a.png)\n")
    page = run_page(tmp_path)
    assert "figure missing: roc.png" in page and "figure missing: https://example.org/a.png" in page
    assert not Tags(page).of("img")


def test_a_suite_page_has_each_dataset_and_opens_the_one_that_failed(tmp_path, quickstart_run):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "summary.md").write_text("# suite: 2 datasets\n\n| method | rank |\n|---|---|\n| A | 1.5 |\n")
    for name in ("set_b", "set_a"):
        shutil.copytree(quickstart_run, suite / name)
    add_failed_cell(suite / "set_b", "LOF")
    page = run_page(suite)
    assert_self_contained(page)
    assert page.index('<details id="dataset-set_a">') < page.index('<details id="dataset-set_b" open>')
    assert '<a href="#dataset-set_b">set_b: 1 cell failed (LOF 1)</a>' in page and "set_a:" not in page
    assert len(Tags(page).of("img")) == 4


def test_a_markdown_page_keeps_its_anchors_and_is_written_beside_it(tmp_path):
    (tmp_path / "REPORT.md").write_text("# Results\n\n[Kim](#kim--klabjan)\n\n## Kim & Klabjan\n\n"
                                        "| paper | ours |\n|---|---|\n| 0.9 | 0.8 |\n")
    path = write_markdown_html(tmp_path / "REPORT.md")
    page = path.read_text()
    assert path == tmp_path / "REPORT.html"
    assert 'id="kim--klabjan"' in page and 'href="#kim--klabjan"' in page
    assert_self_contained(page)


@pytest.mark.parametrize("path", COMMITTED_PAGES, ids=lambda path: path.name)
def test_the_committed_pages_are_self_contained_and_a_few_megabytes(path):
    page = path.read_text()
    assert_self_contained(page)
    assert path.stat().st_size < 5 * MEGABYTE


def test_report_html_writes_a_runs_page(quickstart_run):
    result = CliRunner().invoke(app, ["report", str(quickstart_run), "--html"])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith(f"wrote {quickstart_run / REPORT_FILE}")
    assert_self_contained((quickstart_run / REPORT_FILE).read_text())


def test_report_without_html_writes_no_page(quickstart_run):
    assert CliRunner().invoke(app, ["report", str(quickstart_run)]).exit_code == 0
    assert not (quickstart_run / REPORT_FILE).exists()


def test_report_html_of_a_results_root_renders_its_report_md(tmp_path):
    (tmp_path / "REPORT.md").write_text("# Results\n\n| paper | ours |\n|---|---|\n| 0.9 | 0.8 |\n")
    result = CliRunner().invoke(app, ["report", str(tmp_path), "--html"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "REPORT.html").is_file()


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
    assert lines.index(next(line for line in lines if line.startswith("best by mean AUROC"))) < len(lines) - 1
    assert_self_contained(page.read_text())


def test_no_html_writes_no_page_from_the_command_line_or_the_api(tmp_path):
    result = CliRunner().invoke(app, ["run", str(QUICKSTART), "--out", str(tmp_path / "cli"), "--trials", "1",
                                      "--no-html"])
    assert result.exit_code == 0, result.output
    assert "HTML report" not in result.stdout
    assert not (tmp_path / "cli" / "quickstart" / REPORT_FILE).exists()
    results = kpca_bench.run(QUICKSTART, out=tmp_path / "api", trials=1, html=False)
    assert (results.folder / "summary.md").is_file() and not (results.folder / REPORT_FILE).exists()
