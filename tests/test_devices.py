"""Choosing the device (kpca_bench.devices): one-line errors naming what is missing, the memory rule on a fake
device reporting little free memory, the config key ``execution.device`` and the record's ``device`` field."""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from threadpoolctl import threadpool_limits
from typer.testing import CliRunner

from kpca_bench import devices
from kpca_bench.cli import app
from kpca_bench.devices import (
    DEVICE_MEMORY_SHARE,
    DeviceError,
    DeviceMemoryError,
    DevicePlan,
    Phase,
    block_rows,
    check_fits,
    largest_fitting_n,
    solver_plan,
    to_numpy,
)
from kpca_bench.eigensolvers import block_sizes, choose_solver
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.kernels import make_kernel
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.experiment.store import ResultStore

QUICKSTART = Path(__file__).parents[1] / "configs" / "quickstart.yaml"
NO_LIBRARY = "neither CuPy nor PyTorch is installed: pip install 'kpca-bench[gpu]'"


def libraries(**present):
    """A stand-in for devices._import that finds only the given modules."""
    return lambda name: present.get(name)


def torch_without_cuda():
    return SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: False))


def test_cuda_without_a_gpu_library_names_the_missing_libraries(monkeypatch):
    monkeypatch.setattr(devices, "_import", libraries())
    with pytest.raises(DeviceError, match=NO_LIBRARY.replace("[", r"\[").replace("]", r"\]")):
        devices.cuda_library()


def test_cuda_without_a_device_names_the_library_that_sees_none(monkeypatch):
    monkeypatch.setattr(devices, "_import", libraries(torch=torch_without_cuda()))
    with pytest.raises(DeviceError, match="no CUDA device is visible to torch: run on a machine with an NVIDIA GPU"):
        devices.cuda_library()


def cupy_device(number: int):
    """A stand-in for ``cupy.cuda.Device(number)``: what device_name reads of one (its module and ``id``)."""
    return type("Device", (), {"__module__": "cupy.cuda.device", "id": number})()


@pytest.mark.parametrize(
    "device, name",
    [
        (None, None),
        ("cpu", "cpu"),
        ("cuda", "cuda"),
        ("cuda:0", "cuda:0"),
        ("cuda:1", "cuda:1"),
        (cupy_device(1), "cuda:1"),
    ],
)
def test_devices_are_read_as_the_libraries_write_them(device, name):
    assert devices.device_name(device) == name
    assert devices.is_cuda(device) == (name is not None and name.startswith("cuda"))
    assert devices.cuda_index(device) == (int(name[5:]) if name and name.startswith("cuda:") else None)


def test_torch_devices_are_read_as_torch_writes_them():
    torch = pytest.importorskip("torch")
    assert devices.device_name(torch.device("cuda", 0)) == "cuda:0"
    assert devices.device_name(torch.device("cuda")) == "cuda"
    assert devices.device_name(torch.device("cpu")) == "cpu"


@pytest.mark.parametrize("device", ["gpu", "mps", "cuda:", "cuda:one", "CUDA", 0])
def test_an_unknown_device_is_one_line_naming_the_accepted_forms(device):
    with pytest.raises(
        DeviceError,
        match=rf"^unknown device {re.escape(repr(device))}; accepted: cpu, cuda, cuda:N "
        r"\(the GPU numbered N\), a torch.device or a CuPy Device$",
    ):
        devices.device_name(device)
    with pytest.raises(ValueError, match=r"'device' parameter of KernelPCA must be a device \(cpu, cuda, cuda:N"):
        KernelPCA(3, device=device).fit(np.eye(5))


def test_cuda_n_without_a_gpu_is_one_line_naming_the_device(monkeypatch):
    monkeypatch.setattr(devices, "_import", libraries(torch=torch_without_cuda()))
    for device in ("cuda:0", "cuda:1", cupy_device(0)):
        name = devices.device_name(device)
        with pytest.raises(
            DeviceError,
            match=rf"^device '{name}' needs a CUDA GPU with PyTorch or CuPy; this machine "
            "has none: no CUDA device is visible to torch",
        ):
            KernelPCA(3, device=device).fit(np.eye(5))


