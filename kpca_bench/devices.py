"""Where the kernel-PCA arithmetic runs: the array namespace, the device, and the memory there.

NumPy arrays on the CPU take the library's NumPy path (threaded BLAS row blocks,
bit for bit the numbers it has always given). Any other array of the Python array
API standard (CuPy or PyTorch on a CUDA device, ``array-api-strict`` in the tests)
takes the array-API path, through ``array-api-compat`` as scikit-learn's
``array_api_dispatch`` does (``sklearn/utils/_array_api.py``). An estimator asked
for ``device="cuda"`` (or ``"cuda:N"``, a ``torch.device``, a CuPy ``Device``:
:func:`device_name`) moves NumPy input there and gives NumPy back; a run's
``execution.device`` sets that default for every cell (:func:`use_device`).

Every host array that goes to a device goes through :func:`to_target`, which
makes it contiguous first: PyTorch refuses NumPy views with negative strides
(a reversed ``eigh`` result), where NumPy and ``array-api-strict`` take them.

The GPU libraries are optional (``pip install 'kpca-bench[gpu]'``): nothing here
imports them until a CUDA device is asked for.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import array_api_compat
import numpy as np

from kpca_bench.errors import KpcaBenchError

DEVICES = ("cpu", "cuda")
# How a device may be named, for the errors (device_name reads each of them); a config names it by a string.
DEVICE_STRINGS = "cpu, cuda, cuda:N (the GPU numbered N)"
DEVICE_FORMS = f"{DEVICE_STRINGS}, a torch.device or a CuPy Device"
# The GPU libraries tried for device="cuda", in this order (a fixed order, PyTorch first by our choice): where
# both are installed every fit uses the same one, so free_memory_bytes and gpu_model read one library.
CUDA_LIBRARIES = ("torch", "cupy")
# Share of the free device memory that one fit may plan to fill (our choice): the libraries'
# allocators, the row blocks' temporaries and the eigensolver's small matrices need the rest.
DEVICE_MEMORY_SHARE = 0.8
# Bytes of one row block of a kernel built or scored on a device (our choice: large enough to keep
# a GPU busy, small against any device's memory; fewer where the free memory is short).
DEVICE_BLOCK_BYTES = 512 * 2**20

_DEFAULT_DEVICE: ContextVar[str | None] = ContextVar("kpca_bench_default_device", default=None)


class DeviceError(KpcaBenchError):
    """A device was asked for that this machine cannot give (no CUDA device, no GPU library)."""


class DeviceMemoryError(KpcaBenchError):
    """The arrays of a fit would not fit in the device's free memory."""


def device_name(device) -> str | None:
    """``device`` written as the libraries write it: None, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.

    Takes those strings, a ``torch.device`` (its ``type`` and ``index``) and a CuPy ``Device`` (its ``id``);
    raises DeviceError (one line, naming the accepted forms) for anything else. Nothing is imported.
    """
    if device is None:
        return None
    module = type(device).__module__.split(".")[0]
    if isinstance(device, str) and re.fullmatch(r"cpu|cuda(:\d+)?", device):
        return device
    if module == "torch" and getattr(device, "type", None) in DEVICES:
        return device.type if device.type == "cpu" or device.index is None else f"cuda:{device.index}"
    if module == "cupy" and isinstance(getattr(device, "id", None), int):
        return f"cuda:{device.id}"
    raise DeviceError(f"unknown device {device!r}; accepted: {DEVICE_FORMS}")


def is_cuda(device) -> bool:
    """Whether ``device`` (any form :func:`device_name` takes) names a CUDA GPU."""
    name = device_name(device)
    return name is not None and name.startswith("cuda")


def cuda_index(device) -> int | None:
    """The GPU number of a CUDA ``device`` (``"cuda:1"``: 1), None where it names none (``"cuda"``)."""
    name = device_name(device)
    return int(name.split(":")[1]) if name is not None and ":" in name else None


