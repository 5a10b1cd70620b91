"""Exact kernel PCA on a GPU against our CPU path and scikit-learn, on the same machine in the same run.

Three cases, each fit + certificate (the block solver's residuals ``||K u - lambda u||``), float64:

* letters, n = 16,000, top 200: the first 16,000 rows of a seeded permutation of the letter data
  (``KPCA_BENCH_DATA``); on the GPU, on our CPU path (every core, ``eigen_solver="block"``) and with
  scikit-learn's ``KernelPCA(eigen_solver="randomized")`` on the same kernel width; the GPU in float32 too;
* MNIST, n = 60,000 (784 features), top 15, on the GPU;
* n = 100,000, top 200, on the GPU (an 80 GB kernel: it needs an H200's memory; on a smaller GPU the
  row says which n would fit). Stand-in data: the letter data resampled with Gaussian jitter (sd 0.5).

Without ``KPCA_BENCH_DATA`` every case uses seeded random integers in [0, 16) of the same shape
(the stand-in of ``bench_eigensolvers.py``), and the table says so. The RBF width is Das et al.'s
``mean_pairwise`` for each case's data. GPU times include moving X to the device and exclude one
warm-up fit on 1,000 points (CUDA's context and libraries' start-up).

The Markdown table (``--out``, default ``results/benchmarks/gpu.md``) gives each path's time, its worst
residual relative to lambda_1 and its largest eigenvalue difference relative to lambda_1 from our
CPU path, the machine, and the issue's targets with whether each is met (computed from the table). Each
row is appended to it, and to its tab-separated twin (the same path with ``.tsv``), and synced to disk as
soon as it is measured, so a run cut short (a time limit's SIGTERM) leaves the rows it finished and a line
saying it was cut; the targets follow only a run that finished.

    KPCA_BENCH_DATA=/work/shared/datasets python benchmarks/bench_gpu.py        # on a CUDA machine, < 5 min
    python benchmarks/bench_gpu.py --quick --out /tmp/gpu.md                     # tiny sizes, CPU only

``--quick`` runs tiny sizes with ``array_api_strict`` on the CPU standing in for the GPU library, so
the whole script is tested without a GPU (``tests/test_gpu.py``). Without ``--quick`` and without a
CUDA device it stops with one line naming what is missing, exit 2.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import signal
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kpca_bench.devices import DeviceError, cuda_library, gpu_environment, to_numpy
from kpca_bench.errors import KpcaBenchError
from kpca_bench.kernels import resolve_gamma
from kpca_bench.methods.kpca import KernelPCA

OUT = Path(__file__).resolve().parents[1] / "results" / "benchmarks" / "gpu.md"
# The targets, judged in the "Targets" table the run appends to gpu.md.
TARGET_SPEEDUP = 20.0
TARGET_LARGEST_SECONDS = 3.0
TARGET_RESIDUAL = 1e-8
TARGET_AGREEMENT = 1e-8


@dataclass(frozen=True)
class Case:
    name: str
    dataset: str
    n: int
    k: int
    on_cpu: bool  # our CPU path, scikit-learn and float32 on the GPU as well


CASES = (
    Case("letters", "letter_recognition", 16_000, 200, True),
    Case("MNIST", "mnist", 60_000, 15, False),
    Case("n = 100,000", "letter_recognition", 100_000, 200, False),
)
QUICK_CASES = (
    Case("letters", "letter_recognition", 300, 10, True),
    Case("MNIST", "mnist", 300, 5, False),
    Case("largest", "letter_recognition", 400, 10, False),
)


@dataclass(frozen=True)
class Row:
    case: str
    n: int
    k: int
    path: str
    seconds: float | None
    residual: float | None  # worst ||K u - lambda u|| / lambda_1
    agreement: float | None  # max |lambda - lambda_cpu| / lambda_1
    note: str = ""


def load_case(case: Case, quick: bool) -> tuple[np.ndarray, str]:
    """The case's n rows and where they come from (the data, or the documented stand-in)."""
    rng = np.random.default_rng(0)
    missing = "KPCA_BENCH_DATA not set"
    if os.environ.get("KPCA_BENCH_DATA"):
        from kpca_bench.datasets import load_dataset

        try:
            X = load_dataset(case.dataset, offline=True).X.astype(np.float64)
        except KpcaBenchError as error:  # the stand-in below, and the table says why
            missing = str(error)
        else:
            if case.n <= len(X):
                return X[rng.permutation(len(X))[: case.n]], case.dataset
            jittered = X[rng.integers(0, len(X), case.n)] + rng.normal(0, 0.5, (case.n, X.shape[1]))
            return jittered, f"{case.dataset} resampled with jitter (sd 0.5)"
    features = 784 if case.dataset == "mnist" else 16
    if quick and case.dataset == "mnist":
        features = 50
    return rng.integers(0, 16, size=(case.n, features)).astype(np.float64), f"random integers in [0, 16) ({missing})"


