"""The ``kpca-bench`` command line: thin typed wrappers over the library's functions."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from kpca_bench.config import load_config
from kpca_bench.datasets.cli import app as datasets_app
from kpca_bench.errors import KpcaBenchError
from kpca_bench.progress import make_progress
from kpca_bench.runner import run_experiment

app = typer.Typer(
    help="Reproduce kernel-PCA outlier-detection benchmarks from YAML configs.\n\n"
         "Start with: kpca-bench run configs/quickstart.yaml",
    rich_markup_mode="rich",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


app.add_typer(datasets_app, name="datasets", help="List, verify and fetch the datasets configs can name.")


@app.callback()
def main() -> None:
    """Reproduce kernel-PCA outlier-detection benchmarks from YAML configs."""


def fail(error: KpcaBenchError) -> None:
    """Report a user-fixable problem as one line per problem, exit code 2."""
    for line in str(error).splitlines():
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(2)


@app.command()
def run(
    config: Path = typer.Argument(..., help="Experiment config (YAML), e.g. configs/quickstart.yaml."),
    out: Path = typer.Option(Path("results"), "--out", help="Results root; the run writes to OUT/<config name>/."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Cells run in parallel (-1: one per CPU core)."),
    trials: int = typer.Option(None, "--trials", min=1, help="Override the config's number of random splits."),
    seed: int = typer.Option(None, "--seed", min=0, help="Override the config's seed."),
    offline: bool = typer.Option(False, "--offline", help="Never download: use only the local data directories."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress output."),
):
    """Run an experiment: every trial x method x setting, resuming what is already done.

    Writes trials.csv (one row per trial and setting), summary.csv / summary.md
    (mean ± std per method) and PNG figures to OUT/<name>/. Interrupt at any
    time: finished cells are kept and the same command resumes.
    """
    try:
        cfg = load_config(config).with_overrides(trials=trials, seed=seed)
        n_jobs = os.cpu_count() if jobs == -1 else max(jobs, 1)
        outcome = run_experiment(cfg, out, jobs=n_jobs, offline=offline, progress=make_progress(quiet))
    except KpcaBenchError as error:
        fail(error)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished cells are saved in {out / config.stem}; "
                   "run the same command again to resume", err=True)
        raise typer.Exit(130)
    if not quiet:
        typer.echo(f"{outcome.n_run} cells run, {outcome.n_reused} reused; results in {outcome.directory}")
        summary = outcome.directory / "summary.md"
        if summary.exists():
            typer.echo(summary.read_text())


