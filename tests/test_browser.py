"""The HTML report in a real browser: Debian's headless Chromium, driven through its chromium-driver.

The pages are written now, by the current code, into a temporary folder: a run's by ``kpca-bench report DIR
--html`` on a copy of the committed quickstart run's records, the suite's by rebuilding a copy of three of the
committed ``results/adbench_classical``'s datasets (git keeps no per-dataset figure) and ``REPORT.html`` from the
committed ``results/REPORT.md``; so a change to the renderer is what the browser checks. Each page loads with no console error, shows every figure, sorts a table when a header is clicked
and filters it when text is typed; a screenshot of each is saved in test-artifacts/ (kept by CI). Without
Chromium the browser tests skip, naming why, unless KPCA_BENCH_REQUIRE_BROWSER=1 (set in .ci/run) makes that a
failure.
"""

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.report.html import REPORT_FILE, markdown_page, write_markdown_html, write_run_html
from kpca_bench.report.rebuild import rebuild
from reproductions.framework.loader import config_folders
from kpca_bench.experiment.store import ResultStore

ROOT = Path(__file__).parents[1]
ARTIFACTS = ROOT / "test-artifacts"
# Debian's packages: chromium and chromium-driver. Selenium is given both paths, so it never looks for (or
# downloads) a browser or driver of its own.
BROWSER, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


def missing_browser() -> str | None:
    if BROWSER is None or DRIVER is None:
        return "no headless Chromium here: apt-get install chromium chromium-driver (Debian)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return 'no selenium: pip install -e ".[test]"'
    return None


