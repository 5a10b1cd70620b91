"""``kpca-bench init``: copy the packaged example configs into a folder the user owns."""

from __future__ import annotations

from pathlib import Path

import typer

from kpca_bench.cli.render import fail
from kpca_bench.errors import KpcaBenchError


def init(
    directory: Path = typer.Argument(..., help="Folder to copy the example configs into."),
    force: bool = typer.Option(False, "--force", help="Overwrite example files already in the folder."),
) -> None:
    """Copy the example configs (quickstart, your own CSV/NPZ/MAT file, the ADBench suites) into DIRECTORY.

    Edit a copy and run it: kpca-bench run DIRECTORY/quickstart.yaml. The packaged configs also
    run by name: kpca-bench run quickstart.
    """
    from kpca_bench.experiment.packaged import copy_packaged_configs

    try:
        written = copy_packaged_configs(directory, force=force)
    except KpcaBenchError as error:
        fail(error)
    typer.echo(f"wrote {len(written)} files to {directory}; start with: kpca-bench run {directory / 'quickstart.yaml'}")
