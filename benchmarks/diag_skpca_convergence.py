"""Why SKPCA's alternation stops on its iteration limit: a trace of every alternation.

On ADBench's split of one seed (the suite's protocol and parameters: min-max scaling, 10 components,
``l1_ratio`` 0.5, RBF with the mean-pairwise width, ARPACK start), runs the alternation of eq. (10)
(:func:`kpca_bench.methods.sparse_enet.alternations`) for ``--steps`` alternations at one BLAS thread
and writes, per dataset and alternation, what could keep it from meeting ``tol``:

- ``relative_change``: ``||beta_t - beta_(t-1)||_F / ||beta_(t-1)||_F`` (what ``tol`` bounds), and
  ``ratio``, its quotient from one alternation to the next (about constant and below 1: linear
  convergence; about 1 without decreasing: a cycle or a stall);
- ``sign_flips`` and ``order_changes``: components whose feature-space inner product with the same
  component one alternation earlier is negative, or that match another component better (columns
  the elastic net zeroed left out);
- ``rotation``: the largest principal angle (degrees) between the spans of ``alpha_(t-1)`` and
  ``alpha_t`` in the metric ``K`` (the Procrustes step's move);
- ``lars_early_stops``: LARS warnings that it stopped before the elastic net's penalty;
- ``support_jaccard``: the mean over components of the Jaccard index of the non-zero sets of
  ``beta_(t-1)`` and ``beta_t``; ``nnz``: mean non-zeros per component; ``objective``: eq. (10).

Writes ``results/benchmarks/skpca_convergence.tsv``; docs/suites.md reads it.

    python benchmarks/diag_skpca_convergence.py --datasets adbench_wbc adbench_pima adbench_magic_gamma
"""

from __future__ import annotations

import argparse
import csv
import os
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from kpca_bench.datasets import load_dataset
from kpca_bench.eigensolvers import top_eigenpairs
from kpca_bench.methods.kpca import dual_coefficients
from kpca_bench.methods.sparse_enet import SparseKernelPCA, alternations, enet_penalties
from kpca_bench.protocols.adbench import Options, adbench_split
from kpca_bench.protocols.base import DatasetConfig

COLUMNS = (
    "dataset",
    "n_train",
    "step",
    "relative_change",
    "ratio",
    "sign_flips",
    "order_changes",
    "rotation",
    "lars_early_stops",
    "support_jaccard",
    "nnz",
    "objective",
)


class _KernelOnly(SparseKernelPCA):
    """Keeps the centered training kernel that fit hands to the components, and fits none."""

    def _fit_components(self, K_centered):
        self.K_centered_ = K_centered.copy()
        self.dual_coef_ = np.zeros((K_centered.shape[0], self.n_components_))


def centered_kernel(X: np.ndarray, n_components: int) -> np.ndarray:
    """The suite's centered RBF training kernel (mean-pairwise width) of X."""
    return _KernelOnly(n_components, gamma="mean_pairwise").fit(X).K_centered_


def training_rows(name: str, seed: int, max_train: int | None) -> np.ndarray:
    data = DatasetConfig(name=name, inliers=(0,), outliers=(1,), scaling="minmax")
    split = adbench_split(load_dataset(name), data, Options(max_train=max_train), seed)
    return split.X_train if split.capped is None else split.X_train[split.capped]


def step_facts(
    K: np.ndarray, beta: np.ndarray, beta_prev: np.ndarray, alpha: np.ndarray, alpha_prev: np.ndarray
) -> dict:
    """Sign flips, order changes, the Procrustes move and the support's overlap between two alternations."""
    inner = beta_prev.T @ K @ beta
    norms = np.sqrt(
        np.abs(np.einsum("ij,ij->j", beta_prev, K @ beta_prev))[:, None]
        * np.abs(np.einsum("ij,ij->j", beta, K @ beta))[None, :]
    )
    correlation = np.divide(inner, norms, out=np.zeros_like(inner), where=norms > 0)
    m = beta.shape[1]
    live = np.flatnonzero(np.diag(norms) > 0)  # a column the elastic net zeroed matches nothing
    best_match = np.argmax(np.abs(correlation[np.ix_(live, live)]), axis=0)
    cosines = np.clip(np.linalg.svd(alpha_prev.T @ K @ alpha, compute_uv=False), -1.0, 1.0)
    supports = [(set(np.flatnonzero(beta_prev[:, j])), set(np.flatnonzero(beta[:, j]))) for j in range(m)]
    jaccard = [len(a & b) / len(a | b) if a | b else 1.0 for a, b in supports]
    return {
        "sign_flips": int(np.sum(np.diag(correlation) < 0)),
        "order_changes": int(np.sum(best_match != np.arange(live.size))),
        "rotation": float(np.degrees(np.arccos(cosines.min()))),
        "support_jaccard": float(np.mean(jaccard)),
    }


def trace(
    name: str, steps: int, seed: int, max_train: int | None, n_components: int = 10, l1_ratio: float = 0.5
) -> list[dict]:
    X = training_rows(name, seed, max_train)
    K = centered_kernel(X, n_components)
    eig = top_eigenpairs(K, n_components, "arpack", 0)
    alpha = dual_coefficients(eig.values, eig.vectors)
    lam, lam_j = enet_penalties(1.0, l1_ratio)
    rows, beta_prev, alpha_prev, change_prev = [], None, alpha, np.nan
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        for step, (beta, alpha, objective) in zip(range(1, steps + 1), alternations(K, alpha, lam, lam_j)):
            early = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
            caught.clear()
            row = {
                "dataset": name,
                "n_train": len(X),
                "step": step,
                "lars_early_stops": early,
                "nnz": float(np.count_nonzero(beta, axis=0).mean()),
                "objective": objective,
            }
            if beta_prev is not None:
                change = float(np.linalg.norm(beta - beta_prev) / np.linalg.norm(beta_prev))
                row.update(
                    relative_change=change,
                    ratio=change / change_prev if step > 2 else np.nan,
                    **step_facts(K, beta, beta_prev, alpha, alpha_prev),
                )
                change_prev = change
            rows.append(row)
            beta_prev, alpha_prev = beta, alpha
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["adbench_wbc", "adbench_pima", "adbench_magic_gamma"])
    parser.add_argument("--steps", type=int, default=80)
    parser.add_argument("--seed", type=int, default=0, help="ADBench's seed of the split")
    parser.add_argument(
        "--max-train",
        type=int,
        default=0,
        help="cap the training rows (a stratified sample, as the protocol's cap draws it); 0: all, as the suite",
    )
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks/skpca_convergence.tsv"))
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with threadpool_limits(1), args.out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, delimiter="\t", restval="")
        writer.writeheader()
        for name in args.datasets:
            for row in trace(name, args.steps, args.seed, args.max_train or None):
                writer.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})
            handle.flush()
            print(f"{name}: done (load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