@pytest.fixture(scope="module")
def browser():
    reason = missing_browser()
    if reason is not None:
        if os.environ.get("KPCA_BENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"KPCA_BENCH_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1600",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()


RESULTS = ROOT / "results"
# What `kpca-bench report RESULTS_DIR` writes: a copy without them holds only what a run stores (records, run.json, ...).
REPORT_OUTPUTS = shutil.ignore_patterns(REPORT_FILE, "*.png", "*.md", "*.csv")


def reported(folder: Path, exit_code: int) -> Path:
    """``kpca-bench report FOLDER --html``: the run's tables, figures and page rebuilt from its records."""
    result = CliRunner().invoke(
        app,
        [
            "report",
            str(folder),
            "--html",
            *(
                option
                for folder in config_folders(ROOT / "reproductions", ROOT / "configs")
                for option in ("--configs", folder)
            ),
        ],
    )
    assert result.exit_code == exit_code, result.output
    return folder / REPORT_FILE


@pytest.fixture(scope="module")
def quickstart_page(tmp_path_factory):
    """The page of the committed quickstart run's records, written now."""
    directory = tmp_path_factory.mktemp("browser") / "quickstart"
    shutil.copytree(RESULTS / "quickstart", directory, ignore=REPORT_OUTPUTS)
    return reported(directory, exit_code=0)


@pytest.fixture(scope="module")
def failed_page(tmp_path_factory):
    """The page of the committed quickstart run's records with one of its cells failed (exit code 1 says so)."""
    directory = tmp_path_factory.mktemp("browser") / "quickstart"
    shutil.copytree(RESULTS / "quickstart", directory, ignore=REPORT_OUTPUTS)
    record = ResultStore(directory).records()[0]
    with open(directory / "records.jsonl", "a") as records:  # a later record wins for its key
        records.write(json.dumps({**record, "status": "failed", "error_type": "ValueError", "error": "e"}) + "\n")
    return reported(directory, exit_code=1)


@pytest.fixture(scope="module")
def suite_page(tmp_path_factory):
    """The page of three of the committed ADBench suite's datasets, their tables and figures rebuilt from their
    records (the suite's other datasets are then listed as not run), written now."""
    directory = tmp_path_factory.mktemp("browser") / "adbench_classical"
    kept = ("adbench_glass", "adbench_wine", "adbench_pima")
    shutil.copytree(
        RESULTS / "adbench_classical",
        directory,
        ignore=lambda where, names: [
            name
            for name in names
            if name == REPORT_FILE
            or (Path(where).name == "adbench_classical" and name.startswith("adbench_") and name not in kept)
        ],
    )
    config = rebuild(directory, config_folders(ROOT / "reproductions", ROOT / "configs"), lambda line: None).config
    page = write_run_html(directory, config)
    assert "figure missing:" not in page.read_text()
    return page


@pytest.fixture(scope="module")
def results_root_page(tmp_path_factory):
    """The page of the committed results/REPORT.md, written now."""
    path = tmp_path_factory.mktemp("browser") / "REPORT.html"
    path.write_text(markdown_page(RESULTS / "REPORT.md"))
    return path


@pytest.fixture(scope="module")
def current_report_page(tmp_path_factory):
    """REPORT.html of the REPORT.md the current code writes from the committed records (into a temporary folder, so
    its figures are not there: this page checks the first screen, not the figures)."""
    from reproductions.framework.overview import write_overview

    folder = tmp_path_factory.mktemp("report")
    written = write_overview(RESULTS, ROOT / "configs", ROOT / "reproductions", out=folder)
    return write_markdown_html(written.path)


def open_page(driver, path: Path, artifact: str) -> list[dict]:
    """Load ``path``, save a screenshot as test-artifacts/``artifact``.png, and return the console's errors."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser")  # drop what an earlier page left
    driver.get(path.resolve().as_uri())
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.readyState") == "complete")
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        driver.save_screenshot(str(ARTIFACTS / f"{artifact}.png"))
    except TimeoutException:  # headless Chromium now and then loses the page under a screenshot; the page is loaded
        driver.save_screenshot(str(ARTIFACTS / f"{artifact}.png"))
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def fits_the_window(driver) -> bool:
    """No sideways scrolling of the page (a wide table scrolls in its own box)."""
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth;")


def figures_shown(driver) -> list[bool]:
    return driver.execute_script("return Array.from(document.images).map(i => i.complete && i.naturalWidth > 0);")


def column(driver, table, index: int) -> list[str]:
    return [
        row.find_elements("css selector", "td")[index].text
        for row in table.find_elements("css selector", "tbody tr")
        if row.is_displayed()
    ]


def numbers(cells: list[str]) -> list[float]:
    return [float(cell.split()[0]) for cell in cells]


def test_a_run_page_shows_its_figures_and_sorts_and_filters_its_table(browser, quickstart_page):
    assert open_page(browser, quickstart_page, "quickstart") == []
    assert figures_shown(browser) == [True, True]
    assert fits_the_window(browser)
    table = browser.find_element("css selector", "table.sortable")
    headers = table.find_elements("css selector", "thead th")
    auroc = [header.text for header in headers].index("AUROC")
    headers[auroc].click()
    ascending = numbers(column(browser, table, auroc))
    assert ascending == sorted(ascending) and len(set(ascending)) > 1
    headers[auroc].click()
    assert numbers(column(browser, table, auroc)) == sorted(ascending, reverse=True)
    assert headers[auroc].get_attribute("aria-sort") == "descending"
    box = table.find_element("xpath", "preceding-sibling::input[@class='table-filter']")
    box.send_keys("mahalanobis")
    assert column(browser, table, 0) == ["KPCA-Mahalanobis"]


@pytest.mark.parametrize("page", ["suite_page", "results_root_page"], ids=["suite", "results_root"])
def test_a_suite_page_and_the_results_page_load_without_errors_and_show_every_figure(browser, page, request):
    path = request.getfixturevalue(page)
    assert open_page(browser, path, page) == []
    shown = figures_shown(browser)
    assert shown and all(shown), f"{shown.count(False)} of {len(shown)} figures not shown"
    assert fits_the_window(browser)
    tables = browser.find_elements("css selector", "table.sortable")
    assert tables
    first = tables[0].find_element("css selector", "thead th")
    first.click()
    assert first.get_attribute("aria-sort") == "ascending"


def test_the_page_of_the_committed_report_is_a_few_megabytes(results_root_page):
    assert results_root_page.stat().st_size < 5 * 2**20


def test_failed_cells_are_shown_in_a_red_box_above_the_summary(browser, failed_page):
    assert open_page(browser, failed_page, "quickstart_failed") == []
    box = browser.find_element("id", "failed-cells")
    assert box.is_displayed() and "quickstart: 1 cell failed (KPCA 1)" in box.text
    assert box.value_of_css_property("border-left-color") == "rgba(192, 0, 0, 1)"
    assert box.location["y"] < browser.find_element("css selector", "table.sortable").location["y"]


def test_a_cell_without_a_number_stays_below_the_numbers_in_both_directions(browser, tmp_path):
    source = tmp_path / "table.md"
    source.write_text("# t\n\n| method | AUROC |\n|---|---|\n| A | 0.7 |\n| B | – |\n| C | 0.9 |\n| D | 0.8 |\n")
    open_page(browser, write_markdown_html(source), "missing_last")
    table = browser.find_element("css selector", "table.sortable")
    header = table.find_elements("css selector", "thead th")[1]
    header.click()
    assert column(browser, table, 1) == ["0.7", "0.8", "0.9", "–"]
    header.click()
    assert column(browser, table, 1) == ["0.9", "0.8", "0.7", "–"]


def overflow(driver, element) -> int:
    """How many pixels ``element``'s content reaches past its box or past the window's right edge (0: none)."""
    return driver.execute_script(
        "const e = arguments[0], box = e.closest('.table-block') || e;"
        "return Math.max(0, box.scrollWidth - box.clientWidth, Math.ceil(e.getBoundingClientRect().right)"
        " - document.documentElement.clientWidth);",
        element,
    )


@pytest.mark.slow
def test_the_reports_first_screen_is_a_sentence_and_a_table_that_fits_1280_px(browser, current_report_page):
    """REPORT.html opens with the headline sentence and the compact per-paper table, with no sideways
    overflow at 1280 px (the window's width here); the per-reading and deviation columns come below."""
    assert browser.get_window_size()["width"] == 1280
    open_page(browser, current_report_page, "report_first_screen")
    first = browser.find_element("css selector", "main > p")
    assert first.text.startswith("Under the headline configs, fixed before any result, ")
    table = browser.find_elements("css selector", "table.sortable")[0]
    headers = [header.text.rstrip(" \u2195") for header in table.find_elements("css selector", "thead th")]
    assert headers[:3] == ["paper", "counted", "within (headline)"] and "claims that hold" in headers
    assert overflow(browser, table) == 0
    assert table.location["y"] + table.size["height"] < 1600, "the first table runs past the first screen"
