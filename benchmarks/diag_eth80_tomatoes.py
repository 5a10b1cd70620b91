"""Which tomatoes ETH-80's test holds, and what that does to the AUROC (Das et al., section V).

Section V draws the test subsets at random; the authors' code (``skpca_codes/kspca_fruits2_var.py``)
tests on ``outliers[0:111]``, the first 111 rows of a ``tomato.npy`` whose order it does not give.
For every trial of a config (default ``configs/eth80.yaml``: its apple draws and seeds, as the runner
makes them) this fits each of the config's main methods (those run on every trial) on the trial's
training apples, scores the trial's test apples and all 410 tomatoes, and prints, averaged over the
trials:

* per tomato object (41 views each), the method's AUROC of those views against the test apples;
* the AUROC of the first ``test_outliers`` tomatoes in two orders of the views: the loader's (sorted
  paths: tomato1, tomato10, tomato2, ...; what ``dataset.draw: first_outliers`` takes, so these equal
  ``configs/variants/eth80_first_tomatoes.yaml``'s) and the numeric object order (tomato1, tomato2,
  tomato3, ...).

    KPCA_BENCH_DATA=../shared/datasets nice -n 15 .venv/bin/python benchmarks/diag_eth80_tomatoes.py \
        [--config configs/eth80.yaml]
"""

from __future__ import annotations

import argparse
import re
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score

from kpca_bench.datasets.files import ensure
from kpca_bench.datasets.registry import get_spec, load_dataset
from kpca_bench.protocols.novelty import class_indices, novelty_split
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.experiment.cell import build_method

ROOT = Path(__file__).parents[1]


def tomato_objects(n_rows: int) -> np.ndarray:
    """The object folder (tomato1 .. tomato10) of each tomato row, in the loader's order (sorted paths)."""
    spec = get_spec("eth80")
    root = ensure("eth80", spec.files, spec.homepage, offline=True)["SHA256SUMS"].parent
    objects = np.array([path.parent.name for path in sorted((root / "tomato").glob("*/*.png"))])
    if len(objects) != n_rows:
        raise SystemExit(
            f"{len(objects)} tomato views on disk, {n_rows} tomato rows loaded: run with the loader's "
            "default options (no maps)"
        )
    return objects


def numeric_order(objects: np.ndarray) -> np.ndarray:
    """Row positions sorted by object number, the views of an object kept in the loader's order."""
    number = np.array([int(re.search(r"\d+$", name).group()) for name in objects])
    return np.argsort(number, kind="stable")


def auroc(apple_scores: np.ndarray, tomato_scores: np.ndarray) -> float:
    labels = np.r_[np.zeros(len(apple_scores)), np.ones(len(tomato_scores))]
    return roc_auc_score(labels, np.r_[apple_scores, tomato_scores])


def main() -> None:
    # SKPCA stops at the authors' 6 alternations by design (configs/eth80.yaml); its warning says so every fit.
    warnings.simplefilter("ignore", ConvergenceWarning)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "eth80.yaml")
    config = load_config(parser.parse_args().config)
    data = config.dataset
    dataset = load_dataset(data.name, offline=True, **data.options)
    tomatoes = class_indices(dataset, data.outliers, "outliers")
    objects = tomato_objects(len(tomatoes))
    names = sorted(set(objects), key=lambda name: int(re.search(r"\d+$", name).group()))
    first = {
        "loader's order": np.arange(data.test_outliers),
        "numeric order": numeric_order(objects)[: data.test_outliers],
    }
    main_methods = {i for i, entry in enumerate(config.methods) if entry.trials is None and not entry.grid}
    by_method: dict[str, dict[str, list[float]]] = {}
    for cell in plan_cells(config):
        if cell.method_index not in main_methods:
            continue
        entry = config.methods[cell.method_index]
        split = novelty_split(dataset, data, config.options, cell.split_seed)
        detector = build_method(entry, cell.setting, cell.random_state).detector().fit(split.X_train)
        apples = -detector.score_samples(split.X_test[~split.is_outlier])
        scores = -detector.score_samples(dataset.X[tomatoes])
        rows = by_method.setdefault(entry.label, {})
        for name in names:
            rows.setdefault(name, []).append(auroc(apples, scores[objects == name]))
        for order, positions in first.items():
            rows.setdefault(f"first {data.test_outliers}, {order}", []).append(auroc(apples, scores[positions]))
    labels = list(by_method)
    print(f"{config.name}: AUROC against the test apples, mean over {config.trials} trials")
    print("| tomatoes | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for row in by_method[labels[0]]:
        print(f"| {row} | " + " | ".join(f"{np.mean(by_method[label][row]):.3f}" for label in labels) + " |")


if __name__ == "__main__":
    main()
