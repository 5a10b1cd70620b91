"""Reproductions of papers, kept outside the library and loaded from their folders.

A reproduction is a folder ``reproductions/<key>/`` (next to ``configs/``) whose
``__init__.py`` declares ``REPRODUCTION``, a :class:`Reproduction`; its other modules
are its analyses. The library never imports a reproduction: it loads the folder by
path, as benchopt loads a benchmark folder, so adding a paper touches no library file.
A reproduction's analyses read what finished runs left on disk (records, tables) and
the reference files; none re-runs a method or redraws a split.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kpca_bench.errors import KpcaBenchError

DEFAULT_REPRODUCTIONS_DIR = Path("reproductions")
PACKAGE = "reproductions"

Analysis = Callable[[Path, list[Path]], list[Path]]
"""``analysis(results_root, configs) -> files written``, built from stored runs only; ``configs`` are the
reproduction's config files (:meth:`Reproduction.config_paths`)."""


@dataclass(frozen=True)
class Reproduction:
    """A reproduced paper, as its folder declares it.

    Attributes
    ----------
    key : the name ``kpca-bench analyse KEY`` takes (its folder's name).
    reference : the paper's name in ``results/reference/*.yaml`` and in its configs' ``reference.paper``.
    citation : authors, title, venue, year.
    configs : file-name patterns (in the config folder) of the configs that reproduce it.
    analyses : the analyses that turn its finished runs into its tables and figures, in order.
    """

    key: str
    reference: str
    citation: str
    configs: tuple[str, ...]
    analyses: tuple[Analysis, ...] = ()

    def config_paths(self, config_dir: Path) -> list[Path]:
        """Its configs in ``config_dir``: pattern by pattern in the order of :attr:`configs`, each in file-name order."""
        paths = [path for pattern in self.configs for path in sorted(Path(config_dir).glob(pattern))]
        return list(dict.fromkeys(paths))


def load_reproduction(folder: Path) -> Reproduction:
    """The :class:`Reproduction` that ``folder/__init__.py`` declares, loaded by path as package
    ``reproductions.<folder name>`` (so its modules import one another relatively)."""
    folder = Path(folder).resolve()
    name = f"{PACKAGE}.{folder.name}"
    init = folder / "__init__.py"
    # Python resolves a relative import through the parent package, so ``reproductions`` must exist too.
    sys.modules.setdefault(PACKAGE, _namespace(folder.parent))
    module = sys.modules.get(name)
    if module is None or Path(module.__file__).resolve() != init:
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    declared = getattr(module, "REPRODUCTION", None)
    if not isinstance(declared, Reproduction):
        raise KpcaBenchError(f"{init} declares no REPRODUCTION = Reproduction(...); every reproduction folder "
                             "needs one")
    return declared


def _namespace(root: Path) -> types.ModuleType:
    """An empty package ``reproductions`` whose modules are the folders of ``root``."""
    package = types.ModuleType(PACKAGE)
    package.__path__ = [str(root)]
    return package


def load_reproductions(root: Path = DEFAULT_REPRODUCTIONS_DIR) -> dict[str, Reproduction]:
    """Key -> reproduction, for every folder of ``root`` with an ``__init__.py``, in folder-name order."""
    folders = sorted(path.parent for path in Path(root).glob("*/__init__.py"))
    if not folders:
        raise KpcaBenchError(f"no reproduction in {root}: a reproduction is a folder {root}/<paper>/ whose "
                             "__init__.py declares REPRODUCTION; name the folder with --reproductions")
    return {reproduction.key: reproduction for reproduction in map(load_reproduction, folders)}
