"""The documentation: README.md as the door, docs/ as the guide, every internal link resolving.

Links are checked as a code host shows the files (relative to the page, into the repository)
and anchors as both a code host and the mkdocs site name headings; the site build itself runs
with ``--strict``.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
MAX_README_LINES = 250

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"(`+).*?\1")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(CODE_SPAN.sub("", line))
    return lines


def github_slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def mkdocs_slug(heading: str) -> str:
    """A heading's anchor as Python-Markdown's ``toc`` extension (mkdocs' default) makes it."""
    ascii_text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower())


def anchors(page: Path) -> set[str]:
    """The anchors both a code host and the site give the page's headings."""
    headings, fenced = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            headings.append(line.lstrip("#").strip().replace("`", ""))
    return {github_slug(h) for h in headings} & {mkdocs_slug(h) for h in headings}


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Each relative link or image of ``page`` whose file is not in ``root``, or whose anchor names no heading."""
    problems = []
    for line in prose_lines(page.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if EXTERNAL.match(target):
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists() or not resolved.is_relative_to(root):
                problems.append(f"{target}: no such file in the repository")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                problems.append(f"{target}: no heading with anchor #{anchor} in {resolved.name}")
    return problems


def git_ignored(paths: list[Path]) -> list[Path]:
    """Those of ``paths`` that git ignores (a link there resolves here and nowhere else)."""
    found = subprocess.run(
        ["git", "check-ignore", "--stdin"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        input="\n".join(str(p) for p in paths),
    )
    return [Path(line) for line in found.stdout.splitlines()]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    assert not broken_links(page), f"{page.relative_to(ROOT)}: {broken_links(page)}"


def test_no_link_points_into_an_ignored_file():
    targets = sorted(
        {
            (page.parent / target.partition("#")[0]).resolve()
            for page in PAGES
            for line in prose_lines(page.read_text(encoding="utf-8"))
            for target in LINK.findall(line)
            if not EXTERNAL.match(target) and target.partition("#")[0]
        }
    )
    assert not git_ignored(targets)


def test_broken_links_finds_a_missing_file_and_a_missing_anchor(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## Where it stands\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#where-it-stands) [file](missing.md) [anchor](other.md#nowhere)\n"
        "![image](missing.png) [site](https://example.org/x.md) [self](#title)\n"
        "`[code](missing.md)`\n\n```\n[fenced](missing.md)\n```\n\n# Title\n"
    )
    assert broken_links(page, root=tmp_path) == [
        "missing.md: no such file in the repository",
        "other.md#nowhere: no heading with anchor #nowhere in other.md",
        "missing.png: no such file in the repository",
    ]


@pytest.mark.parametrize(
    "heading, anchor",
    [
        ("Where kernel PCA stands on ADBench", "where-kernel-pca-stands-on-adbench"),
        ("Whole runs and the papers' targets", "whole-runs-and-the-papers-targets"),
        ('Eigensolvers and eigen_solver="auto"', "eigensolvers-and-eigen_solverauto"),
        ("SKPCA (elastic net) in ADBench: tried, not merged", "skpca-elastic-net-in-adbench-tried-not-merged"),
    ],
)
def test_both_slugs_give_the_anchor_a_code_host_gives(heading, anchor):
    assert github_slug(heading) == mkdocs_slug(heading) == anchor


def test_the_slugs_differ_where_a_heading_has_a_spaced_slash():
    # Such an anchor works on one side only, so anchors() offers it to neither.
    assert (github_slug("PyOD / ADBench"), mkdocs_slug("PyOD / ADBench")) == ("pyod--adbench", "pyod-adbench")


def test_the_readme_is_a_door_that_starts_with_the_setup_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move sections to docs/"
    assert lines[0] == "```sh" and lines[3] == "```"
    assert lines[1].startswith("make demo ") and lines[2].startswith("make test ")


def nav_pages(entries) -> set[str]:
    """The page files of an mkdocs ``nav``, at any depth."""
    pages = set()
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages |= nav_pages(value) if isinstance(value, list) else {value}
    return pages


def test_every_docs_page_is_in_the_site_navigation():
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    assert nav_pages(nav) == {page.name for page in PAGES if page != README}


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None,
    reason='mkdocs or mkdocstrings is not installed (pip install -e ".[docs]")',
)
def test_the_site_builds_strictly(tmp_path):
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "design" / "index.html").exists()
    # The API reference is the docstrings': load's first line and an estimator's numpydoc sections.
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "The tables of a finished run, read from its results folder" in api and "KernelSubspaceDetector" in api


@pytest.mark.skipif(importlib.util.find_spec("markdown") is None, reason="Python-Markdown is not installed")
def test_mkdocs_slug_is_python_markdowns():
    from markdown.extensions.toc import slugify

    headings = [h for page in PAGES for h in re.findall(r"^#{1,6} (.+)$", page.read_text(encoding="utf-8"), re.M)]
    assert [mkdocs_slug(h.replace("`", "")) for h in headings] == [slugify(h.replace("`", ""), "-") for h in headings]


def readme_configs() -> dict[str, dict]:
    """The README's YAML examples by their ``name:``."""
    blocks = re.findall(r"^```yaml\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)
    return {raw["name"]: raw for raw in map(yaml.safe_load, blocks)}


def test_the_readmes_configs_load():
    from kpca_bench.experiment.config_parser import parse_config

    configs = readme_configs()
    assert set(configs) == {"quickstart", "pumps"}
    for name, raw in configs.items():
        assert parse_config(raw, source=f"README.md ({name})").name == name


def test_the_tour_shows_the_quickstart_as_it_is():
    shown = readme_configs()["quickstart"]
    actual = yaml.safe_load((ROOT / "configs" / "quickstart.yaml").read_text(encoding="utf-8"))
    assert {key: actual[key] for key in shown if key != "methods"} == {k: v for k, v in shown.items() if k != "methods"}
    assert all(method in actual["methods"] for method in shown["methods"])
