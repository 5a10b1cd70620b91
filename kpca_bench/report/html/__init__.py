"""A run's report, or ``REPORT.md``, as one self-contained HTML page that opens offline.

The page renders the Markdown the report layer writes (a run's ``summary.md``, a suite's and each of its
datasets', the results root's ``REPORT.md``) with markdown-it-py, so it shows what those files show and
follows their changes. Its figures are the PNGs beside them, embedded as data URIs; its tables get a filter
box and sort when a header is clicked (``page.js``); the page is laid out by a Jinja template
(``page.html.j2``, ``page.css``). Failed cells, read from the records, are listed at the top.
"""

from __future__ import annotations

import base64
import io
import mimetypes
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
from kpca_bench.experiment.runner import is_finished
from kpca_bench.experiment.store import RECORDS_FILE, ResultStore, write_atomic

REPORT_FILE = "report.html"
SUMMARY_FILE = "summary.md"


@dataclass(frozen=True)
class Member:
    """One dataset of a suite on the page: its folder's name, its summary as HTML, its failed cells."""

    name: str
    body: str
    failed: int


def write_run_html(directory) -> Path:
    """Write ``report.html`` in a run's folder from its ``summary.md`` (a suite's: with each dataset's below)."""
    directory = Path(directory)
    path = directory / REPORT_FILE
    write_atomic(path, run_page(directory))
    return path


def write_markdown_html(markdown_path) -> Path:
    """Write the HTML page of a Markdown file beside it (``REPORT.md`` -> ``REPORT.html``)."""
    markdown_path = Path(markdown_path)
    if not markdown_path.is_file():
        raise KpcaBenchError(f"{markdown_path}: no such file; write it first (kpca-bench report)")
    path = markdown_path.with_suffix(".html")
    write_atomic(path, page(render_markdown(markdown_path), sources=markdown_path.name))
    return path


def run_page(directory: Path) -> str:
    """The HTML page of the run in ``directory``: its ``summary.md``, the failed cells of its records, and for
    a suite each dataset's folder (a sub-folder with a ``summary.md``) in a section of its own."""
    summary = directory / SUMMARY_FILE
    if not summary.is_file():
        raise KpcaBenchError(f"{directory}: no {SUMMARY_FILE}; rebuild the run's tables first "
                             f"(kpca-bench report {directory})")
    folders = sorted(sub for sub in directory.iterdir() if (sub / SUMMARY_FILE).is_file())
    members = [Member(sub.name, whole(render_markdown(sub / SUMMARY_FILE)), len(failed_cells(sub)))
               for sub in folders]
    failures = [(None, failure_line(directory.name, failed))] if (failed := failed_cells(directory)) else []
    failures += [(f"dataset-{folder.name}", failure_line(folder.name, failed)) for folder in folders
                 if (failed := failed_cells(folder))]
    return page(render_markdown(summary), sources=SUMMARY_FILE, failures=failures, members=members)


def whole(rendered: Rendered) -> str:
    return rendered.heading + rendered.body


def failed_cells(directory: Path) -> list[dict]:
    """The records of ``directory`` whose cell did not finish (none without records)."""
    if not (directory / RECORDS_FILE).is_file():
        return []
    return [record for record in ResultStore(directory).load().values() if not is_finished(record)]


def failure_line(name: str, failed: list[dict]) -> str:
    """``adbench_x: 3 cells failed (kNN 2, LOF 1)``."""
    counts: dict[str, int] = {}
    for record in failed:
        counts[str(record.get("method"))] = counts.get(str(record.get("method")), 0) + 1
    by_method = ", ".join(f"{method} {count}" for method, count in counts.items())
    return f"{name}: {len(failed)} cell{'s' if len(failed) > 1 else ''} failed ({by_method})"


def page(rendered: Rendered, *, sources: str, failures=(), members=()) -> str:
    """The page's HTML: the rendered Markdown in the template, with its style and script inlined; its sections
    listed at the top (and "Each dataset", with ``members``); the failed cells above all."""
    assets = resources.files(__package__)
    template = jinja2.Environment(autoescape=True).from_string(assets.joinpath("page.html.j2").read_text())
    contents = [*rendered.contents, *([("each-dataset", "Each dataset")] if members else [])]
    return template.render(title=rendered.title, heading=rendered.heading, body=rendered.body, contents=contents,
                           sources=sources, failures=failures, members=members,
                           style=assets.joinpath("page.css").read_text(), script=assets.joinpath("page.js").read_text(),
                           version=package_version())


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
    headings = [(token.tag, token.attrGet("id"), tokens[i + 1].content) for i, token in enumerate(tokens)
                if token.type == "heading_open"]
    # heading_open, inline, heading_close: the title, shown above what the page puts before the body.
    starts_with_heading = bool(tokens) and tokens[0].type == "heading_open"
    top = 3 if starts_with_heading else 0
    return Rendered(heading=renderer.renderer.render(tokens[:top], renderer.options, env),
                    body=renderer.renderer.render(tokens[top:], renderer.options, env),
                    title=headings[0][2] if headings else path.name,
                    contents=[(anchor, text) for tag, anchor, text in headings if tag == "h2"])


def markdown_renderer() -> MarkdownIt:
    """CommonMark with tables, GitHub's heading anchors (REPORT.md links to them), figures inlined and tables
    marked sortable with a filter box; raw HTML in the Markdown is shown as text."""
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table").use(anchors_plugin, min_level=1,
                                                                              max_level=4)
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
    return ('<div class="table-block"><input type="search" class="table-filter" placeholder="filter rows" '
            'aria-label="filter the rows of the table below">\n' + self.renderToken(tokens, idx, options, env))


def sortable_table_close(self, tokens, idx, options, env) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"