@contextmanager
def use_device(device) -> Iterator[None]:
    """Within the block, estimators whose ``device`` is None compute on ``device`` (a run's ``execution.device``)."""
    token = _DEFAULT_DEVICE.set(device_name(device))
    try:
        yield
    finally:
        _DEFAULT_DEVICE.reset(token)


def default_device() -> str | None:
    return _DEFAULT_DEVICE.get()


def is_numpy(array) -> bool:
    return array_api_compat.is_numpy_array(array)


def namespace(*arrays):
    """The array-API namespace of ``arrays`` (``array_api_compat``'s wrapper for NumPy, CuPy and PyTorch)."""
    return array_api_compat.array_namespace(*arrays)


def device_of(array):
    return array_api_compat.device(array)


def _import(name: str):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def cuda_library(device="cuda"):
    """The first GPU library of :data:`CUDA_LIBRARIES` that sees the CUDA ``device``, as (namespace, device).

    ``device``: ``"cuda"`` (the library's current GPU), ``"cuda:N"``, a ``torch.device`` or a CuPy ``Device``.
    Raises DeviceError naming what is missing: no GPU library installed, no CUDA device visible to them,
    or fewer GPUs than the number asked for.
    """
    name, index = device_name(device), cuda_index(device)
    needs = f"device {name!r} needs a CUDA GPU with PyTorch or CuPy"
    found = {library: module for library in CUDA_LIBRARIES if (module := _import(library)) is not None}
    if not found:
        raise DeviceError(
            f"{needs}; neither CuPy nor PyTorch is installed: pip install 'kpca-bench[gpu]' on a "
            "machine with an NVIDIA GPU, or use device 'cpu'"
        )
    counts = {library: _cuda_devices(library, module) for library, module in found.items()}
    if not any(counts.values()):
        raise DeviceError(
            f"{needs}; this machine has none: no CUDA device is visible to "
            f"{' or '.join(sorted(found))}: run on a machine with an NVIDIA GPU and its driver, "
            "or use device 'cpu'"
        )
    library = next(library for library in CUDA_LIBRARIES if counts.get(library))
    if index is not None and index >= counts[library]:
        raise DeviceError(
            f"{needs}; {library} sees only {counts[library]} CUDA device(s), cuda:0 to "
            f"cuda:{counts[library] - 1}: use one of those"
        )
    module = found[library]
    if library == "torch":
        return array_api_compat.array_namespace(module.empty(0)), module.device("cuda", index)
    return array_api_compat.array_namespace(module.empty(0)), module.cuda.Device(index)


def _cuda_devices(library: str, module) -> int:
    """CUDA devices visible to ``module`` (PyTorch or CuPy), 0 where it sees none."""
    if library == "torch":
        return module.cuda.device_count() if module.cuda.is_available() else 0
    return _cupy_devices(module)


def _cupy_devices(cupy) -> int:
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - CuPy raises its own CUDARuntimeError when no driver is present
        return 0


def check_device(device) -> None:
    """Raise DeviceError (one line) unless ``device`` can be used here: None and 'cpu' always can."""
    if is_cuda(device):
        cuda_library(device)


def compute_target(X, device):
    """Where to compute for input ``X`` and an estimator's ``device``: None (the NumPy path) or (namespace, device).

    ``device`` None takes the run's default (:func:`use_device`), then the device ``X`` lives on. A CUDA
    ``device`` keeps X where it is when X lives on that GPU (on any, for plain ``"cuda"``).
    """
    device = device_name(device) if device is not None else default_device()
    if is_cuda(device) and _on_cuda(X) and (cuda_index(device) is None or cuda_index(device) == _cuda_index_of(X)):
        return namespace(X), device_of(X)
    if is_cuda(device):
        return cuda_library(device)
    if device == "cpu" or is_numpy(X) or not array_api_compat.is_array_api_obj(X):
        return None
    return namespace(X), device_of(X)


