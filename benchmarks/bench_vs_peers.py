"""KPCA reconstruction-error scoring at MNIST size: kpca-bench against scikit-learn and PyOD.

The case: Hoffmann's reconstruction error with 15 kernel principal
components, fitted on 3,000 MNIST zeros and scoring 6,000 test images (3,000
other zeros, 3,000 digits 1-9), 784 features scaled to [0, 1], RBF kernel with
sigma^2 = mean squared pairwise distance of the training images (Das et al.).
Every contender gets the same data and the same gamma:

- kpca-bench ``KernelSubspaceDetector(KernelPCA(15))`` with every default
  (``eigen_solver="auto"``, which picks ARPACK here on one BLAS thread and
  the block Krylov solver on two), LAPACK
  ``eigh``, ``arpack`` and ``block``;
- scikit-learn ``KernelPCA(15)`` plus the same score written on top of it
  (``||phi~(x)||^2`` needs the test kernel's row means, which ``transform``
  computes but does not return, so the kernel is evaluated twice), with
  ``eigen_solver="auto"`` (dense for 15 components), ``"arpack"`` and ``"randomized"``;
- PyOD ``KPCA(n_components=15)`` with its defaults otherwise; its
  ``decision_function`` is the same score (NOTES.md, "PyOD's KPCA detector").

Each case runs in its own process (see ``subprocess_cases.py``) and reports
fit + score time (median of ``--repeat`` runs), peak resident memory while
fitting and scoring (the high-water mark reset after the data are loaded, see
:mod:`kpca_bench.experiment.memory`), the AUROC of zeros against other digits, and the largest difference of its test scores from ours (``eigh``)
relative to the largest score: the three implement the same formula, so this
is the accuracy check (target 1e-8). The ratio column is our time over the
peer's with the same eigensolver (first target: at most 1.0 against scikit-learn and
at most 0.5 against PyOD); the last line gives our all-defaults time over the
fastest scikit-learn case (target: at most 0.7).

``--task transform`` times the work of ``KernelPCA`` alone instead: fit and
project the 6,000 test images (ours and scikit-learn's; PyOD has no transform),
where neither side builds a kernel twice; the accuracy column then compares
the projections up to each component's sign.

    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/bench_vs_peers.py --threads 1
    KPCA_BENCH_DATA=/work/shared/datasets .venv/bin/python benchmarks/bench_vs_peers.py --threads 1 --task transform
    .venv/bin/python benchmarks/bench_vs_peers.py          # without data: Gaussian blobs of the same shape

PyOD is not a dependency: ``pip install -e ".[bench]"`` to include it (skipped otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel
from subprocess_cases import resident_gb, run_cases
from threadpoolctl import threadpool_limits

from kpca_bench.experiment.memory import peak_memory

N_TRAIN, N_TEST_INLIERS, N_TEST_OUTLIERS, N_COMPONENTS = 3000, 3000, 3000, 15
CASES = {
    "kpca-bench, eigh": "ours_eigh",
    "kpca-bench, defaults (auto)": "ours_auto",
    "kpca-bench, arpack": "ours_arpack",
    "kpca-bench, block": "ours_block",
    "scikit-learn KernelPCA, auto": "sklearn_auto",
    "scikit-learn KernelPCA, arpack": "sklearn_arpack",
    "scikit-learn KernelPCA, randomized": "sklearn_randomized",
    "PyOD KPCA": "pyod",
}


def mnist_like_split() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training zeros, test images and their outlier labels: real MNIST with data, blobs without."""
    rng = np.random.default_rng(0)
    if os.environ.get("KPCA_BENCH_DATA"):
        from kpca_bench.datasets import load_dataset

        data = load_dataset("mnist", offline=True)
        X, y = data.X / 255.0, np.asarray(data.y).astype(str)
        zeros, others = rng.permutation(np.flatnonzero(y == "0")), rng.permutation(np.flatnonzero(y != "0"))
    else:
        X = np.vstack([rng.normal(0, 1, (N_TRAIN + N_TEST_INLIERS, 784)), rng.normal(0.3, 1, (N_TEST_OUTLIERS, 784))])
        zeros, others = np.arange(N_TRAIN + N_TEST_INLIERS), np.arange(N_TRAIN + N_TEST_INLIERS, len(X))
    train = X[zeros[:N_TRAIN]]
    test = np.vstack([X[zeros[N_TRAIN : N_TRAIN + N_TEST_INLIERS]], X[others[:N_TEST_OUTLIERS]]])
    is_outlier = np.r_[np.zeros(N_TEST_INLIERS, bool), np.ones(N_TEST_OUTLIERS, bool)]
    return train, test, is_outlier