def test_cuda_n_beyond_the_gpus_there_names_those_there(monkeypatch):
    one_gpu = SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: True, device_count=lambda: 1))
    monkeypatch.setattr(devices, "_import", libraries(torch=one_gpu))
    with pytest.raises(
        DeviceError,
        match=r"^device 'cuda:1' needs a CUDA GPU with PyTorch or CuPy; torch sees only 1 "
        r"CUDA device\(s\), cuda:0 to cuda:0: use one of those",
    ):
        devices.check_device("cuda:1")


def test_a_torch_cuda_device_without_a_gpu_is_one_line_here():
    """With the libraries this machine has (PyTorch on the CPU, or none): refused before any work."""
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    with pytest.raises(
        DeviceError,
        match=r"^device 'cuda:0' needs a CUDA GPU with PyTorch or CuPy; this machine has "
        r"none: no CUDA device is visible to (cupy or )?torch",
    ):
        KernelPCA(3, device=torch.device("cuda", 0)).fit(np.eye(5))


def test_torch_cpu_device_is_the_numpy_path():
    torch = pytest.importorskip("torch")
    X = np.random.default_rng(0).standard_normal((30, 3))
    model = KernelPCA(3, device=torch.device("cpu")).fit(X)
    assert isinstance(model.dual_coef_, np.ndarray)
    assert_allclose(model.eigenvalues_, KernelPCA(3).fit(X).eigenvalues_, rtol=0, atol=0)


def test_to_target_sends_a_reversed_host_view_contiguous():
    """The one way host arrays go to a device: a reversed view (negative stride) arrives contiguous, in the dtype
    asked for; PyTorch refuses such a view given directly."""
    torch = pytest.importorskip("torch")
    xp = devices.namespace(torch.empty(0))
    reversed_view = np.arange(6.0).reshape(2, 3)[:, ::-1]
    with pytest.raises(ValueError, match="negative"):
        torch.asarray(reversed_view)
    sent = devices.to_target(reversed_view, (xp, torch.device("cpu")), dtype=torch.float32)
    assert sent.dtype == torch.float32 and sent.is_contiguous()
    assert_allclose(sent.numpy(), reversed_view)


def test_an_estimator_asking_for_cuda_fails_before_any_work(monkeypatch):
    monkeypatch.setattr(devices, "_import", libraries())
    with pytest.raises(DeviceError, match="neither CuPy nor PyTorch"):
        KernelPCA(3, device="cuda").fit(np.eye(5))


def test_a_cpu_run_records_no_gpu():
    assert devices.device_fields(None) == {"device": "cpu"} == devices.device_fields("cpu")


def test_largest_fitting_n_solves_the_memory_rule_exactly():
    n, d, plan = 1000, 5, DevicePlan(solving=Phase(1, 130), after=Phase(1, 10), held="")
    free = (n * n + n * (d + 130)) * 8 / DEVICE_MEMORY_SHARE
    assert largest_fitting_n(free, d, plan) == n
    assert largest_fitting_n(free * (1 - 1e-6), d, plan) == n - 1
    assert largest_fitting_n(80e9, 16, plan) == pytest.approx(math.sqrt(0.8 * 80e9 / 8), rel=0.01)
    two_kernels = DevicePlan(Phase(2, 130), Phase(1, 10), "")
    assert largest_fitting_n(80e9, 16, two_kernels) == pytest.approx(math.sqrt(0.4 * 80e9 / 8), rel=0.01)
    # The phase after the solve binds where it holds more: n^2 + n (5 + 2000) at n = 1000 is 3,005,000 numbers.
    late = DevicePlan(Phase(1, 130), Phase(1, 2000), "")
    assert largest_fitting_n(3_005_000 * 8 / DEVICE_MEMORY_SHARE, d, late) == 1000


# Room for 49,100 float64 numbers (80 % of the fake device's free memory): 100 points of 5 features under the block
# solver's plan for 3 components. By hand: block_sizes(3) is b = 32, m = 128, so the plan holds
# 2 + 2 m + b + max(3 b, m - 2 b, 3 k) = 2 + 256 + 32 + max(96, 64, 9) = 386 vectors of length n besides the
# kernel and the data: 100^2 + 100 (5 + 386) = 49,100.
ROOM = 49_100


