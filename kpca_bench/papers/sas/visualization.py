"""Shen & Asgharzadeh, Figure 2: the first two PCA and KPCA scores of the synthetic control charts.

Reads a ``classification`` config (``configs/sas_visualization.yaml``): its
dataset, scaling and split 0 (the same split, seed and scaler as trial 0 of
``kpca-bench run``), and its method entries (PCA = ``kpca`` with the linear
kernel; KPCA with the Gaussian kernel, s = 4). Each method is fitted on the
training rows and every row, training and test (all 600 series), is projected
onto its first two components and drawn coloured by class.

    python -m kpca_bench.papers.sas.visualization configs/sas_visualization.yaml
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kpca_bench.run.config import load_config
from kpca_bench.methods.registry import METHODS
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.report.plots import save_figure, plt
from kpca_bench.run.runner import derive_seed, load_checked_dataset

FIGURE = "figure2_scores.png"
MARKERS = "os*xv+"


def score_panels(config) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(label, scores of every row, class of every row)`` per method entry, on split 0 of the config."""
    dataset = load_checked_dataset(config, offline=True)
    split = PROTOCOLS[config.protocol].split(dataset, config.dataset, config.options,
                                            derive_seed(config.seed, dataset.name, 0))
    X = np.vstack([split.X_train, split.X_test])
    y = np.concatenate([split.y_train, split.y_test])
    panels = []
    for method in config.methods:
        setting = method.settings()[0]
        model = METHODS[method.name].build(setting, random_state=derive_seed(config.seed, 0, method.name))
        panels.append((method.label, model.fit(split.X_train).transform(X)[:, :2], y))
    return panels


def figure2(config_path, out_root="results") -> Path:
    """Draw one scatter panel per method entry; return the PNG path (``<out_root>/<config name>/``)."""
    config = load_config(config_path)
    panels = score_panels(config)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.4 * len(panels), 4.8))
    for ax, (label, scores, y) in zip(np.atleast_1d(axes), panels):
        for marker, cls in zip(MARKERS, np.unique(y)):
            rows = y == cls
            ax.scatter(scores[rows, 0], scores[rows, 1], s=10, marker=marker, label=str(cls), alpha=0.7)
        ax.set_xlabel("score 1")
        ax.set_ylabel("score 2")
        ax.set_title(label.split(" + ")[0], fontsize=10)
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[-1].legend(fontsize=8, loc="best")
    train = config.options.train_size
    fig.suptitle(f"Shen & Asgharzadeh, Figure 2: {config.dataset.name}, fitted on {train} series (split 0), "
                 f"all {len(panels[0][2])} projected", fontsize=10)
    directory = Path(out_root) / config.name
    directory.mkdir(parents=True, exist_ok=True)
    save_figure(fig, directory / FIGURE)
    return directory / FIGURE


def analyse(results_root: Path, config_dir: Path) -> list[Path]:
    """Figure 2 in ``<results_root>/sas_visualization/``."""
    return [figure2(Path(config_dir) / "sas_visualization.yaml", results_root)]