def fit_timed(X, k: int, **params) -> tuple[float, KernelPCA]:
    """Seconds of a block-solver fit (until its eigenvalues are on the host) and the model."""
    start = time.perf_counter()
    model = KernelPCA(k, eigen_solver="block", random_state=0, **params).fit(X)
    to_numpy(model.eigenvalues_)  # waits for the device
    return time.perf_counter() - start, model


def certificate(model) -> float:
    values, residuals = to_numpy(model.eigenvalues_), to_numpy(model.eigen_residuals_)
    return float(np.max(residuals) / values[0])


def agreement(values, reference: np.ndarray) -> float:
    return float(np.max(np.abs(to_numpy(values)[: len(reference)] - reference)) / reference[0])


def gpu_rows(case: Case, X: np.ndarray, gamma: float, device: dict, cpu_values: np.ndarray | None) -> Iterator[Row]:
    """The device's rows, each yielded as soon as it is measured."""
    for dtype in ("float64", "float32") if case.on_cpu else ("float64",):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                seconds, model = fit_timed(device["input"](X), case.k, gamma=gamma, dtype=dtype, **device["params"])
        except Exception as error:  # noqa: BLE001 - a case that does not fit is a row saying why, not a crash
            yield Row(
                case.name,
                case.n,
                case.k,
                f"{device['name']} {dtype}",
                None,
                None,
                None,
                f"{type(error).__name__}: {error}",
            )
            continue
        note = next((str(w.message).split(";")[0] for w in caught if "float32" in str(w.message)), "")
        yield Row(
            case.name,
            case.n,
            case.k,
            f"{device['name']} {dtype}",
            seconds,
            certificate(model),
            None if cpu_values is None else agreement(model.eigenvalues_, cpu_values),
            note,
        )


def cpu_rows(case: Case, X: np.ndarray, gamma: float) -> tuple[list[Row], np.ndarray]:
    from sklearn.decomposition import KernelPCA as SklearnKernelPCA

    seconds, ours = fit_timed(X, case.k, gamma=gamma)
    values = ours.eigenvalues_
    start = time.perf_counter()
    theirs = SklearnKernelPCA(case.k, kernel="rbf", gamma=gamma, eigen_solver="randomized", random_state=0).fit(X)
    sklearn_seconds = time.perf_counter() - start
    return [
        Row(
            case.name,
            case.n,
            case.k,
            f"kpca-bench CPU ({os.cpu_count()} cores, block)",
            seconds,
            certificate(ours),
            0.0,
        ),
        Row(
            case.name,
            case.n,
            case.k,
            f"scikit-learn randomized ({os.cpu_count()} cores)",
            sklearn_seconds,
            None,
            agreement(theirs.eigenvalues_, values),
        ),
    ], values


def targets(rows: list[Row], device_path: str, largest_case: str, compared_case: str) -> list[tuple[str, ...]]:
    """The issue's targets as (target, wanted, measured, met) from the rows; met is 'yes', 'no' or 'not measured'.

    ``device_path``: the path of the float64 device rows (``"GPU float64"``).
    """

    def seconds(case, prefix):
        return next(
            (r.seconds for r in rows if r.case == case and r.path.startswith(prefix) and r.seconds is not None), None
        )

    gpu, cpu = seconds(compared_case, device_path), seconds(compared_case, "kpca-bench")
    largest = seconds(largest_case, device_path)
    float64 = [r for r in rows if r.path.endswith("float64") and r.residual is not None]
    agreed = [r.agreement for r in float64 if r.agreement is not None]
    checks = [
        (
            "GPU float64 speed-up over our CPU path",
            f">= {TARGET_SPEEDUP:g}x",
            None if gpu is None or cpu is None else cpu / gpu,
            lambda v: v >= TARGET_SPEEDUP,
            "{:.1f}x",
        ),
        (
            f"{largest_case} on the device",
            f"<= {TARGET_LARGEST_SECONDS:g} s",
            largest,
            lambda v: v <= TARGET_LARGEST_SECONDS,
            "{:.2f} s",
        ),
        (
            "worst float64 residual / lambda_1",
            f"<= {TARGET_RESIDUAL:g}",
            max((r.residual for r in float64), default=None),
            lambda v: v <= TARGET_RESIDUAL,
            "{:.1e}",
        ),
        (
            "GPU eigenvalues vs our CPU path, / lambda_1",
            f"<= {TARGET_AGREEMENT:g}",
            max(agreed, default=None),
            lambda v: v <= TARGET_AGREEMENT,
            "{:.1e}",
        ),
    ]
    return [
        (
            name,
            wanted,
            "-" if value is None else fmt.format(value),
            "not measured" if value is None else ("yes" if met(value) else "no"),
        )
        for name, wanted, value, met, fmt in checks
    ]


def machine(device: dict) -> str:
    from kpca_bench.experiment.environment import cpu_model

    gpu = gpu_environment(used=True) if device["name"] == "GPU" else None
    where = (
        "no GPU (--quick: array_api_strict on the CPU stands in for the GPU library)"
        if gpu is None
        else f"{gpu['model']}, libraries {gpu['libraries']}, CUDA driver {gpu.get('driver_version', '?')}"
    )
    return (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {where}; CPU {cpu_model()} "
        f"({os.cpu_count()} cores); Python {platform.python_version()}; "
        f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())} at the start"
    )


