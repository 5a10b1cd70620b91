"""A run's report, or ``REPORT.md``, as one self-contained HTML page that opens offline.

The page renders the Markdown the report layer writes (a run's ``summary.md``, a suite's and each of its
datasets', the results root's ``REPORT.md``) with markdown-it-py, so it shows what those files show and
follows their changes. Its figures are the PNGs beside them, embedded as data URIs; its tables get a filter
box and sort when a header is clicked (``page.js``); the page is laid out by a Jinja template
(``page.html.j2``, ``page.css``). The failed cells of the config's plan, read from the records, are listed at
the top; a line below them counts the stored records of cells the config no longer plans.
"""

from __future__ import annotations

import base64
import io
import mimetypes
from collections import Counter
from dataclasses import dataclass
from html import escape
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from urllib.parse import unquote, urlsplit

import jinja2
from markdown_it import MarkdownIt
from PIL import Image
from mdit_py_plugins.anchors import anchors_plugin

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.runner import planned_records
from kpca_bench.experiment.planning import is_finished, plan_cells
from kpca_bench.experiment.store import ResultStore, write_atomic

REPORT_FILE = "report.html"
SUMMARY_FILE = "summary.md"


@dataclass(frozen=True)
class Member:
    """One dataset of a suite on the page: its folder's name, its summary as HTML, its failed cells."""

    name: str
    body: str
    failed: int


def write_run_html(directory, config: Config) -> Path:
    """Write ``report.html`` in the folder of the run of ``config`` from its ``summary.md`` (a suite's: with each
    dataset's below)."""
    directory = Path(directory)
    path = directory / REPORT_FILE
    write_atomic(path, run_page(directory, config))
    return path


def write_markdown_html(markdown_path) -> Path:
    """Write the HTML page of a Markdown file beside it (``REPORT.md`` -> ``REPORT.html``)."""
    markdown_path = Path(markdown_path)
    if not markdown_path.is_file():
        raise KpcaBenchError(f"{markdown_path}: no such file; write it first")
    path = markdown_path.with_suffix(".html")
    write_atomic(path, markdown_page(markdown_path))
    return path


def markdown_page(markdown_path: Path) -> str:
    """The HTML page of a Markdown file (its figures: the files its links name, from its folder)."""
    return page(render_markdown(markdown_path), sources=markdown_path.name)


def run_page(directory: Path, config: Config) -> str:
    """The HTML page of the run of ``config`` in ``directory``: its ``summary.md``, the failed cells of the
    config's plan (:func:`stored_cells`), and for a suite each dataset's folder (a sub-folder with a
    ``summary.md``) in a section of its own."""
    summary = directory / SUMMARY_FILE
    if not summary.is_file():
        raise KpcaBenchError(
            f"{directory}: no {SUMMARY_FILE}; rebuild the run's tables first (kpca-bench report {directory})"
        )
    folders = sorted(sub for sub in directory.iterdir() if (sub / SUMMARY_FILE).is_file())
    plans = dict(config.members()) if config.is_suite else {}
    top = stored_cells(directory, None if config.is_suite else config)
    below = {folder.name: stored_cells(folder, plans.get(folder.name)) for folder in folders}
    members = [
        Member(folder.name, whole(render_markdown(folder / SUMMARY_FILE)), len(below[folder.name].failed))
        for folder in folders
    ]
    failures: list[tuple[str | None, str]] = [(None, failure_line(directory.name, top.failed))] if top.failed else []
    failures += [(f"dataset-{name}", failure_line(name, cells.failed)) for name, cells in below.items() if cells.failed]
    not_planned = {
        name: cells.not_planned for name, cells in {directory.name: top, **below}.items() if cells.not_planned
    }
    return page(
        render_markdown(summary),
        sources=SUMMARY_FILE,
        failures=failures,
        members=members,
        not_planned=not_planned_line(not_planned),
    )


def whole(rendered: Rendered) -> str:
    return rendered.heading + rendered.body


@dataclass(frozen=True)
class StoredCells:
    """What a folder's store holds: the records of the planned cells that did not finish (``failed``), and how
    many of its records are of cells the config does not plan (``not_planned``: an entry removed, a grid
    narrowed since they ran)."""

    failed: list[dict]
    not_planned: int


def stored_cells(directory: Path, config: Config | None) -> StoredCells:
    """The failed cells of ``config``'s plan in ``directory``'s store, as ``summary.md`` counts them
    (:func:`~kpca_bench.experiment.runner.planned_records`), and the number of records it does not plan
    (``config`` None: a folder no config plans, every record of it). The store is read and the cells planned
    once."""
    store = ResultStore(directory)
    if not store.exists():
        return StoredCells([], 0)
    stored = store.load()
    if config is None:
        return StoredCells([], len(stored))
    cells = plan_cells(config)
    failed = [record for record in planned_records(config, stored, cells) if not is_finished(record)]
    return StoredCells(failed, len(stored.keys() - {cell.key for cell in cells}))


def failure_line(name: str, failed: list[dict]) -> str:
    """``adbench_x: 3 cells failed (kNN 2, LOF 1)``."""
    counts = Counter(str(record.get("method")) for record in failed)
    by_method = ", ".join(f"{method} {count}" for method, count in counts.items())
    return f"{name}: {len(failed)} cell{'s' if len(failed) > 1 else ''} failed ({by_method})"


