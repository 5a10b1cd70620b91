"""What a paper plug-in declares: its name, its configs and its analyses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Analysis = Callable[[Path, list[Path]], list[Path]]
"""``analysis(results_root, configs) -> files written``, built from stored runs only; ``configs`` are the
paper's config files (:meth:`Paper.config_paths`)."""


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
        """Its configs in ``config_dir``: pattern by pattern in the order of :attr:`configs`, each in file-name order."""
        paths = [path for pattern in self.configs for path in sorted(Path(config_dir).glob(pattern))]
        return list(dict.fromkeys(paths))