def mean_pairwise_gamma(X: np.ndarray) -> float:
    """gamma = 1 / (2 sigma^2) with sigma^2 the mean squared pairwise distance (Das et al., section V)."""
    return 1.0 / (2.0 * float(np.mean(euclidean_distances(X, squared=True))))


def ours(eigen_solver: str, gamma: float, task: str):
    from kpca_bench.methods.detector import KernelSubspaceDetector
    from kpca_bench.methods.kpca import KernelPCA

    def fit_score(train, test):
        # "auto" is every default but the shared gamma, as a user would write it.
        model = (
            KernelPCA(N_COMPONENTS, gamma=gamma)
            if eigen_solver == "auto"
            else KernelPCA(N_COMPONENTS, gamma=gamma, eigen_solver=eigen_solver, random_state=0)
        )
        if task == "transform":
            return model.fit(train).transform(test)
        return -KernelSubspaceDetector(model, outlier_score="reconstruction_error").fit(train).score_samples(test)

    return fit_score


def sklearn_case(eigen_solver: str, gamma: float, task: str):
    from sklearn.decomposition import KernelPCA

    def fit_score(train, test):
        model = KernelPCA(N_COMPONENTS, kernel="rbf", gamma=gamma, eigen_solver=eigen_solver, random_state=0)
        projections = model.fit(train).transform(test)
        if task == "transform":
            return projections
        sq_norms = 1.0 - 2.0 * rbf_kernel(test, train, gamma=gamma).mean(axis=1) + model._centerer.K_fit_all_
        return sq_norms - np.sum(projections**2, axis=1)

    return fit_score


def pyod(gamma: float):
    from pyod.models.kpca import KPCA

    def fit_score(train, test):
        return (
            KPCA(n_components=N_COMPONENTS, kernel="rbf", gamma=gamma, random_state=0)
            .fit(train)
            .decision_function(test)
        )

    return fit_score


def contender(case: str, gamma: float, task: str):
    if case.startswith("ours_"):
        return ours(case.removeprefix("ours_"), gamma, task)
    if case.startswith("sklearn_"):
        return sklearn_case(case.removeprefix("sklearn_"), gamma, task)
    return pyod(gamma)


def run_case(case: str, scores_dir: Path, repeat: int, threads: int, task: str) -> dict:
    """Fit and score (or transform) with one contender ``repeat`` times in this process.

    The median time, the peak memory, the AUROC (scoring only); the scores or
    projections are saved for the accuracy column.
    """
    train, test, is_outlier = mnist_like_split()
    gamma = mean_pairwise_gamma(train)
    fit_score = contender(case, gamma, task)
    before = resident_gb()  # the split and the libraries; the 70,000 loaded images are freed by now
    times = []
    with peak_memory() as peak, threadpool_limits(limits=threads):
        for _ in range(repeat):
            start = time.perf_counter()
            scores = fit_score(train, test)
            times.append(time.perf_counter() - start)
    seconds = float(np.median(times))
    np.save(scores_dir / f"{case}.npy", scores)
    auroc = roc_auc_score(is_outlier, scores) if task == "score" else float("nan")
    return {"case": case, "seconds": seconds, "peak_gb": peak.mib / 1024, "before_gb": before, "auroc": auroc}


def profile_stages(repeat: int, threads: int) -> None:
    """Where our all-defaults fit + score spends its time: median seconds per stage."""
    from kpca_bench.methods.detector import KernelSubspaceDetector
    from kpca_bench.methods.kpca import KernelPCA

    train, test, _ = mnist_like_split()
    gamma = mean_pairwise_gamma(train)
    stages: dict[str, list[float]] = {}

    def lap(name: str, start: float) -> float:
        now = time.perf_counter()
        stages.setdefault(name, []).append(now - start)
        return now

    with threadpool_limits(limits=threads):
        for _ in range(repeat):
            detector = KernelSubspaceDetector(
                KernelPCA(N_COMPONENTS, gamma=gamma), outlier_score="reconstruction_error"
            )
            start = time.perf_counter()
            detector.fit(train)
            start = lap(f"fit: kernel, centring, eigensolver ({detector.estimator_.eigen_solver_}), offset", start)
            detector.estimator_.kernel_(train)
            start = lap("(of which the training kernel alone)", start)
            detector.score_samples(test)
            lap("scoring 6,000 (test kernel in blocks + projection)", start)
    for name, times in stages.items():
        print(f"| {name} | {np.median(times):.3f} |")


