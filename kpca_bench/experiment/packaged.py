"""The configs shipped inside the package (``kpca_bench/configs/``): found by name, and copied into a user's folder.

The repository's ``configs/`` is a link to that folder, so a clone and an installed wheel read the
same files; the examples' data files sit beside them (``examples/data/``), so their relative paths
hold wherever the folder is copied.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.store import writing

PACKAGED_CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def packaged_names() -> list[str]:
    """The names :func:`find_config` accepts for the packaged configs, e.g. ``quickstart``, ``examples/csv``."""
    return sorted(
        path.relative_to(PACKAGED_CONFIGS).with_suffix("").as_posix() for path in PACKAGED_CONFIGS.rglob("*.yaml")
    )


def find_config(config: Path) -> Path:
    """``config`` if it is a file; else the packaged config it names (with or without ``.yaml``); else ``config``.

    A name that is neither is returned unchanged, so that loading it reports the missing file.
    """
    config = Path(config)
    if config.is_file() or config.is_absolute():
        return config
    packaged = PACKAGED_CONFIGS / config
    for path in (packaged, packaged.with_name(f"{packaged.name}.yaml")):
        if path.is_file():
            return path
    return config


def copy_packaged_configs(directory: Path, *, force: bool = False) -> list[Path]:
    """Copy the packaged configs (and the examples' data) into ``directory``; the files written.

    Without ``force``, a file already there is never overwritten: a :class:`KpcaBenchError` names it first.
    """
    directory = Path(directory)
    sources = sorted(path for path in PACKAGED_CONFIGS.rglob("*") if path.is_file())
    targets = [directory / source.relative_to(PACKAGED_CONFIGS) for source in sources]
    existing = [target for target in targets if target.exists()]
    if existing and not force:
        more = f" and {len(existing) - 1} more of the example files" if len(existing) > 1 else ""
        raise KpcaBenchError(
            f"{existing[0]} already exists{more}; add --force to overwrite them, or choose an empty folder"
        )
    for source, target in zip(sources, targets):
        with writing(target):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return targets
