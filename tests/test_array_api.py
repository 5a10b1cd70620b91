"""The array-API path (kpca_bench.devices) equals the NumPy path: kernels, centering, eigensolvers, exact and
Nystrom kernel PCA, both scores and the detector, compared with NumPy's numbers to 1e-10; float32 on request or
for float32 input, with its measured accuracy.

Every test runs on two libraries (the ``lib`` fixture): ``array_api_strict`` on its non-default device
``device1``, which refuses ``np.asarray`` as a GPU array does, and PyTorch tensors on the CPU, which refuse
NumPy views with negative strides as they do on a GPU. The PyTorch runs are skipped where torch is not
installed (CI installs no torch: ``pip install torch`` where wanted, a CPU wheel is enough)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from numpy.testing import assert_allclose

from kpca_bench.devices import device_of, namespace, to_numpy
from kpca_bench.eigensolvers import block_krylov_eigh, top_eigenpairs
from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.methods.nystrom import NystromKernelPCA
from kpca_bench.methods.scores import mahalanobis_distance, reconstruction_error, training_outlier_scores

strict = pytest.importorskip("array_api_strict")
TOL = 1e-10
DEVICE1 = strict.Device("device1")


@dataclass(frozen=True)
class Library:
    """An array library to run the array-API path on: its namespace and the device its arrays are put on."""

    xp: object
    device: object

    def put(self, array):
        return self.xp.asarray(np.ascontiguousarray(array), device=self.device)


@pytest.fixture(params=["array_api_strict", "torch"])
def lib(request, monkeypatch):
    if request.param == "array_api_strict":
        monkeypatch.setattr(strict, "asarray", refusing_negative_strides(strict.asarray))
        return Library(strict, DEVICE1)
    torch = pytest.importorskip("torch")
    return Library(namespace(torch.empty(0)), torch.device("cpu"))


def refusing_negative_strides(asarray):
    """``asarray`` that refuses a NumPy array with a negative stride, as PyTorch's does (array_api_strict takes it)."""

    def refusing(obj, *args, **kwargs):
        if isinstance(obj, np.ndarray) and any(stride < 0 for stride in obj.strides):
            raise ValueError("At least one stride in the given numpy array is negative (refused as PyTorch does)")
        return asarray(obj, *args, **kwargs)

    return refusing


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 5))
    X[:4] += 4.0  # a few outliers, so the scores vary
    return X, rng.standard_normal((30, 5))