def pyod_installed() -> bool:
    try:
        import pyod  # noqa: F401
    except ImportError:
        return False
    return True


# Each peer against our run with the same eigensolver (PyOD's default "auto" is the dense one here).
OUR_COUNTERPART = {"sklearn_auto": "ours_eigh", "sklearn_arpack": "ours_arpack", "pyod": "ours_eigh"}
SKLEARN_CASES = ("sklearn_auto", "sklearn_arpack", "sklearn_randomized")


def print_table(results: dict[str, dict], scores_dir: Path, task: str) -> None:
    """The Markdown table; with ``task="transform"`` projections are compared up to each component's sign."""
    by_case = {r["case"]: r for r in results.values()}
    reference = np.abs(np.load(scores_dir / "ours_eigh.npy"))
    print(
        f"| case | fit + {task} (s) | ours / this, same solver | peak memory (GB) | peak - before (GB) | AUROC | "
        f"max {'score' if task == 'score' else '|projection|'} diff vs ours / max |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, r in results.items():
        ours = by_case.get(OUR_COUNTERPART.get(r["case"]))
        ratio = f"{ours['seconds'] / r['seconds']:.2f}" if ours else "–"
        diff = np.max(np.abs(np.abs(np.load(scores_dir / f"{r['case']}.npy")) - reference)) / np.max(reference)
        auroc = "–" if np.isnan(r["auroc"]) else f"{r['auroc']:.4f}"
        print(
            f"| {label} | {r['seconds']:.2f} | {ratio} | {r['peak_gb']:.2f} | {r['peak_gb'] - r['before_gb']:.2f} | "
            f"{auroc} | {diff:.1e} |"
        )
    peers = [by_case[c] for c in SKLEARN_CASES if c in by_case]
    if "ours_auto" in by_case and peers:
        fastest = min(peers, key=lambda r: r["seconds"])
        print(
            f"\nours with every default / fastest scikit-learn ({fastest['case']}): "
            f"{by_case['ours_auto']['seconds'] / fastest['seconds']:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", help=argparse.SUPPRESS)  # a child process: run one case, print JSON
    parser.add_argument("--scores-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the table gives the median time")
    parser.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count(),
        help="BLAS threads per case (1 gives steadier ratios on a shared machine)",
    )
    parser.add_argument("--skip", nargs="*", default=[], help="case ids to leave out, e.g. sklearn_arpack")
    parser.add_argument(
        "--task",
        choices=("score", "transform"),
        default="score",
        help="fit + score the test images (the detector's work) or fit + transform them (KernelPCA's)",
    )
    parser.add_argument("--profile", action="store_true", help="time the stages of our default fit + score instead")
    args = parser.parse_args()
    if args.profile:
        profile_stages(args.repeat, args.threads)
        return
    if args.case:
        print(json.dumps(run_case(args.case, args.scores_dir, args.repeat, args.threads, args.task)))
        return
    # PyOD's KPCA has no transform.
    skip = set(args.skip) | (set() if pyod_installed() and args.task == "score" else {"pyod"})
    print(
        f"train {N_TRAIN}, test {N_TEST_INLIERS} + {N_TEST_OUTLIERS}, {N_COMPONENTS} components; "
        f"fit + {args.task}, median of {args.repeat} runs, {args.threads} BLAS threads; {os.cpu_count()} cores; load average at start {os.getloadavg()}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as scores_dir:
        results = run_cases(
            __file__,
            CASES,
            [
                "--scores-dir",
                scores_dir,
                "--repeat",
                str(args.repeat),
                "--threads",
                str(args.threads),
                "--task",
                args.task,
            ],
            skip=skip,
        )
        print(f"\nload average at end {os.getloadavg()}\n")
        print_table(results, Path(scores_dir), args.task)


if __name__ == "__main__":
    main()
