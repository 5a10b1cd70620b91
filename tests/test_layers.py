"""The layering contract of docs/design.md: imports point downward only, and the library imports nothing of the
reproductions (their framework included) and never names the papers' numbers.

Every ``import`` in the package counts, including those inside functions, so a
cycle cannot be dodged by importing late.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "kpca_bench"

# Bottom to top; a module may import its own layer and the layers below it.
LAYERS = [
    ("errors", "validation", "param_validation", "devices"),
    ("kernels", "metrics", "eigensolvers"),
    ("methods", "datasets"),
    ("protocols",),
    ("experiment",),
    ("report",),
    ("api",),
    ("cli", "__main__"),
]
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit(module: str) -> str:
    """The layer unit of a module: the sub-package or top-level module under kpca_bench."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names), at any depth of its code."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def imported_library_modules(path: Path) -> set[str]:
    """Every kpca_bench module ``path`` imports, at any depth of its code."""
    return {name for name in imported_modules(path) if name.startswith("kpca_bench.")}


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_unit_has_a_layer():
    units = {unit(module_name(path)) for path in SOURCES} - {"__init__"}
    assert units <= set(RANK), f"add {sorted(units - set(RANK))} to LAYERS"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_imports_point_downward(path):
    source = unit(module_name(path))
    if source == "__init__":
        return
    upward = sorted(
        name for name in imported_library_modules(path) if unit(name) in RANK and RANK[unit(name)] > RANK[source]
    )
    assert not upward, f"{path.relative_to(PACKAGE)} ({source}) imports a higher layer: {upward}"


def test_no_import_cycle_between_units():
    graph: dict[str, set[str]] = {}
    for path in SOURCES:
        source = unit(module_name(path))
        graph.setdefault(source, set()).update(
            unit(name) for name in imported_library_modules(path) if unit(name) != source
        )

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})) for nxt in graph.get(start, ())
        )

    cycles = sorted(u for u in graph if reaches(u, u, {u}))
    assert not cycles, f"units in an import cycle: {cycles}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_the_library_imports_no_reproduction(path):
    reproductions = sorted(name for name in imported_modules(path) if name.split(".")[0] == "reproductions")
    assert not reproductions, f"{path.relative_to(PACKAGE)} imports {reproductions}: load reproductions by path"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_library_module_knows_the_papers_numbers(path):
    """The papers' numbers (reproductions/<paper>/reference/numbers.yaml) are the reproduction framework's alone:
    no table of a run sets them beside its own."""
    assert "numbers.yaml" not in path.read_text(), f"{path.relative_to(PACKAGE)} names the papers' numbers file"


FRAMEWORK = PACKAGE.parent / "reproductions" / "framework"


@pytest.mark.parametrize("path", sorted(FRAMEWORK.glob("*.py")), ids=lambda p: p.name)
def test_the_reproduction_framework_imports_the_library_and_no_papers_folder(path):
    papers = sorted(
        name
        for name in imported_modules(path)
        if name.startswith("reproductions.") and not name.startswith("reproductions.framework")
    )
    assert not papers, f"{path.name} imports {papers}: the framework loads the papers' folders by path"


def test_the_reproductions_have_their_own_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "reproductions", "--help"],
        cwd=PACKAGE.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    assert all(command in result.stdout for command in ("report", "analyse", "check", "bless", "datasets"))


@pytest.mark.parametrize("module", ["kpca_bench.experiment.config", "kpca_bench.methods.registry"])
def test_the_core_loads_no_reproduction_and_no_report(module):
    code = (
        f"import sys, {module}; print(' '.join(m for m in sys.modules "
        "if m.startswith(('reproductions', 'kpca_bench.report', 'kpca_bench.cli'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert not loaded, f"importing {module} loads {loaded}"


NUMERIC_STACK = ("numpy", "scipy", "sklearn", "pandas", "matplotlib", "joblib")
# (a config file's bytes, the options after it): problems the command line reports before it imports the numeric stack.
EARLY_ERRORS = {
    "YAML syntax": (b"name: x\ndataset: {name: [\n", []),
    "a tab": (b"name: x\n\tseed: 1\n", []),
    "duplicate key": (b"name: x\nname: y\n", []),
    "not UTF-8": (b"name: caf\xe9\n", []),
    "no such file": (None, []),
    "unknown profile": (b"name: x\n", ["--profile", "huge"]),
    "bad memory budget": (b"name: x\n", ["--max-memory", "-1"]),
    "bad scheduler": (b"name: x\n", ["--scheduler", "nowhere"]),
}


RUN_ONLY = ("bad memory budget", "bad scheduler")  # options plan does not take


@pytest.mark.parametrize(
    "command, case",
    [("run", case) for case in EARLY_ERRORS] + [("plan", case) for case in EARLY_ERRORS if case not in RUN_ONLY],
)
def test_an_unreadable_config_or_a_bad_option_is_reported_before_the_numeric_stack(tmp_path, case, command):
    content, options = EARLY_ERRORS[case]
    config = tmp_path / "config.yaml"
    if content is not None:
        config.write_bytes(content)
    code = (
        "import sys\nfrom kpca_bench.cli import app\n"
        f"try:\n    app([{command!r}, {str(config)!r}, *{options!r}], prog_name='kpca-bench')\n"
        "except SystemExit as done:\n    print(done.code)\n"
        f"print(' '.join(m for m in {NUMERIC_STACK!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    exit_code, *loaded = result.stdout.splitlines()
    assert exit_code == "2" and loaded == [""], result.stdout