def _on_cuda(X) -> bool:
    """Whether X is a CuPy array or a PyTorch tensor on a CUDA device (kept where it is for device='cuda')."""
    return array_api_compat.is_cupy_array(X) or (array_api_compat.is_torch_array(X) and X.device.type == "cuda")


def _cuda_index_of(X) -> int | None:
    """The GPU number of a CUDA array (:func:`_on_cuda`)."""
    return cuda_index(device_of(X))


def to_numpy(array) -> np.ndarray:
    """A host NumPy copy (or the array itself) of any supported array.

    A device array comes to the host through its own library's transfer (CuPy's ``get``, PyTorch's
    ``cpu``, else the standard's ``to_device`` to the namespace's CPU device and DLPack): NumPy's
    ``asarray`` cannot read an array on a device other than the host's. Anything else (scalars, lists)
    goes through ``np.asarray``.
    """
    if is_numpy(array):
        return array
    if array_api_compat.is_cupy_array(array):
        return array.get()
    if array_api_compat.is_torch_array(array):
        return array.detach().cpu().numpy()
    if array_api_compat.is_array_api_obj(array) and hasattr(array, "to_device"):
        cpu = _host_device(array)
        if cpu is not None:
            return np.from_dlpack(array.to_device(cpu))
    return np.asarray(array)


def _host_device(array):
    """The CPU device of ``array``'s namespace (the standard's inspection API), or None where it names none."""
    info = getattr(namespace(array), "__array_namespace_info__", None)
    if info is None:
        return None
    devices = info().devices()
    return next((device for device in devices if "cpu" in str(device).lower()), None)


def to_target(array, target, dtype=None):
    """``array`` in the target namespace and on its device, as ``dtype`` (default: float64).

    The one way host arrays go to a device: a NumPy array (or anything NumPy reads: a list, a scalar)
    is made C-contiguous and of the requested dtype on the host first, so no reversed or strided view
    crosses over (PyTorch refuses negative strides) and a float32 transfer moves half the bytes; an
    array of another namespace comes through the host (:func:`to_numpy`).
    """
    xp, device = target
    dtype = dtype if dtype is not None else xp.float64
    if not is_numpy(array) and array_api_compat.is_array_api_obj(array) and namespace(array) is xp:
        return xp.asarray(array, dtype=dtype, device=device)
    host = np.ascontiguousarray(to_numpy(array), dtype=_numpy_dtype(dtype))
    return xp.asarray(host, dtype=dtype, device=device)


def _numpy_dtype(dtype) -> np.dtype:
    """NumPy's dtype of the same name as an array-API dtype (``torch.float32``: float32)."""
    return np.dtype(str(dtype).rsplit(".", 1)[-1])


def like_input(result, X):
    """``result`` as the caller gave ``X``: NumPy for NumPy input, else left in its namespace."""
    return to_numpy(result) if is_numpy(X) and not is_numpy(result) else result


def free_memory_bytes(xp, device) -> int | None:
    """The free memory of ``device`` in bytes, or None where the library cannot say (the host).

    The driver's free memory plus what the library's caching allocator holds unused (it gives that
    to the next arrays), so a second fit in the same process sees the memory the first one released.
    """
    if array_api_compat.is_torch_namespace(xp) and getattr(device, "type", None) == "cuda":
        cuda = importlib.import_module("torch").cuda
        return int(cuda.mem_get_info(device)[0] + cuda.memory_reserved(device) - cuda.memory_allocated(device))
    if array_api_compat.is_cupy_namespace(xp):
        cupy = importlib.import_module("cupy")
        return int(cupy.cuda.runtime.memGetInfo()[0] + cupy.get_default_memory_pool().free_bytes())
    return None


