"""The figure of a ``toy_components`` run: every component of a 2-D sample as a contour map.

Drawn from the records (each holds its fitted dual coefficients) and the
regenerated sample, never by re-fitting.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kpca_bench.datasets import load_dataset
from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.report.plots import plt, save_figure
from kpca_bench.report.tables import run_dataset
from kpca_bench.experiment.config import Config

FIGURE = "components.png"


def projection_grid(
    X: np.ndarray, dual_coef: np.ndarray, gamma: float, *, grid_points: int = 150, margin: float = 0.25
):
    """``(xx, yy, values)``: each component's projection (eq. 5, centered kernel) on a grid over the sample.

    ``values`` has shape (n_components, grid_points, grid_points); the RBF
    kernel is ``exp(-gamma ||x - y||^2)`` as in the paper.
    """
    low, high = X.min(axis=0) - margin, X.max(axis=0) + margin
    xx, yy = np.meshgrid(np.linspace(low[0], high[0], grid_points), np.linspace(low[1], high[1], grid_points))
    kernel = make_kernel(X, "rbf", gamma=gamma)
    centering = KernelCentering.fit(kernel(X))
    K_cross, _ = centering.center_cross(kernel(np.column_stack([xx.ravel(), yy.ravel()]), X))
    values = (K_cross @ dual_coef).T.reshape(dual_coef.shape[1], *xx.shape)
    return xx, yy, values


def draw_components(
    X: np.ndarray, rows: list[tuple[str, dict]], path, *, title: str, grid_points: int = 150, margin: float = 0.25
) -> Path:
    """One row per ``(label, record)``, one column per component: contours, non-zero samples in black.

    The samples with a zero coefficient in that component are drawn as small
    grey dots so that the eye can find the data; KPCA's panels mark every sample.
    """
    n_cols = max(len(record["nonzero"]) for _, record in rows)
    fig, axes = plt.subplots(len(rows), n_cols, figsize=(2.3 * n_cols, 2.4 * len(rows)), squeeze=False)
    for ax_row, (label, record) in zip(axes, rows):
        A = np.asarray(record["dual_coef"])
        xx, yy, values = projection_grid(X, A, record["gamma"], grid_points=grid_points, margin=margin)
        for k, ax in enumerate(ax_row):
            ax.set_xticks([])
            ax.set_yticks([])
            if k >= A.shape[1]:
                ax.axis("off")
                continue
            ax.contour(xx, yy, values[k], levels=9, cmap="coolwarm", linewidths=0.8)
            used = A[:, k] != 0
            ax.plot(X[~used, 0], X[~used, 1], ".", ms=1.5, color="0.7")
            ax.plot(X[used, 0], X[used, 1], "o", ms=2.2, color="black")
            ax.set_title(
                f"PC{k + 1}: {int(used.sum())} samples, var {100 * record['variance_share'][k]:.1f}%", fontsize=7
            )
        ax_row[0].set_ylabel(label, fontsize=8)
    fig.suptitle(title, fontsize=9)
    path = Path(path)
    save_figure(fig, path)
    return path


def write_components_report(config: Config, records: list[dict], directory) -> None:
    """Draw ``components.png`` from trial 0's records and the regenerated sample."""
    dataset = run_dataset(config)
    X = load_dataset(dataset.name, **dataset.options).X
    by_label = {r["method"]: r for r in records if r["trial"] == 0 and r["status"] == "ok"}
    labels = [m.setting_label(s) for m in config.methods for s in m.settings()]
    rows = [(label, by_label[label]) for label in labels if label in by_label]
    draw_components(
        X,
        rows,
        Path(directory) / FIGURE,
        title=config.description or config.name,
        grid_points=config.options.grid_points,
        margin=config.options.margin,
    )
