"""Li et al., Fig. 3: constant-RE and constant-MD contours on the artificial 2-D set (section IV.A).

150 points from a Gaussian with mean (0.5, 0.5) and covariance diag(1, 0.1),
scaled to [0, 1]^2 (dataset ``li_artificial_2d``); kernel PCA with the
polynomial kernel ``(x^T y)^2`` and ``p = 2`` components. Left: the contour where
the reconstruction error (eqs. 9-11) equals half its largest training value;
right: the same for the Mahalanobis distance in the principal subspace (eq. 13).
The paper's illustration, not a benchmark run: it draws its own sample (seed 0)
and writes ``<results root>/li_artificial/figure3_contours.png``.

    python -m reproductions analyse li
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kpca_bench.datasets import load_dataset
from kpca_bench.methods import KernelPCA, mahalanobis_distance, reconstruction_error
from kpca_bench.report.plots import plt, save_figure

SCORES = {"reconstruction error (RE)": reconstruction_error, "Mahalanobis distance (MD)": mahalanobis_distance}


def figure3(out_dir, *, grid_points: int = 201, random_state: int = 0) -> Path:
    """Fit KPCA on the artificial set, draw both half-maximum contours over a grid of [0, 1]^2; return the PNG path."""
    X = load_dataset("li_artificial_2d", random_state=random_state).X
    model = KernelPCA(2, kernel="poly", degree=2, coef0=0.0, gamma=1.0).fit(X)
    axis = np.linspace(0.0, 1.0, grid_points)
    xx, yy = np.meshgrid(axis, axis)
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.8))
    for ax, (name, score) in zip(axes, SCORES.items()):
        level = score(model, X).max() / 2
        field = score(model, grid).reshape(xx.shape)
        ax.contourf(xx, yy, field, levels=20, cmap="Greys", alpha=0.5)
        ax.contour(xx, yy, field, levels=[level], colors="tab:red", linewidths=2)
        ax.plot(X[:, 0], X[:, 1], "o", ms=3, color="tab:blue", label="training points")
        ax.set_title(f"{name} = half its training maximum ({level:.3g})", fontsize=10)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.legend(loc="upper right", fontsize=8)
    fig.suptitle(
        f"Li et al., Fig. 3: kernel (x^T y)^2, p = 2, {len(X)} points (li_artificial_2d, random_state={random_state})",
        fontsize=10,
    )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "figure3_contours.png"
    save_figure(fig, path)
    return path


def analyse(results_root: Path, config_paths: list[Path]) -> list[Path]:
    """Figure 3 of Li et al. in ``<results_root>/li_artificial/`` (its own artificial sample, seed 0)."""
    return [figure3(Path(results_root) / "li_artificial")]
