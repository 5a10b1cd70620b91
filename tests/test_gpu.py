"""Kernel PCA on a CUDA device equals the NumPy path, and a config with ``execution: {device: cuda}`` runs end
to end; these run only where a GPU library sees a CUDA device. The benchmark script (benchmarks/bench_gpu.py)
is tested everywhere: its targets' verdicts on hand-built rows, and ``--quick`` end to end on the CPU."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.devices import DeviceError, cuda_library, namespace, to_numpy
from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.methods.nystrom import NystromKernelPCA
from kpca_bench.methods.scores import mahalanobis_distance, reconstruction_error
from kpca_bench.experiment.store import ResultStore

ROOT = Path(__file__).parents[1]
TOL = 1e-10


def cuda_or_reason():
    try:
        return cuda_library(), ""
    except DeviceError as error:
        return None, str(error)


CUDA, NO_CUDA = cuda_or_reason()
needs_cuda = pytest.mark.skipif(CUDA is None, reason=f"needs a CUDA device: {NO_CUDA}")


def bench_gpu():
    spec = importlib.util.spec_from_file_location("bench_gpu", ROOT / "benchmarks" / "bench_gpu.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 6))
    X[:5] += 4.0
    return X, rng.standard_normal((50, 6))


@needs_cuda
@pytest.mark.parametrize(
    "params",
    [
        {"eigen_solver": "eigh"},
        {"eigen_solver": "block", "random_state": 0},
        {"eigen_solver": "eigh", "kernel": "poly", "gamma": 0.2, "degree": 2},
    ],
)
def test_kernel_pca_on_cuda_equals_numpy(data, params):
    X, Y = data
    expected = KernelPCA(8, **params).fit(X)
    on_gpu = KernelPCA(8, device="cuda", **params).fit(X)
    assert not isinstance(on_gpu.dual_coef_, np.ndarray)  # the fitted arrays stay on the device
    assert_allclose(to_numpy(on_gpu.eigenvalues_), expected.eigenvalues_, rtol=TOL, atol=TOL)
    for score in (reconstruction_error, mahalanobis_distance):
        actual = score(on_gpu, Y)
        assert isinstance(actual, np.ndarray)  # NumPy in, NumPy out
        assert_allclose(actual, score(expected, Y), rtol=TOL, atol=TOL)


@needs_cuda
@pytest.mark.parametrize("asked", [None, "cuda"])
def test_arrays_on_the_device_stay_there(data, asked):
    X, Y = data
    xp, device = CUDA
    model = KernelPCA(8, eigen_solver="block", random_state=0, device=asked).fit(xp.asarray(X, device=device))
    assert namespace(model.X_fit_) is xp
    scores = reconstruction_error(model, xp.asarray(Y, device=device))
    assert namespace(scores) is xp
    assert_allclose(
        to_numpy(scores),
        reconstruction_error(KernelPCA(8, eigen_solver="block", random_state=0).fit(X), Y),
        rtol=TOL,
        atol=TOL,
    )


@needs_cuda
def test_cuda_0_and_the_librarys_own_device_name_the_gpu(data):
    X, _ = data
    xp, device = CUDA
    expected = KernelPCA(8, eigen_solver="block", random_state=0).fit(X)
    for asked in ("cuda:0", device):
        model = KernelPCA(8, eigen_solver="block", random_state=0, device=asked).fit(X)
        assert namespace(model.dual_coef_) is xp
        assert_allclose(to_numpy(model.eigenvalues_), expected.eigenvalues_, rtol=TOL, atol=TOL)


@needs_cuda
def test_float32_arrays_on_the_gpu_give_float32(data):
    X, Y = data
    xp, device = CUDA
    X32, Y32 = (xp.asarray(A.astype(np.float32), device=device) for A in (X, Y))
    with pytest.warns(UserWarning, match="dtype='float32'"):
        model = KernelPCA(8, eigen_solver="block", random_state=0).fit(X32)
    assert model.dual_coef_.dtype == reconstruction_error(model, Y32).dtype == xp.float32


@needs_cuda
def test_nystrom_and_detector_on_cuda_equal_numpy(data):
    X, Y = data
    params = {"n_landmarks": 40, "random_state": 0}
    assert_allclose(
        reconstruction_error(NystromKernelPCA(5, device="cuda", **params).fit(X), Y),
        reconstruction_error(NystromKernelPCA(5, **params).fit(X), Y),
        rtol=TOL,
        atol=TOL,
    )
    on_gpu = KernelSubspaceDetector(KernelPCA(5, device="cuda")).fit(X)
    expected = KernelSubspaceDetector(KernelPCA(5)).fit(X)
    assert_allclose(on_gpu.score_samples(Y), expected.score_samples(Y), rtol=TOL, atol=TOL)


@needs_cuda
def test_float32_on_cuda_warns_with_its_accuracy(data):
    X, _ = data
    with pytest.warns(UserWarning, match="dtype='float32': the eigenpairs' residuals reach"):
        KernelPCA(8, device="cuda", dtype="float32", eigen_solver="block", random_state=0).fit(X)


@needs_cuda
def test_a_config_on_cuda_runs_end_to_end_and_records_the_gpu(tmp_path):
    config = tmp_path / "quickstart.yaml"
    config.write_text((ROOT / "configs" / "quickstart.yaml").read_text() + "execution: {device: cuda}\n")
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "--quiet", "--trials", "1"])
    assert result.exit_code == 0, result.output + result.stderr
    folder = tmp_path / "out" / "quickstart"
    records = ResultStore(folder).records()
    # Only the kernel-PCA cells compute on the GPU; OCSVM and IForest compute on the host and say so.
    kpca = [r for r in records if r["method"].startswith("KPCA")]
    assert kpca and {r["device"] for r in kpca} == {"cuda"} and all(r["gpu_model"] for r in kpca)
    others = [r for r in records if not r["method"].startswith("KPCA")]
    assert others and {r["device"] for r in others} == {"cpu"} and not any(r.get("gpu_model") for r in others)
    assert json.loads((folder / "environment.json").read_text())["environments"][-1]["gpu"]["model"]


def row(module, path, seconds, residual=1e-9, agreement=None, case="letters"):
    return module.Row(case, 16_000, 200, path, seconds, residual, agreement)


def test_the_benchmark_targets_are_judged_from_the_rows():
    module = bench_gpu()
    met = [
        row(module, "GPU float64", 0.1, 6e-9, 9e-10),
        row(module, "kpca-bench CPU (16 cores, block)", 3.0, 2e-9, 0.0),
        row(module, "GPU float64", 2.5, 7e-9, case="large"),
    ]
    assert [v[3] for v in module.targets(met, "GPU float64", "large", "letters")] == ["yes"] * 4
    missed = [
        row(module, "GPU float64", 0.2, 2e-8, 2e-8),
        row(module, "kpca-bench CPU (16 cores, block)", 3.0),
        row(module, "GPU float64", 3.5, case="large"),
    ]
    verdicts = module.targets(missed, "GPU float64", "large", "letters")
    assert [v[3] for v in verdicts] == ["no"] * 4
    assert verdicts[0][2] == "15.0x"
    failed = [row(module, "GPU float64", None, None), row(module, "kpca-bench CPU (16 cores, block)", 3.0)]
    assert module.targets(failed, "GPU float64", "large", "letters")[0][3] == "not measured"


def test_the_benchmark_names_the_gpu_it_ran_on(monkeypatch):
    module = bench_gpu()
    stand_in = {"model": "Stand-in GPU", "libraries": {"torch": "2.11.0"}, "driver_version": 13000}
    monkeypatch.setattr(module, "gpu_environment", lambda used: stand_in if used else None)
    assert "; Stand-in GPU, libraries {'torch': '2.11.0'}, CUDA driver 13000; CPU " in module.machine({"name": "GPU"})


def test_the_benchmark_without_a_gpu_is_one_line_and_exit_2(monkeypatch, capsys):
    module = bench_gpu()
    monkeypatch.setattr(module, "cuda_library", lambda: (_ for _ in ()).throw(DeviceError("no CUDA device")))
    assert module.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: no CUDA device") and "--quick" in err


@pytest.mark.slow
def test_the_benchmark_runs_end_to_end_with_quick(tmp_path, monkeypatch):
    monkeypatch.delenv("KPCA_BENCH_DATA", raising=False)
    out = tmp_path / "gpu.md"
    assert bench_gpu().main(["--quick", "--out", str(out)]) == 0
    table = out.read_text()
    assert "| letters | 300 | 10 | device (array_api_strict) float64 |" in table
    assert "scikit-learn randomized" in table and "| worst float64 residual / lambda_1 | <= 1e-08 |" in table