@dataclass(frozen=True)
class Phase:
    """Arrays held on a device at once: ``kernels`` n x n matrices, the training data and ``columns`` vectors of
    length n."""

    kernels: int
    columns: int

    def numbers(self, n: int, n_features: int) -> int:
        """``kernels n^2 + n (n_features + columns)``."""
        return self.kernels * n * n + n * (n_features + self.columns)

    def largest_n(self, numbers: float, n_features: int) -> int:
        """The largest n whose :meth:`numbers` are at most ``numbers``: the quadratic solved for n."""
        linear = n_features + self.columns
        n = int((-linear + math.sqrt(linear**2 + 4 * self.kernels * numbers)) / (2 * self.kernels))
        while n > 0 and self.numbers(n, n_features) > numbers:  # the square root's rounding
            n -= 1
        return n


@dataclass(frozen=True)
class DevicePlan:
    """What an exact fit holds on its device: the peak of the two phases ``solving`` (while its eigensolver runs)
    and ``after`` (from the solve's end to the fit's); ``held`` names the solver's share in words, for the error of
    :func:`check_fits`."""

    solving: Phase
    after: Phase
    held: str

    def numbers(self, n: int, n_features: int) -> int:
        return max(self.solving.numbers(n, n_features), self.after.numbers(n, n_features))


def solver_plan(
    solver: str, n_components: int, basis: int, block: int, *, checks_residuals: bool = False
) -> DevicePlan:
    """The arrays an exact fit with ``solver`` (``kpca_bench.eigensolvers.top_eigenpairs``) holds on the device at once.

    Every fit holds the kernel K, the training data and two n-vectors (the centring's column means, the
    training points' squared norms) from the kernel's build to its end. While the solver runs, besides those:

    * ``eigh``: the library's full ``eigh`` returns all n eigenvectors (a second n x n matrix) and n eigenvalues,
      and needs a workspace while it runs: LAPACK's ``dsyevd`` takes 1 + 6n + 2n^2 numbers (counted as
      2 n^2 and 7 vectors), cuSOLVER's ``syevd`` one of the same order (an estimate until measured on a GPU);
      the top k are taken out and their signs fixed, two k x n arrays while all n may still be held (a
      library whose ``flip`` is a view keeps them): 4 n^2 and 10 + 2k vectors;
    * ``arpack``: ARPACK runs on a host copy of K (the host then holds an n x n matrix too) and the k eigenvectors
      come back: n^2 and 2 + k vectors;
    * ``block``: the basis Q and its products W = K Q (2 ``basis`` vectors), the pending block (``block``), and the
      largest of its temporaries: a block's two passes of orthogonalisation (3 ``block``), a restart's kept Ritz
      vectors (``basis - 2 block``), the residuals' k x n products (3k): n^2 and
      ``2 + 2 basis + block + max(3 block, basis - 2 block, 3k)`` vectors.

    After the solve, K and the k eigenvectors with their dual coefficients (2k vectors); where the fit measures the
    residuals itself (``checks_residuals``: float32 with ``eigh`` or ``arpack``), the eigenvectors and three
    k x n products (4k). These are the arrays this library's code makes, each operation's result held whole, and
    ``eigh``'s workspace. What a library makes inside any other call (a norm's intermediates) and the
    kernel's row blocks (:func:`block_rows`) are not counted: they live in the share of the free memory that the
    plan leaves (:data:`DEVICE_MEMORY_SHARE`). ``benchmarks/gpu_check.sh`` measures the peak on a GPU against it.
    """
    k = n_components
    after = Phase(1, 2 + (4 if checks_residuals else 2) * k)
    if solver == "eigh":
        return DevicePlan(Phase(4, 10 + 2 * k), after, "the n x n kernel, eigh's n x n eigenvectors and workspace")
    if solver == "arpack":
        return DevicePlan(Phase(1, 2 + k), after, "the n x n kernel, solved by ARPACK on a host copy")
    solving = Phase(1, 2 + 2 * basis + block + max(3 * block, basis - 2 * block, 3 * k))
    return DevicePlan(solving, after, "the n x n kernel and the block solver's basis")