@pytest.fixture
def small_device(monkeypatch):
    """array_api_strict's CPU device made to report free memory for :data:`ROOM` numbers of float64."""
    free = ROOM * 8 / DEVICE_MEMORY_SHARE
    monkeypatch.setattr(devices, "free_memory_bytes", lambda xp, device: free)
    return pytest.importorskip("array_api_strict"), free


def test_n_beyond_the_free_memory_names_the_plan_and_the_largest_n_that_fits(small_device):
    xp, free = small_device
    X = np.random.default_rng(0).standard_normal((101, 5))
    planned = (101 * 101 + 101 * (5 + 386)) * 8
    with pytest.raises(
        DeviceMemoryError,
        match=rf"n = 101 points plans {planned / 2**10:.1f} KiB on .*CPU_DEVICE.* "
        r"\(the n x n kernel and the block solver's basis, the data and "
        r"vectors of length n\), more than 80% of "
        rf"its {free / 2**10:.1f} KiB free \({0.8 * free / 2**10:.1f} KiB\): "
        r"the largest n that fits is 100; subsample the training data or use "
        r"NystromKernelPCA",
    ):
        KernelPCA(3, eigen_solver="block").fit(xp.asarray(X))
    block, basis = block_sizes(3)
    check_fits(100, 5, solver_plan("block", 3, basis, block), (xp, None))  # (the block solver needs m < n to run)


