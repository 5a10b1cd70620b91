"""Wang & Tanaka, Figs. 1-2: every kernel principal component as a contour map of the plane (section 4.1).

The toy experiments fit KPCA, SKPCA-l1 (Algorithm 1) and SKPCA-l2,1
(Algorithm 2) on one generated 2-D sample (``gaussian_mixture``: three sources,
90 points, gamma = 10, 8 PCs; ``parabola``: N = 500, gamma = 2, 4 PCs) and
draw, for each component k, the contours of its projection value
``sum_i a_ik k~(x_i, x)`` (eq. 5, on the feature map centered on the sample)
over the plane, with the samples whose coefficient ``a_ik`` is non-zero marked.

This is the protocol ``toy_components`` (registered in
:data:`kpca_bench.protocols.PROTOCOLS`), so a toy config runs like any other::

    kpca-bench run configs/wang_toy_gaussians.yaml
    python -m kpca_bench.experiments.wang_toy --config configs/wang_toy_gaussians.yaml

One trial fits each method entry on the whole dataset (the split seed is
unused: the generator's ``random_state`` fixes the sample). The record holds
the fitted dual coefficients, so the figure (``components.png``) is drawn from
the records and the regenerated sample, never by re-fitting. Each row of the
figure is a method entry, each column a component.

Options (``protocol: {name: toy_components, ...}``): ``grid_points`` (default
150) points per axis of the contour grid, ``margin`` (default 0.25) added
around the sample's bounding box.

Each record holds ``sparsity`` (% non-zero coefficients per component, the
project's measure), ``sample_sparsity`` (share of samples with a zero row of
A: unused by every component), ``nonzero`` (non-zero coefficients per
component), ``variance_share`` (share of the sample's feature-space variance
along each unit component), ``fit_time`` and ``gamma``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import clone

from kpca_bench.datasets import Dataset, load_dataset
from kpca_bench.errors import ConfigError
from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.metrics import sparsity_percent

if TYPE_CHECKING:
    from kpca_bench.config import Config

OPTIONS = ("grid_points", "margin")
FIGURE = "components.png"


@dataclass(frozen=True)
class Split:
    """The whole sample as training data; there are no test rows."""

    X_train: np.ndarray

    @property
    def is_outlier(self) -> np.ndarray:
        """Empty: the runner counts test rows through it."""
        return np.zeros(0, dtype=bool)


def check_toy(dataset: Dataset, config: Config) -> None:
    """The sample is 2-D, has room for every entry's components, and the options are sane; all problems at once."""
    problems = []
    if dataset.X.shape[1] != 2:
        problems.append(f"{config.source}: dataset.name: {dataset.name} has {dataset.X.shape[1]} features; "
                        "the contour figure needs 2")
    grid = config.protocol_options.get("grid_points", 150)
    if isinstance(grid, bool) or not isinstance(grid, Integral) or grid < 2:
        problems.append(f"{config.source}: protocol.grid_points: must be an integer >= 2, got {grid!r}")
    for index, method in enumerate(config.methods):
        for setting in method.settings():
            k = setting.get("n_components")
            if isinstance(k, Integral) and k > len(dataset.X) - 1:
                problems.append(f"{config.source}: methods[{index}].params.n_components: {k} components need "
                                f"more than the {len(dataset.X)} samples")
    if problems:
        raise ConfigError("\n".join(problems))


def describe(config: Config) -> str:
    return "each method is fitted on the whole generated sample; the figure shows every component over the plane"


def toy_split(dataset: Dataset, config: Config, seed: int) -> Split:
    """The whole sample (the generator's ``random_state`` fixed it; ``seed`` is unused)."""
    return Split(X_train=dataset.X)


def evaluate_toy(detector, split: Split, config: Config) -> dict:
    """Fit on the sample; record the dual coefficients and their sparsity."""
    model = clone(detector.estimator if isinstance(detector, KernelSubspaceDetector) else detector)
    start = time.perf_counter()
    model.fit(split.X_train)
    fit_time = time.perf_counter() - start
    A = model.dual_coef_
    K = model.centering_.center_train(model.kernel_(split.X_train))
    variance = np.einsum("ij,ij->j", K @ A, K @ A) / np.trace(K)
    return {"fit_time": fit_time, "gamma": float(model.gamma_), "sparsity": sparsity_percent(A),
            "sample_sparsity": float(np.mean(~A.any(axis=1))), "nonzero": np.count_nonzero(A, axis=0).tolist(),
            "variance_share": variance.tolist(), "dual_coef": A.tolist(), "status": "ok"}


def projection_grid(X: np.ndarray, dual_coef: np.ndarray, gamma: float, *, grid_points: int = 150,
                    margin: float = 0.25):
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


def draw_components(X: np.ndarray, rows: list[tuple[str, dict]], path, *, title: str, grid_points: int = 150,
                    margin: float = 0.25) -> Path:
    """One row per ``(label, record)``, one column per component: contours, non-zero samples in black.

    The samples with a zero coefficient in that component are drawn as small
    grey dots so that the eye can find the data; KPCA's panels mark every sample.
    """
    from kpca_bench.report.plots import _save, plt

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
            ax.set_title(f"PC{k + 1}: {int(used.sum())} samples, var {100 * record['variance_share'][k]:.1f}%",
                         fontsize=7)
        ax_row[0].set_ylabel(label, fontsize=8)
    fig.suptitle(title, fontsize=9)
    path = Path(path)
    _save(fig, path)
    return path


def report_toy(config: Config, records: list[dict], directory) -> None:
    """Draw ``components.png`` from trial 0's records and the regenerated sample."""
    X = load_dataset(config.dataset.name, **config.dataset.options).X
    by_label = {r["method"]: r for r in records if r["trial"] == 0 and r["status"] == "ok"}
    labels = [m.setting_label(s) for m in config.methods for s in m.settings()]
    rows = [(label, by_label[label]) for label in labels if label in by_label]
    options = config.protocol_options
    draw_components(X, rows, Path(directory) / FIGURE, title=config.description or config.name,
                    grid_points=options.get("grid_points", 150), margin=options.get("margin", 0.25))


def main(argv=None) -> None:
    from kpca_bench.config import load_config
    from kpca_bench.runner import run_experiment

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/wang_toy_gaussians.yaml")
    parser.add_argument("--out", default="results", help="results root; the figure goes to OUT/<config name>/")
    args = parser.parse_args(argv)
    outcome = run_experiment(load_config(args.config), args.out, offline=True)
    print(outcome.directory / FIGURE)


if __name__ == "__main__":
    main()