def assert_close(actual, expected):
    assert not isinstance(actual, np.ndarray) or isinstance(expected, np.ndarray)
    assert_allclose(to_numpy(actual), expected, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear", "hamming"])
@pytest.mark.parametrize("itself", [True, False])
def test_kernel_matrix_and_diagonal_equal_numpy(data, kernel, itself, lib):
    X, Y = data
    if kernel == "hamming":
        X, Y = np.abs(np.round(X)), np.abs(np.round(Y))
    k = make_kernel(X, kernel, gamma=0.3 if kernel != "rbf" else 0.1, degree=2)
    expected = k(X) if itself else k(Y, X)
    actual = k(lib.put(X)) if itself else k(lib.put(Y), lib.put(X))
    assert type(actual) is not np.ndarray
    assert_close(actual, expected)
    assert_close(k.diag(lib.put(Y)), k.diag(Y))


def test_rbf_diagonal_is_exactly_one_on_the_array_api_path(data, lib):
    X, _ = data
    K = to_numpy(make_kernel(X, "rbf", gamma=0.1)(lib.put(X)))
    assert np.all(np.diagonal(K) == 1.0)


def test_centering_equals_numpy(data, lib):
    X, Y = data
    k = make_kernel(X, "rbf", gamma=0.1)
    expected = KernelCentering.fit(k(X))
    actual = KernelCentering.fit(k(lib.put(X)))
    assert actual.grand_mean == pytest.approx(expected.grand_mean, rel=TOL)
    assert_close(actual.center_train(k(lib.put(X))), expected.center_train(k(X)))
    centered, row_means = actual.center_cross(k(lib.put(Y), lib.put(X)))
    expected_centered, expected_row_means = expected.center_cross(k(Y, X))
    assert_close(centered, expected_centered)
    assert_close(row_means, expected_row_means)


@pytest.mark.parametrize("solver", ["eigh", "block", "arpack"])
def test_top_eigenpairs_equal_numpy(data, solver, lib):
    X, _ = data
    k = make_kernel(X, "rbf", gamma=0.1)
    K = KernelCentering.fit(k(X)).center_train(k(X))
    expected = top_eigenpairs(K.copy(), 5, solver, random_state=0)
    actual = top_eigenpairs(lib.put(K), 5, solver, random_state=0)
    assert_close(actual.values, expected.values)
    assert_close(actual.vectors, expected.vectors)
    if solver == "block":
        assert_allclose(to_numpy(actual.residuals), expected.residuals, atol=1e-12 * float(expected.values[0]))


@pytest.mark.parametrize("solver", ["block", "arpack", "eigh"])
def test_no_reversed_host_array_goes_to_the_device(data, lib, solver):
    """The crash PyTorch found: the block solver sent its Ritz values, a reversed host view (negative stride),
    to the device; PyTorch refuses those (``lib``'s array_api_strict too). The fit, scores and all, as well."""
    X, Y = data
    K = make_kernel(X, "rbf", gamma=0.1)(X)
    result = top_eigenpairs(lib.put(K), 5, solver, random_state=0)
    assert namespace(result.values) is lib.xp and device_of(result.values) == lib.device
    assert_close(result.values, np.linalg.eigvalsh(K)[::-1][:5])
    model = KernelPCA(5, eigen_solver=solver, random_state=0).fit(lib.put(X))
    assert_close(reconstruction_error(model, lib.put(Y)), reconstruction_error(KernelPCA(5).fit(X), Y))


def test_block_solver_certifies_its_residuals_on_the_array_api_path(data, lib):
    X, _ = data
    K = make_kernel(X, "rbf", gamma=0.1)(X)
    result = block_krylov_eigh(lib.put(K), 3, random_state=1, block_size=4, n_blocks=6)
    values, vectors = to_numpy(result.values), to_numpy(result.vectors)
    measured = np.linalg.norm(K @ vectors - vectors * values, axis=0)
    assert np.all(measured <= 1e-8 * values[0])
    assert_allclose(to_numpy(result.residuals), measured, atol=1e-12 * values[0])
    assert_allclose(values, np.linalg.eigvalsh(K)[::-1][:3], rtol=TOL)


@pytest.mark.parametrize(
    "params",
    [
        {"eigen_solver": "eigh"},
        {"eigen_solver": "block", "random_state": 0},
        {"eigen_solver": "arpack", "random_state": 0},
        {"eigen_solver": "eigh", "kernel": "poly", "gamma": 0.2, "degree": 2},
        {"eigen_solver": "eigh", "kernel": "linear"},
    ],
)
def test_kernel_pca_scores_equal_numpy(data, params, lib):
    X, Y = data
    expected = KernelPCA(5, **params).fit(X)
    actual = KernelPCA(5, **params).fit(lib.put(X))
    assert actual.gamma_ == expected.gamma_
    assert_close(actual.eigenvalues_, expected.eigenvalues_)
    assert_close(actual.transform(lib.put(Y)), expected.transform(Y))
    for score in (reconstruction_error, mahalanobis_distance):
        assert_close(score(actual, lib.put(Y)), score(expected, Y))
    for name in ("reconstruction_error", "mahalanobis"):
        assert_close(training_outlier_scores(actual, name, lib.put(X)), training_outlier_scores(expected, name, X))


@pytest.mark.parametrize("projection", ["landmarks", "training"])
@pytest.mark.parametrize("landmarks", ["kmeans", "random"])
def test_nystrom_scores_equal_numpy(data, projection, landmarks, lib):
    X, Y = data
    params = {"n_landmarks": 20, "landmarks": landmarks, "random_state": 0, "projection": projection}
    expected = NystromKernelPCA(4, **params).fit(X)
    actual = NystromKernelPCA(4, **params).fit(lib.put(X))
    assert_close(actual.landmarks_, expected.landmarks_)
    assert_close(actual.eigenvalues_, expected.eigenvalues_)
    for score in (reconstruction_error, mahalanobis_distance):
        assert_close(score(actual, lib.put(Y)), score(expected, Y))


@pytest.mark.parametrize("solver", ["eigh", "block"])
@pytest.mark.parametrize("outlier_score", ["reconstruction_error", "mahalanobis"])
def test_detector_equals_numpy(data, outlier_score, solver, lib):
    X, Y = data
    model = KernelPCA(5, eigen_solver=solver, random_state=0)
    expected = KernelSubspaceDetector(model, outlier_score=outlier_score).fit(X)
    actual = KernelSubspaceDetector(model, outlier_score=outlier_score).fit(lib.put(X))
    assert actual.offset_ == pytest.approx(expected.offset_, rel=TOL, abs=TOL)
    assert_close(actual.score_samples(lib.put(Y)), expected.score_samples(Y))
    assert np.array_equal(to_numpy(actual.predict(lib.put(Y))), expected.predict(Y))


def test_numpy_input_gives_numpy_output_from_the_numpy_path(data):
    X, Y = data
    model = KernelPCA(3, device="cpu").fit(X)
    assert isinstance(model.dual_coef_, np.ndarray)
    assert isinstance(reconstruction_error(model, Y), np.ndarray)


def test_float32_warns_with_the_residual_it_measured(data, lib):
    X, Y = data
    with pytest.warns(UserWarning, match=r"float32.*residuals reach (\d\.\de-\d\d) \* lambda_1") as caught:
        model = KernelPCA(5, eigen_solver="block", random_state=0, dtype="float32").fit(lib.put(X))
    assert model.dual_coef_.dtype == lib.xp.float32
    worst = float(str(caught[0].message).split("reach ")[1].split(" ")[0])
    assert 0 < worst < 1e-3
    reference = KernelPCA(5, eigen_solver="eigh").fit(X)
    assert_allclose(to_numpy(model.eigenvalues_), reference.eigenvalues_, rtol=1e-3)
    assert_allclose(
        to_numpy(reconstruction_error(model, lib.put(Y))), reconstruction_error(reference, Y), rtol=1e-2, atol=1e-3
    )


def test_nystrom_float32_warns_with_the_residual_it_measured(data, lib):
    X, Y = data
    params = {"n_landmarks": 40, "random_state": 0}
    with pytest.warns(UserWarning, match=r"float32.*residuals reach (\d\.\de-\d\d) \* lambda_1") as caught:
        model = NystromKernelPCA(4, dtype="float32", **params).fit(lib.put(X))
    assert model.dual_coef_.dtype == lib.xp.float32
    worst = float(str(caught[0].message).split("reach ")[1].split(" ")[0])
    assert 0 <= worst < 1e-3
    reference = NystromKernelPCA(4, **params).fit(X)
    assert_allclose(to_numpy(model.eigenvalues_), reference.eigenvalues_, rtol=1e-3)


@pytest.mark.parametrize(
    "make",
    [
        lambda **dtype: KernelPCA(5, eigen_solver="block", random_state=0, **dtype),
        lambda **dtype: NystromKernelPCA(4, n_landmarks=40, random_state=0, **dtype),
    ],
    ids=["kpca-block", "nystrom"],
)
def test_float32_in_gives_float32_out_unless_dtype_is_set(data, lib, make):
    X, Y = data
    X32, Y32 = lib.put(X.astype(np.float32)), lib.put(Y.astype(np.float32))
    with pytest.warns(UserWarning, match="dtype='float32': the eigenpairs' residuals reach"):
        model = make().fit(X32)
    assert model.dual_coef_.dtype == model.eigenvalues_.dtype == lib.xp.float32
    assert reconstruction_error(model, Y32).dtype == mahalanobis_distance(model, Y32).dtype == lib.xp.float32
    assert make(dtype="float64").fit(X32).dual_coef_.dtype == lib.xp.float64


def test_float32_numpy_input_keeps_the_numpy_paths_float64_on_a_device(data, fake_cuda):
    """NumPy input computes in float64 on any device, so a run's ``device: cuda`` never changes its precision."""
    X, Y = data
    model = KernelPCA(5, eigen_solver="eigh").fit(X.astype(np.float32))
    assert not isinstance(model.dual_coef_, np.ndarray) and str(model.dual_coef_.dtype).endswith("float64")
    assert reconstruction_error(model, Y.astype(np.float32)).dtype == np.float64


def test_float32_on_numpy_arrays_asks_for_a_device(data):
    X, _ = data
    with pytest.raises(ValueError, match="dtype='float32' computes through the array API: give device='cuda'"):
        KernelPCA(3, dtype="float32").fit(X)


def test_a_kernel_that_overflows_is_the_numpy_paths_error(data, lib):
    X, _ = data
    huge = X * 1e160
    kernel = make_kernel(X, "poly", gamma=1.0, degree=3)
    with pytest.raises(ValueError, match="the poly kernel of these data is not finite: features as large as"):
        kernel(lib.put(huge))


def test_an_rbf_kernel_underflowing_to_the_identity_warns(data, lib):
    X, _ = data
    with pytest.warns(RuntimeWarning, match="underflows to the identity"):
        make_kernel(X, "rbf", gamma=1e6)(lib.put(X))


@pytest.mark.parametrize(
    "make",
    [
        lambda: KernelPCA(5, eigen_solver="block", random_state=0),
        lambda: KernelPCA(5, eigen_solver="eigh"),
        lambda: NystromKernelPCA(4, n_landmarks=20, random_state=0),
        lambda: KernelSubspaceDetector(KernelPCA(5, eigen_solver="block", random_state=0)),
    ],
    ids=["kpca-block", "kpca-eigh", "nystrom", "detector"],
)
def test_a_model_fitted_off_the_host_is_read_by_the_protocols(data, make, lib):
    """array_api_strict's device1 refuses np.asarray, as a GPU array does: the fit and the records' reading
    of the fitted attributes (novelty's fitted_attributes) bring arrays to the host through to_numpy."""
    from kpca_bench.protocols.base import empty_model
    from kpca_bench.protocols.novelty import fitted_attributes

    X, Y = data
    on_device = lib.put(X)
    if lib.xp is strict:
        with pytest.raises(RuntimeError, match="device1"):
            np.asarray(on_device)
    model = make().fit(on_device)
    inner = getattr(model, "estimator_", model)
    assert namespace(inner.eigenvalues_) is lib.xp
    assert device_of(inner.eigenvalues_) == lib.device
    expected = make().fit(X)
    actual, wanted = fitted_attributes(model), fitted_attributes(expected)
    assert actual.keys() == wanted.keys() and "gamma" in actual
    for key, value in wanted.items():
        assert actual[key] == (value if isinstance(value, str) else pytest.approx(value, rel=1e-6, abs=1e-12)), key
    assert empty_model(model) == empty_model(expected)
    assert_close(inner.eigenvalues_, getattr(expected, "estimator_", expected).eigenvalues_)


def test_to_numpy_brings_a_device_array_to_the_host(lib):
    array = lib.put([[1.0, 2.0]])
    host = to_numpy(array)
    assert isinstance(host, np.ndarray)
    assert_allclose(host, [[1.0, 2.0]])
    assert float(to_numpy(lib.xp.max(array))) == 2.0


@pytest.fixture
def fake_cuda(monkeypatch, lib):
    """device='cuda' answered by the library's device (array_api_strict's device1 refuses np.asarray as a GPU
    array does)."""
    from kpca_bench import devices

    monkeypatch.setattr(devices, "cuda_library", lambda device="cuda": (lib.xp, lib.device))
    monkeypatch.setattr(devices, "_on_cuda", lambda X: devices.is_device_array(X) and namespace(X) is lib.xp)
    with devices.use_device("cuda"):
        yield


@pytest.mark.filterwarnings("ignore:.*zero eigenvalue")
def test_the_sweep_reads_a_model_fitted_on_the_device(data, fake_cuda):
    from kpca_bench.experiment.config_parser import parse_config
    from kpca_bench.protocols.base import Method
    from kpca_bench.protocols.novelty import Split
    from kpca_bench.protocols.sweep import evaluate_sweep

    X, Y = data
    split = Split(X_train=X[:40], X_test=Y, is_outlier=np.r_[np.zeros(20, bool), np.ones(10, bool)])
    config = parse_config(
        {
            "name": "t",
            "dataset": {
                "name": "digits",
                "inliers": [0],
                "outliers": [1],
                "train_inliers": 40,
                "test_inliers": 20,
                "test_outliers": 10,
            },
            "protocol": "novelty_sweep",
            "methods": [{"name": "kpca"}],
        }
    )
    method = Method("KPCA", "kpca", KernelPCA(kernel="rbf", sigma=1.5, eigen_solver="eigh"), subspace=True)
    record = evaluate_sweep(method, split, config.options)
    assert record["status"] == "ok" and record["n_model_params"] > 1


def test_the_toy_protocol_reads_a_model_fitted_on_the_device(data, fake_cuda):
    from kpca_bench.protocols.base import Method
    from kpca_bench.protocols.toy_components import Options, Split, evaluate_toy

    X, _ = data
    method = Method("KPCA", "kpca", KernelPCA(3, gamma=0.5, eigen_solver="eigh"), subspace=True)
    record = evaluate_toy(method, Split(X_train=X[:30]), Options())
    assert record["status"] == "ok" and len(record["variance_share"]) == 3


def test_the_cv_search_reads_a_model_fitted_on_the_device(data, fake_cuda):
    from kpca_bench.protocols.base import Method, ThresholdConfig
    from kpca_bench.protocols.classification import Split
    from kpca_bench.protocols.classification_cv import evaluate_classification_cv, parse_options
    from kpca_bench.validation import Problems

    X, Y = data
    y = (X[:, 0] > 0).astype(int)
    problems = Problems()
    options = parse_options(
        {
            "train_size": 60,
            "test_size": 30,
            "classifier": "svm",
            "cv": 2,
            "search": {"KPCA+SVM": {"n_components": [2, 4]}},
        },
        ThresholdConfig(),
        problems,
    )
    assert not problems.items, problems.items
    method = Method("KPCA+SVM", "kpca", KernelPCA(4, gamma=0.2, eigen_solver="eigh"), subspace=True)
    record = evaluate_classification_cv(method, Split(X[:60], y[:60], X[60:90], y[60:90]), options)
    assert record["status"] == "ok" and record["n_components"] in (2, 4)