# The largest n of each solver in the same room, by hand (d = 5, k = 3):
# arpack holds the kernel and 2 + k = 5 vectors while ARPACK runs on the host, then 2 + 2 k = 8: n^2 + 13 n;
#   215: 46,225 + 2,795 = 49,020 <= 49,100 < 216: 46,656 + 2,808 = 49,464.
# eigh holds two n x n matrices, dsyevd's workspace (2 n^2 + 6 n + 1, counted as 2 n^2 + 7 n) and 3 + 2 k = 9
#   vectors, then one and 8 vectors: 4 n^2 + 21 n; 108: 46,656 + 2,268 = 48,924 <= 49,100 < 109: 47,524 + 2,289
#   = 49,813.
# arpack in float32 has twice the room in numbers, 98,200, and measures its residuals after the solve with
#   2 + 4 k = 14 vectors: n^2 + 19 n; 304: 92,416 + 5,776 = 98,192 <= 98,200 < 305: 93,025 + 5,795 = 98,820.
@pytest.mark.parametrize(
    "solver, dtype, largest, held",
    [
        ("arpack", "float64", 215, "the n x n kernel, solved by ARPACK on a host copy"),
        ("eigh", "float64", 108, "the n x n kernel, eigh's n x n eigenvectors and workspace"),
        ("arpack", "float32", 304, "the n x n kernel, solved by ARPACK on a host copy"),
    ],
)
def test_each_solver_plans_what_it_holds_on_the_device(small_device, solver, dtype, largest, held):
    xp, _ = small_device
    X = np.random.default_rng(0).standard_normal((largest + 1, 5))
    model = KernelPCA(3, eigen_solver=solver, random_state=0, dtype=dtype)
    with pytest.raises(
        DeviceMemoryError,
        match=rf"n = {largest + 1} points .*\({re.escape(held)}.* the largest n "
        rf"that fits is {largest};",
    ):
        model.fit(xp.asarray(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # float32's accuracy warning
        model.fit(xp.asarray(X[:largest]))  # the largest n fits


def test_auto_plans_the_solver_it_runs_on_a_device(small_device, monkeypatch):
    """auto's eigh for few points; where auto picks arpack on the host (one BLAS thread), the device runs (and plans) the block
    solver: with room for 2,000 points under the block plan (2,000^2 + 2,000 (5 + 386) = 4,782,000 numbers) the
    arpack plan would take 2,180."""
    xp, _ = small_device
    X = np.random.default_rng(0).standard_normal((2001, 5))
    with pytest.raises(
        DeviceMemoryError, match="eigh's n x n eigenvectors and workspace.* the largest n that fits is 108;"
    ):
        KernelPCA(3, eigen_solver="auto").fit(xp.asarray(X[:109]))
    monkeypatch.setattr(devices, "free_memory_bytes", lambda xp, device: 4_782_000 * 8 / DEVICE_MEMORY_SHARE)
    with (
        threadpool_limits(limits=1),
        pytest.raises(DeviceMemoryError, match="block solver's basis.* the largest n that fits is 2,000;"),
    ):
        assert choose_solver(2001, 3) == "arpack"  # on the host, with one BLAS thread
        KernelPCA(3, eigen_solver="auto").fit(xp.asarray(X))


def test_kernel_blocks_are_sized_from_the_free_memory_and_give_the_same_kernel(small_device):
    xp, free = small_device
    assert block_rows(100, (xp, None)) == int(free / 4 // (8 * 100))
    X = np.random.default_rng(1).standard_normal((300, 5))
    kernel = make_kernel(X, "rbf", gamma=0.2)
    assert block_rows(300, (xp, None)) < 300  # several blocks
    assert_allclose(to_numpy(kernel(xp.asarray(X))), kernel(X), rtol=1e-12, atol=1e-12)


def write_config(tmp_path, execution: str) -> Path:
    path = tmp_path / "quickstart.yaml"
    path.write_text(QUICKSTART.read_text() + f"execution: {execution}\n")
    return path


def test_execution_device_is_a_config_key_that_changes_no_cell_key(tmp_path):
    on_gpu, plain = load_config(write_config(tmp_path, "{device: cuda}")), load_config(QUICKSTART)
    assert on_gpu.execution.device == "cuda" and plain.execution.device is None
    assert on_gpu.config_hash() == plain.config_hash()
    assert [c.key for c in plan_cells(on_gpu)] == [c.key for c in plan_cells(plain)]


def test_an_unknown_device_is_one_config_error(tmp_path):
    result = CliRunner().invoke(app, ["run", str(write_config(tmp_path, "{device: gpu}")), "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "execution.device: unknown device 'gpu'" in result.stderr and "accepted: cpu, cuda" in result.stderr


def test_execution_device_takes_a_gpu_number(tmp_path):
    assert load_config(write_config(tmp_path, "{device: 'cuda:1'}")).execution.device == "cuda:1"


def test_a_run_asking_for_cuda_0_without_a_gpu_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.setattr(devices, "_import", libraries(torch=torch_without_cuda()))
    result = CliRunner().invoke(
        app, ["run", str(write_config(tmp_path, "{device: 'cuda:0'}")), "--out", str(tmp_path / "out"), "--quiet"]
    )
    assert result.exit_code == 2, result.output + result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(
        "error: device 'cuda:0' needs a CUDA GPU with PyTorch or CuPy; this machine has none"
    )


def test_a_run_asking_for_cuda_without_one_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.setattr(devices, "_import", libraries())
    result = CliRunner().invoke(
        app, ["run", str(write_config(tmp_path, "{device: cuda}")), "--out", str(tmp_path / "out"), "--quiet"]
    )
    assert result.exit_code == 2, result.output + result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ") and NO_LIBRARY in result.stderr
    assert not (tmp_path / "out").exists()


def test_each_record_stores_its_device(tmp_path):
    config = write_config(tmp_path, "{device: cpu}")
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "--quiet", "--trials", "1"])
    assert result.exit_code == 0, result.output + result.stderr
    records = ResultStore(tmp_path / "out" / "quickstart").records()
    assert records and {r["device"] for r in records} == {"cpu"}
    trials = pd.read_csv(tmp_path / "out" / "quickstart" / "trials.csv")
    assert set(trials["device"]) == {"cpu"}
    environment = json.loads((tmp_path / "out" / "quickstart" / "environment.json").read_text())["environments"][-1]
    assert "gpu" not in environment


def test_a_cell_is_labelled_cuda_only_where_its_estimator_computes_there():
    from sklearn.ensemble import IsolationForest

    from kpca_bench.experiment.execution import computes_on
    from kpca_bench.methods.baselines import KernelOneClassSVM
    from kpca_bench.methods.detector import KernelSubspaceDetector
    from kpca_bench.methods.nystrom import NystromKernelPCA
    from kpca_bench.methods.sparse_admm import L1SparseKernelPCA

    for estimator in (KernelPCA(), NystromKernelPCA(), KernelSubspaceDetector(KernelPCA()), KernelSubspaceDetector()):
        assert computes_on(estimator, "cuda") == "cuda"
        assert computes_on(estimator, None) == computes_on(estimator, "cpu") == "cpu"
    assert computes_on(KernelPCA(device="cuda"), None) == "cuda"  # a method's own params: {device: cuda}
    assert computes_on(KernelPCA(), "cuda:1") == computes_on(KernelPCA(device="cuda:1"), "cpu") == "cuda:1"
    assert computes_on(KernelPCA(device="cpu"), "cuda") == "cpu"
    for host_only in (
        IsolationForest(),
        KernelOneClassSVM(),
        L1SparseKernelPCA(),
        KernelSubspaceDetector(L1SparseKernelPCA()),
    ):
        assert computes_on(host_only, "cuda") == "cpu"


def test_a_cuda_run_labels_only_its_kernel_pca_cells_cuda(tmp_path, monkeypatch):
    """A stand-in CUDA device (array_api_strict's device1): the KPCA cells are cuda with a GPU model, OCSVM's and
    IForest's, which compute on the host, cpu without one."""
    xp = pytest.importorskip("array_api_strict")
    monkeypatch.setattr(devices, "cuda_library", lambda device="cuda": (xp, xp.Device("device1")))
    monkeypatch.setattr(devices, "gpu_model", lambda xp, device: "Stand-in GPU")
    config = write_config(tmp_path, "{device: cuda}")
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "--quiet", "--trials", "1"])
    assert result.exit_code == 0, result.output + result.stderr
    records = ResultStore(tmp_path / "out" / "quickstart").records()
    assert {r["status"] for r in records} == {"ok"}
    by_method = {r["method"]: (r["device"], r.get("gpu_model")) for r in records}
    assert by_method["KPCA"] == by_method["KPCA-Mahalanobis"] == ("cuda", "Stand-in GPU")
    assert {device for label, device in by_method.items() if not label.startswith("KPCA")} == {("cpu", None)}
    environment = json.loads((tmp_path / "out" / "quickstart" / "environment.json").read_text())["environments"][-1]
    assert environment["gpu"]["model"] == "Stand-in GPU"


def test_a_cpu_run_names_no_gpu_even_with_a_gpu_library_imported(tmp_path, monkeypatch):
    """Whether the environment names a GPU follows the run's devices, not what the process has imported."""
    xp = pytest.importorskip("array_api_strict")
    monkeypatch.setattr(devices, "cuda_library", lambda device="cuda": (xp, xp.Device("device1")))
    monkeypatch.setattr(devices, "gpu_model", lambda xp, device: "Stand-in GPU")
    monkeypatch.setitem(__import__("sys").modules, "torch", SimpleNamespace(__version__="0"))
    config = write_config(tmp_path, "{device: cpu}")
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "--quiet", "--trials", "1"])
    assert result.exit_code == 0, result.output + result.stderr
    environment = json.loads((tmp_path / "out" / "quickstart" / "environment.json").read_text())["environments"][-1]
    assert "gpu" not in environment


@pytest.mark.parametrize("device", ["cuda", "'cuda:1'"])
def test_a_method_asking_for_cuda_without_one_is_one_line_and_exit_2(tmp_path, monkeypatch, device):
    monkeypatch.setattr(devices, "_import", libraries())
    entry = "      n_components: 10\n"
    text = QUICKSTART.read_text().replace(entry, f"{entry}      device: {device}\n", 1)
    assert f"device: {device}" in text
    path = tmp_path / "quickstart.yaml"
    path.write_text(text)
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 2, result.output + result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ") and NO_LIBRARY in result.stderr
    assert f"device {device.strip(chr(39))!r} needs a CUDA GPU with PyTorch or CuPy" in result.stderr
    assert not (tmp_path / "out").exists()
