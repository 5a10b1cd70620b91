"""Fit + score time and peak memory of kernel PCA against the number of training points.

Reconstruction-error scoring (Hoffmann) with ``--components`` kernel principal
components of an RBF kernel (gamma from the mean squared pairwise distance,
Das et al.), fitted on n points and scoring 2,000 others, for
n = 1k, 2k, 4k, 8k, 16k and 32k (``--sizes``). Contenders:

- kpca-bench exact kernel PCA with every default (``eigen_solver="auto"``) and
  with the block solver named explicitly;
- kpca-bench Nystrom kernel PCA with 200 and 1,000 random landmarks;
- scikit-learn ``KernelPCA`` with ``arpack`` and ``randomized``, and
  ``Nystroem`` (1,000 random landmarks) + ``PCA``, each with the same score
  written on top (as in ``bench_vs_peers.py``).

The data are a fixed mixture of 10 Gaussians in 16 dimensions (the SAS paper's
letters have 16 features but only 20,000 rows; the mixture reaches 32k). Each
(case, n) runs in its own process, so its peak resident memory is its own; a
case whose exact kernel would not fit in ``--max-gb`` (its own estimate: two
n x n float64 matrices for scikit-learn's exact solvers, one for ours) is
skipped and shown as such. The table goes to ``--out`` as CSV and markdown,
and a log-log figure of time and memory against n with the least-squares slope
of each line over n >= 2k.

    .venv/bin/python benchmarks/bench_scaling.py          # writes results/benchmarks/scaling.{csv,md,png}
"""

from __future__ import annotations

import argparse
import json
import os
import textwrap
import time
from pathlib import Path

import numpy as np
from subprocess_cases import peak_gb, run_cases
from threadpoolctl import threadpool_limits

N_TEST, N_FEATURES, N_CLUSTERS = 2000, 16, 10
CASES = {
    "kpca-bench exact (auto)": "ours_auto",
    "kpca-bench exact (block)": "ours_block",
    "kpca-bench Nystrom, 200 landmarks": "ours_nystrom200",
    "kpca-bench Nystrom, 1,000 landmarks": "ours_nystrom1000",
    "scikit-learn KernelPCA, arpack": "sklearn_arpack",
    "scikit-learn KernelPCA, randomized": "sklearn_randomized",
    "scikit-learn Nystroem (1,000) + PCA": "sklearn_nystroem1000",
}
# n x n float64 matrices a case holds at its peak (kernel, plus scikit-learn's centred copy).
DENSE_COPIES = {"ours_auto": 1, "ours_block": 1, "sklearn_arpack": 2, "sklearn_randomized": 2}


def mixture(n: int) -> tuple[np.ndarray, np.ndarray]:
    """n training and :data:`N_TEST` test points of one fixed Gaussian mixture."""
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 3, (N_CLUSTERS, N_FEATURES))
    X = centres[rng.integers(N_CLUSTERS, size=n + N_TEST)] + rng.normal(size=(n + N_TEST, N_FEATURES))
    return X[:n], X[n:]


def ours(case: str, k: int, gamma: float):
    from kpca_bench.methods.detector import KernelSubspaceDetector
    from kpca_bench.methods.kpca import KernelPCA
    from kpca_bench.methods.nystrom import NystromKernelPCA

    if case.startswith("ours_nystrom"):
        landmarks = int(case.removeprefix("ours_nystrom"))
        model = NystromKernelPCA(k, n_landmarks=landmarks, landmarks="random", gamma=gamma, random_state=0)
    else:
        params = {} if case == "ours_auto" else {"eigen_solver": case.removeprefix("ours_")}
        model = KernelPCA(k, gamma=gamma, random_state=0, **params)
    detector = KernelSubspaceDetector(model, outlier_score="reconstruction_error")
    return lambda train, test: -detector.fit(train).score_samples(test)


def sklearn_exact(solver: str, k: int, gamma: float):
    from sklearn.decomposition import KernelPCA
    from sklearn.metrics.pairwise import rbf_kernel

    def fit_score(train, test):
        model = KernelPCA(k, kernel="rbf", gamma=gamma, eigen_solver=solver, random_state=0).fit(train)
        projections = model.transform(test)
        sq_norms = 1.0 - 2.0 * rbf_kernel(test, train, gamma=gamma).mean(axis=1) + model._centerer.K_fit_all_
        return sq_norms - np.sum(projections**2, axis=1)

    return fit_score


def sklearn_nystroem(landmarks: int, k: int, gamma: float):
    """Nystroem features + PCA: the reconstruction error in the approximate feature space."""
    from sklearn.decomposition import PCA
    from sklearn.kernel_approximation import Nystroem

    def fit_score(train, test):
        features = Nystroem(gamma=gamma, n_components=landmarks, random_state=0).fit(train)
        pca = PCA(k, random_state=0).fit(features.transform(train))
        centred = features.transform(test) - pca.mean_
        return np.sum(centred**2, axis=1) - np.sum((centred @ pca.components_.T) ** 2, axis=1)

    return fit_score


def contender(case: str, k: int, gamma: float):
    if case.startswith("ours_"):
        return ours(case, k, gamma)
    if case.startswith("sklearn_nystroem"):
        return sklearn_nystroem(int(case.removeprefix("sklearn_nystroem")), k, gamma)
    return sklearn_exact(case.removeprefix("sklearn_"), k, gamma)


