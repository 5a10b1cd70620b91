"""The array-API path (kpca_bench.devices) equals the NumPy path: kernels, centering, eigensolvers, exact and
Nystrom kernel PCA, both scores and the detector, run on ``array_api_strict`` arrays (a strict stand-in for a
GPU library's) and compared with NumPy's numbers to 1e-10; float32 only on request, with its measured accuracy."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from kpca_bench.devices import device_of, to_numpy
from kpca_bench.eigensolvers import block_krylov_eigh, top_eigenpairs
from kpca_bench.kernels import KernelCentering, make_kernel
from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.methods.nystrom import NystromKernelPCA
from kpca_bench.methods.scores import mahalanobis_distance, reconstruction_error, training_outlier_scores

xp = pytest.importorskip("array_api_strict")
TOL = 1e-10


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 5))
    X[:4] += 4.0  # a few outliers, so the scores vary
    return X, rng.standard_normal((30, 5))


def strict(array):
    return xp.asarray(array)


def assert_close(actual, expected):
    assert not isinstance(actual, np.ndarray) or isinstance(expected, np.ndarray)
    assert_allclose(to_numpy(actual), expected, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear", "hamming"])
@pytest.mark.parametrize("itself", [True, False])
def test_kernel_matrix_and_diagonal_equal_numpy(data, kernel, itself):
    X, Y = data
    if kernel == "hamming":
        X, Y = np.abs(np.round(X)), np.abs(np.round(Y))
    k = make_kernel(X, kernel, gamma=0.3 if kernel != "rbf" else 0.1, degree=2)
    expected = k(X) if itself else k(Y, X)
    actual = k(strict(X)) if itself else k(strict(Y), strict(X))
    assert type(actual) is not np.ndarray
    assert_close(actual, expected)
    assert_close(k.diag(strict(Y)), k.diag(Y))


def test_rbf_diagonal_is_exactly_one_on_the_array_api_path(data):
    X, _ = data
    K = to_numpy(make_kernel(X, "rbf", gamma=0.1)(strict(X)))
    assert np.all(np.diagonal(K) == 1.0)


def test_centering_equals_numpy(data):
    X, Y = data
    k = make_kernel(X, "rbf", gamma=0.1)
    expected = KernelCentering.fit(k(X))
    actual = KernelCentering.fit(k(strict(X)))
    assert actual.grand_mean == pytest.approx(expected.grand_mean, rel=TOL)
    assert_close(actual.center_train(k(strict(X))), expected.center_train(k(X)))
    centered, row_means = actual.center_cross(k(strict(Y), strict(X)))
    expected_centered, expected_row_means = expected.center_cross(k(Y, X))
    assert_close(centered, expected_centered)
    assert_close(row_means, expected_row_means)


@pytest.mark.parametrize("solver", ["eigh", "block", "arpack"])
def test_top_eigenpairs_equal_numpy(data, solver):
    X, _ = data
    k = make_kernel(X, "rbf", gamma=0.1)
    K = KernelCentering.fit(k(X)).center_train(k(X))
    expected = top_eigenpairs(K.copy(), 5, solver, random_state=0)
    actual = top_eigenpairs(strict(K), 5, solver, random_state=0)
    assert_close(actual.values, expected.values)
    assert_close(actual.vectors, expected.vectors)
    if solver == "block":
        assert_allclose(to_numpy(actual.residuals), expected.residuals, atol=1e-12 * float(expected.values[0]))


def test_block_solver_certifies_its_residuals_on_the_array_api_path(data):
    X, _ = data
    K = make_kernel(X, "rbf", gamma=0.1)(X)
    result = block_krylov_eigh(strict(K), 3, random_state=1, block_size=4, n_blocks=6)
    values, vectors = to_numpy(result.values), to_numpy(result.vectors)
    measured = np.linalg.norm(K @ vectors - vectors * values, axis=0)
    assert np.all(measured <= 1e-8 * values[0])
    assert_allclose(to_numpy(result.residuals), measured, atol=1e-12 * values[0])
    assert_allclose(values, np.linalg.eigvalsh(K)[::-1][:3], rtol=TOL)


@pytest.mark.parametrize("params", [
    {"eigen_solver": "eigh"},
    {"eigen_solver": "block", "random_state": 0},
    {"eigen_solver": "eigh", "kernel": "poly", "gamma": 0.2, "degree": 2},
    {"eigen_solver": "eigh", "kernel": "linear"},
])
def test_kernel_pca_scores_equal_numpy(data, params):
    X, Y = data
    expected = KernelPCA(5, **params).fit(X)
    actual = KernelPCA(5, **params).fit(strict(X))
    assert actual.gamma_ == expected.gamma_
    assert_close(actual.eigenvalues_, expected.eigenvalues_)
    assert_close(actual.transform(strict(Y)), expected.transform(Y))
    for score in (reconstruction_error, mahalanobis_distance):
        assert_close(score(actual, strict(Y)), score(expected, Y))
    for name in ("reconstruction_error", "mahalanobis"):
        assert_close(training_outlier_scores(actual, name, strict(X)), training_outlier_scores(expected, name, X))


@pytest.mark.parametrize("projection", ["landmarks", "training"])
@pytest.mark.parametrize("landmarks", ["kmeans", "random"])
def test_nystrom_scores_equal_numpy(data, projection, landmarks):
    X, Y = data
    params = {"n_landmarks": 20, "landmarks": landmarks, "random_state": 0, "projection": projection}
    expected = NystromKernelPCA(4, **params).fit(X)
    actual = NystromKernelPCA(4, **params).fit(strict(X))
    assert_close(actual.landmarks_, expected.landmarks_)
    assert_close(actual.eigenvalues_, expected.eigenvalues_)
    for score in (reconstruction_error, mahalanobis_distance):
        assert_close(score(actual, strict(Y)), score(expected, Y))


@pytest.mark.parametrize("outlier_score", ["reconstruction_error", "mahalanobis"])
def test_detector_equals_numpy(data, outlier_score):
    X, Y = data
    expected = KernelSubspaceDetector(KernelPCA(5, eigen_solver="eigh"), outlier_score=outlier_score).fit(X)
    actual = KernelSubspaceDetector(KernelPCA(5, eigen_solver="eigh"), outlier_score=outlier_score).fit(strict(X))
    assert actual.offset_ == pytest.approx(expected.offset_, rel=TOL, abs=TOL)
    assert_close(actual.score_samples(strict(Y)), expected.score_samples(Y))
    assert np.array_equal(to_numpy(actual.predict(strict(Y))), expected.predict(Y))


def test_numpy_input_gives_numpy_output_from_the_numpy_path(data):
    X, Y = data
    model = KernelPCA(3, device="cpu").fit(X)
    assert isinstance(model.dual_coef_, np.ndarray)
    assert isinstance(reconstruction_error(model, Y), np.ndarray)


def test_float32_warns_with_the_residual_it_measured(data):
    X, Y = data
    with pytest.warns(UserWarning, match=r"float32.*residuals reach (\d\.\de-\d\d) \* lambda_1") as caught:
        model = KernelPCA(5, eigen_solver="block", random_state=0, dtype="float32").fit(strict(X))
    assert model.dual_coef_.dtype == xp.float32
    worst = float(str(caught[0].message).split("reach ")[1].split(" ")[0])
    assert 0 < worst < 1e-3
    reference = KernelPCA(5, eigen_solver="eigh").fit(X)
    assert_allclose(to_numpy(model.eigenvalues_), reference.eigenvalues_, rtol=1e-3)
    assert_allclose(to_numpy(reconstruction_error(model, strict(Y))), reconstruction_error(reference, Y), rtol=1e-2,
                    atol=1e-3)


def test_nystrom_float32_warns_with_the_residual_it_measured(data):
    X, Y = data
    params = {"n_landmarks": 40, "random_state": 0}
    with pytest.warns(UserWarning, match=r"float32.*residuals reach (\d\.\de-\d\d) \* lambda_1") as caught:
        model = NystromKernelPCA(4, dtype="float32", **params).fit(strict(X))
    assert model.dual_coef_.dtype == xp.float32
    worst = float(str(caught[0].message).split("reach ")[1].split(" ")[0])
    assert 0 <= worst < 1e-3
    reference = NystromKernelPCA(4, **params).fit(X)
    assert_allclose(to_numpy(model.eigenvalues_), reference.eigenvalues_, rtol=1e-3)


def test_float32_on_numpy_arrays_asks_for_a_device(data):
    X, _ = data
    with pytest.raises(ValueError, match="dtype='float32' computes through the array API: give device='cuda'"):
        KernelPCA(3, dtype="float32").fit(X)


def test_a_kernel_that_overflows_is_the_numpy_paths_error(data):
    X, _ = data
    huge = X * 1e160
    kernel = make_kernel(X, "poly", gamma=1.0, degree=3)
    with pytest.raises(ValueError, match="the poly kernel of these data is not finite: features as large as"):
        kernel(strict(huge))


def test_an_rbf_kernel_underflowing_to_the_identity_warns(data):
    X, _ = data
    with pytest.warns(RuntimeWarning, match="underflows to the identity"):
        make_kernel(X, "rbf", gamma=1e6)(strict(X))


DEVICE1 = xp.Device("device1") if hasattr(xp, "Device") else None


@pytest.mark.parametrize("make", [
    lambda: KernelPCA(5, eigen_solver="block", random_state=0),
    lambda: KernelPCA(5, eigen_solver="eigh"),
    lambda: NystromKernelPCA(4, n_landmarks=20, random_state=0),
    lambda: KernelSubspaceDetector(KernelPCA(5, eigen_solver="block", random_state=0)),
], ids=["kpca-block", "kpca-eigh", "nystrom", "detector"])
def test_a_model_fitted_off_the_host_is_read_by_the_protocols(data, make):
    """array_api_strict's device1 refuses np.asarray, as a GPU array does: the fit and the records' reading
    of the fitted attributes (novelty's fitted_attributes) bring arrays to the host through to_numpy."""
    from kpca_bench.protocols.base import empty_model
    from kpca_bench.protocols.novelty import fitted_attributes

    X, Y = data
    on_device = xp.asarray(X, device=DEVICE1)
    with pytest.raises(RuntimeError, match="device1"):
        np.asarray(on_device)
    model = make().fit(on_device)
    inner = getattr(model, "estimator_", model)
    assert xp.__name__ in type(inner.eigenvalues_).__module__
    assert device_of(inner.eigenvalues_) == DEVICE1
    expected = make().fit(X)
    actual, wanted = fitted_attributes(model), fitted_attributes(expected)
    assert actual.keys() == wanted.keys() and "gamma" in actual
    for key, value in wanted.items():
        assert actual[key] == (value if isinstance(value, str) else pytest.approx(value, rel=1e-6, abs=1e-12)), key
    assert empty_model(model) == empty_model(expected)
    assert_close(inner.eigenvalues_, getattr(expected, "estimator_", expected).eigenvalues_)


def test_to_numpy_brings_a_device_array_to_the_host():
    array = xp.asarray([[1.0, 2.0]], device=DEVICE1)
    host = to_numpy(array)
    assert isinstance(host, np.ndarray)
    assert_allclose(host, [[1.0, 2.0]])
    assert float(to_numpy(xp.max(array))) == 2.0


@pytest.fixture
def fake_cuda(monkeypatch):
    """device='cuda' answered by array_api_strict's device1, which refuses np.asarray as a GPU array does."""
    from kpca_bench import devices

    monkeypatch.setattr(devices, "cuda_library", lambda: (xp, DEVICE1))
    monkeypatch.setattr(devices, "_on_cuda", lambda X: type(X).__module__.startswith(xp.__name__))
    with devices.use_device("cuda"):
        yield


@pytest.mark.filterwarnings("ignore:.*zero eigenvalue")
def test_the_sweep_reads_a_model_fitted_on_the_device(data, fake_cuda):
    from kpca_bench.experiment.config import parse_config
    from kpca_bench.protocols.base import Method
    from kpca_bench.protocols.novelty import Split
    from kpca_bench.protocols.sweep import evaluate_sweep

    X, Y = data
    split = Split(X_train=X[:40], X_test=Y, is_outlier=np.r_[np.zeros(20, bool), np.ones(10, bool)])
    config = parse_config({"name": "t", "dataset": {"name": "digits", "inliers": [0], "outliers": [1],
                                                    "train_inliers": 40, "test_inliers": 20, "test_outliers": 10},
                           "protocol": "novelty_sweep", "methods": [{"name": "kpca"}]})
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
    options = parse_options({"train_size": 60, "test_size": 30, "classifier": "svm", "cv": 2,
                             "search": {"KPCA+SVM": {"n_components": [2, 4]}}}, ThresholdConfig(), problems)
    assert not problems.items, problems.items
    method = Method("KPCA+SVM", "kpca", KernelPCA(4, gamma=0.2, eigen_solver="eigh"), subspace=True)
    record = evaluate_classification_cv(method, Split(X[:60], y[:60], X[60:90], y[60:90]), options)
    assert record["status"] == "ok" and record["n_components"] in (2, 4)
