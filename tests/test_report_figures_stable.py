"""The report's figures are the same bytes from the same numbers, in any Python process.

Python salts the hash of a string per process (PYTHONHASHSEED), so anything drawn in the order of a set of
names can change from one process to the next: a rebuilt report then shows binary changes that no one can see.
Each test draws the same figures in two processes with different hash seeds (this file run as a script) and
compares the PNGs byte for byte.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).parents[1]
HASH_SEEDS = ("1", "2")
METHODS = ["KPCA RE", "KPCA Mahalanobis", "IForest", "LOF", "kNN", "OCSVM"]
# Pairs the post-hoc test does not separate: the bars {KPCA RE, KPCA Mahalanobis, IForest}, {KPCA RE, LOF} (two
# bars from the same method) and {LOF, kNN, OCSVM}.
NOT_SEPARATED = [
    ("KPCA RE", "KPCA Mahalanobis"),
    ("KPCA RE", "IForest"),
    ("KPCA Mahalanobis", "IForest"),
    ("KPCA RE", "LOF"),
    ("LOF", "kNN"),
    ("LOF", "OCSVM"),
    ("kNN", "OCSVM"),
]


def draw_suite_figures(out: Path) -> None:
    """A suite's figures (critical-difference diagram, rank heatmap, box plot) of a hand-built table."""
    from kpca_bench.report import plots, statistics, suite

    ranks = pd.Series([1.5, 2.0, 2.5, 3.5, 4.0, 5.5], index=METHODS)
    p_values = pd.DataFrame(np.eye(len(METHODS)) + 0.01 * (1 - np.eye(len(METHODS))), index=METHODS, columns=METHODS)
    for a, b in NOT_SEPARATED:
        p_values.loc[a, b] = p_values.loc[b, a] = 0.5
    styles = plots.method_styles(METHODS)
    suite.cd_diagram(ranks, p_values, styles, cd=1.2, title="t", path=out / "cd.png")
    scores = pd.DataFrame(
        np.random.default_rng(0).uniform(0.5, 1.0, (8, len(METHODS))),
        columns=METHODS,
        index=[f"set_{i}" for i in range(8)],
    )
    average = statistics.average_ranks(scores)
    suite.rank_heatmap(scores, average, label="AUROC", title="t", path=out / "rank_heatmap.png")
    suite.box_plot(scores, average, styles, title="t", path=out / "box.png")


def draw_run_figures(out: Path) -> None:
    """A committed run's figures (F1 box plots, ROC, F1 vs sparsity) rebuilt from a copy of its records."""
    from kpca_bench.report.rebuild import rebuild

    shutil.copytree(
        ROOT / "results" / "mnist",
        out,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("*.png", "*.md", "*.csv", "*.html"),
    )
    rebuild(out, [ROOT / "configs", *sorted((ROOT / "reproductions").glob("*/configs"))])


DRAWINGS = {"suite": draw_suite_figures, "run": draw_run_figures}


def drawn_in_two_processes(tmp_path: Path, drawing: str) -> list[dict[str, bytes]]:
    """The PNGs ``drawing`` writes, by name, from one process per hash seed (run side by side)."""
    outs = [tmp_path / seed for seed in HASH_SEEDS]
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, drawing, str(out)],
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        for out, seed in zip(outs, HASH_SEEDS)
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr
    return [
        {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*.png"))} for out in outs
    ]


def test_a_suites_figures_are_the_same_bytes_in_any_process(tmp_path):
    first, second = drawn_in_two_processes(tmp_path, "suite")
    assert sorted(first) == ["box.png", "cd.png", "rank_heatmap.png"] == sorted(second)
    assert [name for name in first if first[name] != second[name]] == []


@pytest.mark.slow  # two rebuilds of a committed run, side by side
def test_a_runs_figures_are_the_same_bytes_in_any_process(tmp_path):
    first, second = drawn_in_two_processes(tmp_path, "run")
    assert {"f1_box.png", "roc.png", "f1_vs_sparsity.png"} <= set(first) and sorted(first) == sorted(second)
    assert [name for name in first if first[name] != second[name]] == []


if __name__ == "__main__":
    folder = Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    DRAWINGS[sys.argv[1]](folder)