COLUMNS = (
    "case",
    "n",
    "top k",
    "path",
    "time (s)",
    "worst residual / lambda_1",
    "eigenvalues vs our CPU, max diff / lambda_1",
    "note",
    "data",
)


class Table:
    """The benchmark's Markdown table and its TSV twin, written row by row as the rows are measured.

    Parameters
    ----------
    out : Path
        The Markdown file; the TSV file is ``out`` with the suffix ``.tsv``.
    started : str
        The machine line (:func:`machine`).
    """

    def __init__(self, out: Path, started: str):
        out.parent.mkdir(parents=True, exist_ok=True)
        self.markdown, self.tsv = out, out.with_suffix(".tsv")
        self.markdown.write_text("")
        self.tsv.write_text("")
        self.rows = 0
        self._append(
            self.markdown,
            [
                "# Exact kernel PCA on a GPU (benchmarks/bench_gpu.py)",
                "",
                f"Machine: {started}",
                "",
                f"| {' | '.join(COLUMNS)} |",
                "|---" * len(COLUMNS) + "|",
            ],
        )
        self._append(self.tsv, ["\t".join(COLUMNS)])

    @staticmethod
    def _append(path: Path, lines: list[str]) -> None:
        with path.open("a") as handle:  # synced: a run killed after this call still has the line on disk
            handle.write("".join(line + "\n" for line in lines))
            handle.flush()
            os.fsync(handle.fileno())

    def add(self, row: Row, data: str) -> None:
        """Append one measured row to both files."""
        cells = [
            row.case,
            f"{row.n:,}",
            str(row.k),
            row.path,
            "-" if row.seconds is None else f"{row.seconds:.2f}",
            "-" if row.residual is None else f"{row.residual:.1e}",
            "-" if row.agreement is None else f"{row.agreement:.1e}",
            row.note,
            data,
        ]
        self._append(self.markdown, [f"| {' | '.join(cell.replace('|', '/') for cell in cells)} |"])
        raw = [
            row.case,
            str(row.n),
            str(row.k),
            row.path,
            *("" if v is None else repr(v) for v in (row.seconds, row.residual, row.agreement)),
            row.note,
            data,
        ]
        self._append(self.tsv, ["\t".join(" ".join(cell.split()) for cell in raw)])
        self.rows += 1

    def finish(self, verdicts) -> None:
        """Append the targets' table: the run finished."""
        self._append(
            self.markdown,
            [
                "",
                "Targets, met or not as measured above:",
                "",
                "| target | wanted | measured | met |",
                "|---|---|---|---|",
                *(f"| {' | '.join(v)} |" for v in verdicts),
            ],
        )

    def cut(self, reason: str) -> None:
        """Append why the run stopped before its last row: the targets are not judged."""
        self._append(self.markdown, ["", f"Cut short ({reason}) after {self.rows} rows: the targets are not judged."])


def device_of_run(quick: bool) -> dict:
    """How the device path is run: the GPU, or with --quick array_api_strict arrays on the CPU."""
    if quick:
        import array_api_strict

        return {"name": "device (array_api_strict)", "input": array_api_strict.asarray, "params": {}}
    cuda_library()  # one line naming what is missing, before any work
    return {"name": "GPU", "input": lambda X: X, "params": {"device": "cuda"}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes on the CPU (array_api_strict), no GPU")
    parser.add_argument("--out", type=Path, default=OUT, help="the Markdown table's path")
    args = parser.parse_args(argv)
    try:
        device = device_of_run(args.quick)
    except DeviceError as error:
        print(f"error: {error}; or run benchmarks/bench_gpu.py --quick to test the script on the CPU", file=sys.stderr)
        return 2
    table = Table(args.out, machine(device))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a time limit's SIGTERM as SystemExit, caught below
    cases = QUICK_CASES if args.quick else CASES
    try:
        rows = run_cases(cases, device, args.quick, table)
    except BaseException as error:  # the limit, Ctrl-C or a crash: the rows so far stay, with a line saying so
        table.cut(type(error).__name__)
        raise
    table.finish(targets(rows, f"{device['name']} float64", cases[-1].name, cases[0].name))
    print(f"wrote {args.out} and {table.tsv}")
    return 0


def run_cases(cases, device: dict, quick: bool, table: Table) -> list[Row]:
    """Measure each case after a warm-up fit, each row written to ``table`` as soon as it is measured."""
    warmup = np.random.default_rng(1).standard_normal((1000 if not quick else 200, 16))
    fit_timed(device["input"](warmup), 5, **device["params"])
    rows = []
    for case in cases:
        X, source = load_case(case, quick)
        gamma = resolve_gamma(X)
        cpu, cpu_values = cpu_rows(case, X, gamma) if case.on_cpu else ([], None)
        for row in itertools.chain(cpu, gpu_rows(case, X, gamma, device, cpu_values)):
            table.add(row, source)
            print(f"{row.case}, {row.path}: {row.seconds} s", flush=True)
            rows.append(row)
    return rows


if __name__ == "__main__":
    sys.exit(main())