def largest_fitting_n(free_bytes: float, n_features: int, plan: DevicePlan, itemsize: int = 8) -> int:
    """The largest n whose exact fit, as ``plan`` holds it, fits in ``free_bytes`` times
    :data:`DEVICE_MEMORY_SHARE`: the smaller of its phases' largest n."""
    numbers = DEVICE_MEMORY_SHARE * free_bytes / itemsize
    return min(phase.largest_n(numbers, n_features) for phase in (plan.solving, plan.after))


def check_fits(n: int, n_features: int, plan: DevicePlan, target, itemsize: int = 8) -> None:
    """Raise DeviceMemoryError if an exact fit on ``n`` points, holding what ``plan`` says (:func:`solver_plan`),
    does not fit in the target device's free memory."""
    free = free_memory_bytes(*target)
    if free is None or n <= (largest := largest_fitting_n(free, n_features, plan, itemsize)):
        return
    planned = plan.numbers(n, n_features) * itemsize
    raise DeviceMemoryError(
        f"an exact kernel PCA of n = {n:,} points plans {_size(planned)} on {target[1]} ({plan.held}, the data and "
        f"vectors of length n), more than {DEVICE_MEMORY_SHARE:.0%} of its {_size(free)} free "
        f"({_size(DEVICE_MEMORY_SHARE * free)}): the largest n that fits is {largest:,}; "
        "subsample the training data or use NystromKernelPCA (method nystrom_kpca)"
    )


def _size(n_bytes: float) -> str:
    """Bytes in GiB, MiB or KiB, one decimal."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20)):
        if n_bytes >= size:
            return f"{n_bytes / size:.1f} {unit}"
    return f"{n_bytes / 2**10:.1f} KiB"


def block_rows(n_columns: int, target, itemsize: int = 8) -> int:
    """Rows of a kernel block of ``n_columns`` on the target device: :data:`DEVICE_BLOCK_BYTES`, or a
    quarter of the free memory where that is less (a block and its temporaries)."""
    free = free_memory_bytes(*target)
    block_bytes = DEVICE_BLOCK_BYTES if free is None else min(DEVICE_BLOCK_BYTES, free / 4)
    return max(1, int(block_bytes // (itemsize * max(1, n_columns))))


def device_fields(device) -> dict:
    """A record's fields saying where its cell computed: ``device`` (``cpu``, ``cuda`` or ``cuda:N``), and
    ``gpu_model`` on a CUDA device."""
    if not is_cuda(device):
        return {"device": "cpu"}
    xp, where = cuda_library(device)
    return {"device": device_name(device), "gpu_model": gpu_model(xp, where)}


def gpu_model(xp, device) -> str:
    if array_api_compat.is_torch_namespace(xp):
        return importlib.import_module("torch").cuda.get_device_name(device)
    cupy = importlib.import_module("cupy")
    name = cupy.cuda.runtime.getDeviceProperties(device.id)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def gpu_environment(used: bool) -> dict | None:
    """The CUDA driver, GPU model and GPU library versions, or None where no GPU was used.

    ``used``: whether the run asked for a CUDA device (its ``execution.device`` or a method's ``device``); a
    CPU run never imports a GPU library, even where another part of the process has.
    """
    if not used:
        return None
    try:
        xp, device = cuda_library()
    except DeviceError:
        return None
    libraries = {name: module.__version__ for name in CUDA_LIBRARIES if (module := _import(name)) is not None}
    environment = {"model": gpu_model(xp, device), "libraries": libraries}
    if (cupy := _import("cupy")) is not None:
        environment["driver_version"] = cupy.cuda.runtime.driverGetVersion()
        environment["runtime_version"] = cupy.cuda.runtime.runtimeGetVersion()
    if (torch := _import("torch")) is not None:
        environment["torch_cuda"] = torch.version.cuda
    return environment


def is_device_array(array) -> bool:
    """Whether ``array`` is an array-API array of a library other than NumPy (CuPy, PyTorch, array-api-strict)."""
    return array_api_compat.is_array_api_obj(array) and not is_numpy(array)
