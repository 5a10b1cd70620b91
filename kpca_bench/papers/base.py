"""What a paper plug-in declares: its name, its configs and its analyses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Analysis = Callable[[Path, Path], list[Path]]
"""``analysis(results_root, config_dir) -> files written``, built from stored runs only."""


@dataclass(frozen=True)
class Paper:
    """A reproduced paper.

    Attributes
    ----------
    key : the name ``kpca-bench analyse KEY`` takes.
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
        """Its configs in ``config_dir``, in file-name order."""
        return sorted({path for pattern in self.configs for path in Path(config_dir).glob(pattern)})
