"""Reproductions of papers, loaded from their folders.

A reproduction is a folder ``reproductions/<key>/`` whose ``__init__.py`` declares
``REPRODUCTION``, a :class:`Reproduction`; its other modules are its analyses, its
``configs/`` folder holds the configs that reproduce the paper (a config belongs to
a paper by its folder), ``configs/variants/`` the variants, each one reading of
the paper, and ``reference/`` the paper's numbers, deviations, claims and choices.
The framework loads each folder by path, as benchopt loads a benchmark folder,
so adding a paper touches no framework file (and the library knows none). A
reproduction's analyses read what finished runs left on disk (records, tables) and
the reference files; none re-runs a method or redraws a split.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.config import DEFAULT_CONFIG_DIR
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.report.rebuild import trials_file as trials_file_of
from reproductions.framework.reference import CONFIGS_DIR, REFERENCE_DIR

DEFAULT_REPRODUCTIONS_DIR = Path("reproductions")
PACKAGE = "reproductions"
VARIANTS_DIR = "variants"
FRAMEWORK_FOLDER = Path(__file__).resolve().parent  # this package: no paper's folder

Analysis = Callable[[Path, list[Path]], list[Path]]
"""``analysis(results_root, configs) -> files written``, built from stored runs only; ``configs`` are the
reproduction's config files (:meth:`Reproduction.config_paths`)."""


@dataclass(frozen=True)
class Reproduction:
    """A reproduced paper, as its folder declares it (``reference``, ``citation``, ``analyses``) and
    :func:`load_reproduction` completes it (``key``, ``folder``).

    Attributes
    ----------
    reference : the paper's name in its reference files' ``paper`` fields, in its configs' ``reference.paper`` and
        in results/REPORT.md.
    citation : authors, title, venue, year.
    analyses : the analyses that turn its finished runs into its tables and figures, in order.
    key : the name ``python -m reproductions analyse KEY`` takes: its folder's name.
    folder : the reproduction's folder.
    """

    reference: str
    citation: str
    analyses: tuple[Analysis, ...] = ()
    key: str = ""
    folder: Path | None = None

    @property
    def home(self) -> Path:
        """``folder``, which :func:`load_reproduction` sets."""
        assert self.folder is not None, f"{self.reference}: a reproduction's folder is set by load_reproduction"
        return self.folder

    def config_paths(self) -> list[Path]:
        """Its configs (``<folder>/configs/*.yaml``), in file-name order."""
        return sorted((self.home / CONFIGS_DIR).glob("*.yaml"))

    @property
    def reference_dir(self) -> Path:
        """Its reference files (``<folder>/reference/``: numbers.yaml, deviations.yaml, claims.yaml, choices.yaml)."""
        return self.home / REFERENCE_DIR

    def variant_paths(self) -> list[Path]:
        """Its variants (``<folder>/configs/variants/*.yaml``), in file-name order."""
        return sorted((self.home / CONFIGS_DIR / VARIANTS_DIR).glob("*.yaml"))


def load_reproduction(folder: Path) -> Reproduction:
    """The :class:`Reproduction` that ``folder/__init__.py`` declares, loaded by path as package
    ``reproductions.<folder name>`` (so its modules import one another relatively)."""
    folder = Path(folder)
    name = f"{PACKAGE}.{folder.name}"
    init = (folder / "__init__.py").resolve()
    # A folder of another root (a test's) joins the package, so that its modules import one another relatively.
    package = importlib.import_module(PACKAGE)
    if str(init.parent.parent) not in list(package.__path__):
        package.__path__.append(str(init.parent.parent))
    module = sys.modules.get(name)
    if module is None or module.__file__ is None or Path(module.__file__).resolve() != init:
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
        assert spec is not None and spec.loader is not None, f"{init}: no module spec"  # a .py file always has one
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    declared = getattr(module, "REPRODUCTION", None)
    if not isinstance(declared, Reproduction):
        raise KpcaBenchError(
            f"{folder / '__init__.py'} declares no REPRODUCTION = Reproduction(...); every "
            "reproduction folder needs one"
        )
    return replace(declared, key=folder.name, folder=folder)


def load_reproductions(root: Path = DEFAULT_REPRODUCTIONS_DIR) -> dict[str, Reproduction]:
    """Key -> reproduction, for every folder of ``root`` with an ``__init__.py``, in folder-name order (the order of
    the papers in results/REPORT.md)."""
    folders = sorted(
        path.parent for path in Path(root).glob("*/__init__.py") if path.parent.resolve() != FRAMEWORK_FOLDER
    )
    if not folders:
        raise KpcaBenchError(
            f"no reproduction in {root}: a reproduction is a folder {root}/<paper>/ whose "
            "__init__.py declares REPRODUCTION; name the folder with --reproductions"
        )
    return {reproduction.key: reproduction for reproduction in map(load_reproduction, folders)}


def papers_by_dataset(root: Path = DEFAULT_REPRODUCTIONS_DIR) -> dict[str, list[str]]:
    """Dataset name -> the papers (``reference``) whose reproductions' configs name it; empty without ``root``."""
    papers: dict[str, list[str]] = {}
    if not Path(root).is_dir():
        return papers
    for reproduction in load_reproductions(root).values():
        for path in reproduction.config_paths():
            for _, member in load_config(path).members():
                assert member.dataset is not None  # a member of a config names one dataset
                users = papers.setdefault(member.dataset.name, [])
                if reproduction.reference not in users:
                    users.append(reproduction.reference)
    return papers


def config_folders(root: Path = DEFAULT_REPRODUCTIONS_DIR, configs: Path = DEFAULT_CONFIG_DIR) -> list[Path]:
    """Where the config of a run without ``run.json`` is looked for: ``configs``, then the configs of each
    reproduction in ``root`` (its variants among them)."""
    return [Path(configs), *sorted(Path(root).glob(f"*/{CONFIGS_DIR}"))]


def trials_file(directory, root: Path = DEFAULT_REPRODUCTIONS_DIR) -> Path:
    """``directory/trials.csv``, written first from the run's records where missing or stale
    (:func:`kpca_bench.report.rebuild.trials_file`), its config found among :func:`config_folders`."""
    return trials_file_of(directory, config_folders(root))
