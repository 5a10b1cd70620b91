"""SKPCA (elastic net) fitted as the current code fits the suite's trial-0 cells: saved, checked bit for bit, timed.

Records that older code computed may differ from these fits (docs/benchmarks.md, the SKPCA harness).

For every dataset of ``configs/adbench_classical_capped.yaml`` (the suite that keeps SKPCA) whose files are here (``KPCA_BENCH_DATA``),
the cell of trial 0 of the ``SKPCA RE`` entry is planned as the runner plans it (its split seed and
``random_state``), its split drawn by the adbench protocol's own ``adbench_split`` (at most 10,000 rows,
70 / 30, min-max scaling), and the entry's estimator (the runner's ``build_method``) is fitted on the
kernel methods' capped training rows (at most 2,000) with one BLAS thread, as a suite cell runs.

- ``--save DIR`` writes ``DIR/<dataset>.npz``: ``dual_coef_``, ``objective_``, ``n_iter_``, the
  warnings of the fit (category and message, in order) and the fit time;
- ``--reference DIR`` compares every fit with ``DIR/<dataset>.npz`` (``np.array_equal``, the same warnings);
- ``--peer FILE`` fits a second copy of ``kpca_bench/methods/sparse_enet.py`` (the code at an earlier
  commit: ``git show BASE:kpca_bench/methods/sparse_enet.py > /tmp/base.py``) alternately with the
  current one in the same process, and prints the speed ratio against it and whether both fits are identical.

Prints one line per dataset and the totals, with the load average before and after. Not a test:
machines differ. Profile a few datasets with ``python -m cProfile -o OUT.prof`` and ``--include``.

    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/bench_skpca_suite.py \
        --save /tmp/skpca_ref [--reference DIR] [--peer /tmp/base.py] [--repeat 2] [--include campaign donors]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.runner import load_checked_dataset, missing_files
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.experiment.cell import build_method
from kpca_bench.protocols.adbench import adbench_split

CONFIG = Path(__file__).parents[1] / "configs" / "adbench_classical_capped.yaml"
ENTRY = "SKPCA RE"


@dataclass(frozen=True)
class Fit:
    """What a fit computed (the arrays compared bit for bit and its warnings) and how long it took."""

    dual_coef: np.ndarray
    objective: np.ndarray
    n_iter: int
    warnings: tuple[str, ...]
    seconds: float

    def same_as(self, other: Fit) -> bool:
        return (
            np.array_equal(self.dual_coef, other.dual_coef)
            and np.array_equal(self.objective, other.objective)
            and self.n_iter == other.n_iter
            and self.warnings == other.warnings
        )

    def save(self, path: Path) -> None:
        np.savez(
            path,
            dual_coef=self.dual_coef,
            objective=self.objective,
            n_iter=self.n_iter,
            warnings=np.array(self.warnings, dtype=str),
            seconds=self.seconds,
        )

    @classmethod
    def load(cls, path: Path) -> Fit:
        with np.load(path) as saved:
            return cls(
                saved["dual_coef"],
                saved["objective"],
                int(saved["n_iter"]),
                tuple(str(w) for w in saved["warnings"]),
                float(saved["seconds"]),
            )


def suite_cells(config_path: Path, include: list[str] | None):
    """``(dataset, X_fit, estimator)`` of trial 0 of the SKPCA RE entry, per dataset whose files are here."""
    for label, member in load_config(config_path).members():
        if include and label not in include:
            continue
        if (missing := missing_files(member)) is not None:
            print(f"skipped {label}: {missing}")
            continue
        dataset = load_checked_dataset(member, offline=True)
        index = next(i for i, entry in enumerate(member.methods) if entry.label == ENTRY)
        cell = next(c for c in plan_cells(member) if c.trial == 0 and c.method_index == index)
        split = adbench_split(dataset, member.dataset, member.options, cell.split_seed)
        X_fit = split.X_train if split.capped is None else split.X_train[split.capped]
        yield label, X_fit, build_method(member.methods[index], cell.setting, cell.random_state).estimator


def fit_once(estimator_class, params: dict, X: np.ndarray) -> Fit:
    """Fit ``estimator_class(**params)`` on ``X`` with one BLAS thread, recording every warning."""
    model = estimator_class(**params)
    with threadpool_limits(limits=1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model.fit(X)
        seconds = time.perf_counter() - start
    return Fit(
        model.dual_coef_,
        model.objective_,
        int(model.n_iter_),
        tuple(f"{w.category.__name__}: {w.message}" for w in caught),
        seconds,
    )


def peer_class(path: Path):
    """``SparseKernelPCA`` of another copy of ``sparse_enet.py``, imported under a module name of its own."""
    spec = importlib.util.spec_from_file_location("sparse_enet_peer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SparseKernelPCA


def alternate_fits(estimator, peer, X: np.ndarray, repeat: int) -> tuple[list[Fit], list[Fit]]:
    """``repeat`` fits of ``estimator``'s parameters with the current class and with ``peer`` (None: none),
    alternating which goes first so that neither always runs on a warmer cache."""
    params, ours, theirs = estimator.get_params(), [], []
    order = [(peer, theirs), (type(estimator), ours)] if peer else [(type(estimator), ours)]
    for round_ in range(repeat):
        for estimator_class, fits in order if round_ % 2 == 0 else order[::-1]:
            fits.append(fit_once(estimator_class, params, X))
    return ours, theirs


def fastest(fits: list[Fit]) -> Fit:
    return min(fits, key=lambda fit: fit.seconds)


def load_average() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--include", nargs="+", default=None, metavar="DATASET")
    parser.add_argument("--save", type=Path, default=None, metavar="DIR")
    parser.add_argument("--reference", type=Path, default=None, metavar="DIR")
    parser.add_argument("--peer", type=Path, default=None, metavar="FILE")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    for path in (args.reference, args.peer):
        if path is not None and not path.exists():
            print(
                f"error: {path} does not exist; give an existing folder (--reference) or file (--peer)", file=sys.stderr
            )
            return 2
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    peer = peer_class(args.peer) if args.peer is not None else None

    print(f"load average before: {load_average()}")
    print(
        f"{'dataset':<20} {'n':>5} {'iter':>4} {'nnz':>6} {'warn':>4} {'fit s':>7}"
        + (f" {'peer s':>7} {'ratio':>6} {'=peer':>5}" if peer else "")
        + (" =ref" if args.reference else "")
    )
    totals, peer_totals, differing, fitted = 0.0, 0.0, [], 0
    for label, X, estimator in suite_cells(args.config, args.include):
        fitted += 1
        ours, theirs = alternate_fits(estimator, peer, X, args.repeat)
        fit = fastest(ours)
        totals += fit.seconds
        line = (
            f"{label:<20} {len(X):>5} {fit.n_iter:>4} {np.count_nonzero(fit.dual_coef):>6} "
            f"{len(fit.warnings):>4} {fit.seconds:>7.2f}"
        )
        identical = []
        if peer:
            peer_fit = fastest(theirs)
            peer_totals += peer_fit.seconds
            identical.append(all(fit.same_as(other) for other in ours + theirs))
            line += f" {peer_fit.seconds:>7.2f} {peer_fit.seconds / fit.seconds:>6.2f} {str(identical[-1]):>5}"
        if args.reference is not None:
            saved = args.reference / f"{label}.npz"
            identical.append(saved.exists() and all(f.same_as(Fit.load(saved)) for f in ours))
            line += f" {identical[-1]}" if saved.exists() else f" no {saved.name}"
        if not all(identical):
            differing.append(label)
        if args.save is not None:
            fit.save(args.save / f"{label}.npz")
        print(line, flush=True)
    if not fitted:
        print(
            f"error: no dataset of {args.config} was fitted (KPCA_BENCH_DATA="
            f"{os.environ.get('KPCA_BENCH_DATA', '')!r}, --include {args.include}): set KPCA_BENCH_DATA to the "
            "folder of the datasets and give --include names of the config's datasets",
            file=sys.stderr,
        )
        return 2
    print(
        f"total fit time: {totals:.1f} s"
        + (f", peer {peer_totals:.1f} s, ratio {peer_totals / totals:.3f}" if peer and totals > 0 else "")
    )
    print(f"load average after: {load_average()}")
    if peer or args.reference:
        print(f"datasets whose fits differ: {', '.join(differing) or 'none'}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