def not_planned_line(counts: dict[str, int]) -> str:
    """``1 stored record is not part of the config's plan (quickstart 1): ...``; empty where there is none."""
    total = sum(counts.values())
    if not total:
        return ""
    where = ", ".join(f"{name} {count}" for name, count in counts.items())
    return (
        f"{total} stored record{'s are' if total > 1 else ' is'} not part of the config's plan ({where}): "
        "an entry removed or a grid narrowed since they ran. They stay in the run's records and are not counted "
        "here."
    )


def page(rendered: Rendered, *, sources: str, failures=(), members=(), not_planned: str = "") -> str:
    """The page's HTML: the rendered Markdown in the template, with its style and script inlined; its sections
    listed at the top (and "Each dataset", with ``members``); the failed cells above all, and below them the
    line saying how many stored records the config does not plan (``not_planned``)."""
    assets = resources.files(__package__)
    template = jinja2.Environment(autoescape=True).from_string(assets.joinpath("page.html.j2").read_text())
    contents = [*rendered.contents, *([("each-dataset", "Each dataset")] if members else [])]
    return template.render(
        title=rendered.title,
        heading=rendered.heading,
        body=rendered.body,
        contents=contents,
        sources=sources,
        failures=failures,
        members=members,
        not_planned=not_planned,
        style=assets.joinpath("page.css").read_text(),
        script=assets.joinpath("page.js").read_text(),
        version=package_version(),
    )


def package_version() -> str:
    try:
        return version("kpca-bench")
    except PackageNotFoundError:
        return "(not installed)"


@dataclass(frozen=True)
class Rendered:
    """A Markdown file as HTML: its first heading as ``title`` (and as ``heading``, the HTML, where the file
    starts with it), the rest as ``body``, and its sections (``##``) as ``contents``, pairs of anchor and heading."""

    heading: str
    body: str
    title: str
    contents: list[tuple[str, str]]


def render_markdown(path: Path) -> Rendered:
    """The Markdown file at ``path`` as HTML (its title is the file's name where it has no heading)."""
    renderer = markdown_renderer()
    env = {"folder": path.parent}
    tokens = renderer.parse(path.read_text(encoding="utf-8"), env)
    headings = [
        (token.tag, token.attrGet("id"), tokens[i + 1].content)
        for i, token in enumerate(tokens)
        if token.type == "heading_open"
    ]
    # heading_open, inline, heading_close: the title, shown above what the page puts before the body.
    starts_with_heading = bool(tokens) and tokens[0].type == "heading_open"
    top = 3 if starts_with_heading else 0
    return Rendered(
        heading=renderer.renderer.render(tokens[:top], renderer.options, env),
        body=renderer.renderer.render(tokens[top:], renderer.options, env),
        title=headings[0][2] if headings else path.name,
        # anchors_plugin gives every heading h1-h4 its id, a str.
        contents=[(str(anchor), text) for tag, anchor, text in headings if tag == "h2"],
    )


def markdown_renderer() -> MarkdownIt:
    """CommonMark with tables, GitHub's heading anchors (REPORT.md links to them), figures inlined and tables
    marked sortable with a filter box; raw HTML in the Markdown is shown as text."""
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table").use(anchors_plugin, min_level=1, max_level=4)
    renderer.add_render_rule("image", inline_image)
    renderer.add_render_rule("table_open", sortable_table_open)
    renderer.add_render_rule("table_close", sortable_table_close)
    return renderer


def inline_image(self, tokens, idx, options, env) -> str:
    """A figure as a data URI from the file beside the Markdown; a line saying it is missing where there is none."""
    token = tokens[idx]
    source = token.attrGet("src") or ""
    path = local_file(env["folder"], source)
    if path is None:
        return f'<span class="missing-figure">figure missing: {escape(source)}</span>'
    token.attrSet("src", data_uri(path))
    return self.image(tokens, idx, options, env)


def local_file(folder: Path, source: str) -> Path | None:
    """The file a relative link names from ``folder``; None for a URL or a file that is not there."""
    parts = urlsplit(source)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = folder / unquote(parts.path)
    return path if path.is_file() else None


def data_uri(path: Path) -> str:
    """The file as a data URI; a PNG re-encoded with a palette of 256 colours where that makes it smaller."""
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    content = path.read_bytes()
    if kind == "image/png":
        content = min(content, palette_png(content), key=len)
    return f"data:{kind};base64,{base64.b64encode(content).decode('ascii')}"


def palette_png(content: bytes) -> bytes:
    """A PNG with at most 256 colours, on white where it was transparent: much smaller than matplotlib's
    anti-aliased figures, which keeps a suite's page with every dataset's figures at a few MB."""
    with Image.open(io.BytesIO(content)) as image:
        opaque = Image.alpha_composite(Image.new("RGBA", image.size, "white"), image.convert("RGBA"))
        out = io.BytesIO()
        palette = opaque.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
        # Not optimize=True: a little smaller, several times slower, and every run ends here (docs/html-report.md).
        palette.save(out, format="PNG")
    return out.getvalue()


def sortable_table_open(self, tokens, idx, options, env) -> str:
    tokens[idx].attrSet("class", "sortable")
    return (
        '<div class="table-block"><input type="search" class="table-filter" placeholder="filter rows" '
        'aria-label="filter the rows of the table below">\n' + self.renderToken(tokens, idx, options, env)
    )


def sortable_table_close(self, tokens, idx, options, env) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"