def run_case(case: str, n: int, k: int, threads: int) -> dict:
    from kpca_bench.kernels import mean_pairwise_sq_distance

    train, test = mixture(n)
    gamma = 1.0 / (2.0 * mean_pairwise_sq_distance(train))
    fit_score = contender(case, k, gamma)
    with threadpool_limits(limits=threads):
        start = time.perf_counter()
        fit_score(train, test)
        seconds = time.perf_counter() - start
    return {"case": case, "n": n, "seconds": seconds, "peak_gb": peak_gb()}


def fits_in_memory(case: str, n: int, max_gb: float) -> bool:
    return DENSE_COPIES.get(case, 0) * 8 * n**2 / 2**30 <= max_gb


def slope(rows: list[dict], key: str) -> float:
    """Least-squares slope of log(key) against log(n) over n >= 2,000."""
    points = [(r["n"], r[key]) for r in rows if r["n"] >= 2000]
    if len(points) < 2:
        return float("nan")
    n, y = np.log(np.array(points)).T
    return float(np.polyfit(n, y, 1)[0])


def write_table(rows: list[dict], skipped: list[tuple[str, int]], out: Path, header: str) -> None:
    import pandas as pd

    table = pd.DataFrame(rows)
    table.to_csv(out / "scaling.csv", index=False)
    seconds = table.pivot(index="label", columns="n", values="seconds").reindex(list(CASES))
    memory = table.pivot(index="label", columns="n", values="peak_gb").reindex(list(CASES))
    lines = [
        header,
        "",
        "Fit + score time (s); `–`: not run (its dense kernel would exceed the memory cap)",
        "",
        _markdown(seconds, "{:.2f}", {label: slope(_rows(rows, label), "seconds") for label in CASES}),
        "",
        "Peak resident memory (GB)",
        "",
        _markdown(memory, "{:.2f}", {label: slope(_rows(rows, label), "peak_gb") for label in CASES}),
    ]
    if skipped:
        lines += ["", "Not run: " + ", ".join(f"{label} at n = {n:,}" for label, n in skipped)]
    (out / "scaling.md").write_text("\n".join(lines) + "\n")


def _rows(rows: list[dict], label: str) -> list[dict]:
    return [r for r in rows if r["label"] == label]


def _markdown(table, fmt: str, slopes: dict[str, float]) -> str:
    columns = list(table.columns)
    head = "| contender | " + " | ".join(f"n = {n:,}" for n in columns) + " | slope (n >= 2k) |"
    rule = "|---" * (len(columns) + 2) + "|"
    body = [
        f"| {label} | " + " | ".join("–" if np.isnan(v) else fmt.format(v) for v in row) + f" | {slopes[label]:.2f} |"
        for label, row in table.iterrows()
    ]
    return "\n".join([head, rule, *body])


def plot(rows: list[dict], out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    for ax, key, ylabel in ((axes[0], "seconds", "fit + score time (s)"), (axes[1], "peak_gb", "peak memory (GB)")):
        for label in CASES:
            points = sorted((r["n"], r[key]) for r in _rows(rows, label))
            if points:
                n, y = zip(*points)
                ax.loglog(n, y, "o-", label=f"{label} (slope {slope(_rows(rows, label), key):.2f})")
        ax.set_xlabel("training points n")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(textwrap.fill(title, 150), fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", help=argparse.SUPPRESS)  # a child process: run one case, print JSON
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 16000, 32000])
    parser.add_argument("--components", type=int, default=15)
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="BLAS threads per case")
    parser.add_argument("--max-gb", type=float, default=18.0, help="skip cases whose dense kernels exceed this")
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks"))
    parser.add_argument("--plot-only", action="store_true", help="redraw the figure from OUT/scaling.csv")
    args = parser.parse_args()
    if args.plot_only:
        import pandas as pd

        plot(
            pd.read_csv(args.out / "scaling.csv").to_dict("records"),
            args.out,
            (args.out / "scaling.md").read_text().splitlines()[0],
        )
        return
    common = ["--components", str(args.components), "--threads", str(args.threads)]
    if args.case:
        print(json.dumps(run_case(args.case, args.n, args.components, args.threads)))
        return
    header = (
        f"{args.components} components, RBF, {N_TEST:,} test points, {N_FEATURES}-d Gaussian mixture; "
        f"{args.threads} BLAS threads, {os.cpu_count()} cores; load average at start {os.getloadavg()}"
    )
    print(header, flush=True)
    rows, skipped = [], []
    for n in args.sizes:
        print(f"n = {n:,}", flush=True)
        skip = {case for case in CASES.values() if not fits_in_memory(case, n, args.max_gb)}
        skipped += [(label, n) for label, case in CASES.items() if case in skip]
        for label, result in run_cases(__file__, CASES, ["--n", str(n), *common], skip=skip).items():
            rows.append({"label": label, **result})
    header += f"; load average at end {os.getloadavg()}"
    args.out.mkdir(parents=True, exist_ok=True)
    write_table(rows, skipped, args.out, header)
    plot(rows, args.out, header)
    print((args.out / "scaling.md").read_text())


if __name__ == "__main__":
    main()
