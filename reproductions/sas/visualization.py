"""Shen & Asgharzadeh, Figure 2 ("Visualization"): the first two PCA and KPCA scores of the synthetic control charts.

Drawn from the records of ``reproductions/sas/configs/sas_visualization.yaml``, a ``classification``
config with ``scores: 2``: the record of trial 0 of each method entry keeps the
first two component scores of every series of that split (the training rows,
then the test rows: all 600 series) and the class of each. One scatter panel per
method entry (PCA = ``kpca`` with the linear kernel; KPCA with the Gaussian
kernel, s = 4), coloured by class. Nothing is refitted.

    python -m reproductions analyse sas
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kpca_bench.errors import KpcaBenchError
from kpca_bench.report.plots import plt, save_figure
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import experiment_directory, plan_cells
from kpca_bench.experiment.store import ResultStore

CONFIG = "sas_visualization.yaml"
FIGURE = "figure2_scores.png"
MARKERS = "os*xv+"


def score_panels(config: Config, results_root: Path) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(entry label, scores of every row, class of every row)`` per method entry, from its trial-0 record.

    Raises
    ------
    KpcaBenchError
        When an entry has no finished trial 0 with component scores (the config not run, or run
        without the protocol option ``scores``).
    """
    stored = ResultStore(experiment_directory(config, results_root)).load()
    panels = []
    for cell in (cell for cell in plan_cells(config) if cell.trial == 0):
        label = config.methods[cell.method_index].label
        record = stored.get(cell.key, {})
        if record.get("status") != "ok" or "component_scores" not in record:
            raise KpcaBenchError(
                f"{config.name}: no finished trial 0 with component scores for {label!r} in "
                f"{results_root}; run 'kpca-bench run {config.source}' (protocol "
                "option scores > 0) first"
            )
        panels.append((label, np.asarray(record["component_scores"]), np.asarray(record["score_classes"])))
    return panels


def draw_panel(ax, label: str, scores: np.ndarray, classes: np.ndarray) -> None:
    """The first two scores of every row, one marker per class."""
    for marker, cls in zip(MARKERS, np.unique(classes)):
        rows = classes == cls
        ax.scatter(scores[rows, 0], scores[rows, 1], s=10, marker=marker, label=str(cls), alpha=0.7)
    ax.set_xlabel("score 1")
    ax.set_ylabel("score 2")
    ax.set_title(label.split(" + ")[0], fontsize=10)
    ax.grid(alpha=0.3)


def figure2(config_path: Path, results_root: Path) -> Path:
    """Draw one panel per method entry into ``<results_root>/<config name>/``; return the PNG path."""
    config = load_config(config_path)
    assert config.dataset is not None  # the Figure 2 config names one dataset
    panels = score_panels(config, results_root)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.4 * len(panels), 4.8), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        draw_panel(ax, *panel)
    axes[0, -1].legend(fontsize=8, loc="best")
    fig.suptitle(
        f"Shen & Asgharzadeh, Figure 2: {config.dataset.name}, fitted on {config.options.train_size} "
        f"series (split 0), all {len(panels[0][2])} projected",
        fontsize=10,
    )
    path = experiment_directory(config, results_root) / FIGURE
    save_figure(fig, path)
    return path


def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
    """Figure 2 in ``<results_root>/sas_visualization/``, from the stored records of its config."""
    return [figure2(path, Path(results_root)) for path in config_paths if path.name == CONFIG]
