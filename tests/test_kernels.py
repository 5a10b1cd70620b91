"""Couto's Hamming kernel: the closed form against the sum over all strings, PSD, normalisation, codes (as arrays,
lists and DataFrames alike; bad ones refused with the fix).
Kernel matrices in row blocks on the BLAS threads against scikit-learn's ``pairwise_kernels``.
"""

import itertools
import threading

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.preprocessing import KernelCenterer
from sklearn.utils._param_validation import InvalidParameterError
from threadpoolctl import threadpool_limits

from kpca_bench import kernels
from kpca_bench.kernels import (
    KernelCentering,
    blas_threads,
    hamming_domain_sizes,
    make_kernel,
    map_row_blocks,
    mean_pairwise_sq_distance,
    row_blocks,
    resolve_gamma,
)
from kpca_bench.methods import KernelPCA, mahalanobis_distance, reconstruction_error


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(30, 4))


def test_mean_pairwise_sq_distance_matches_brute_force(X):
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    off_diagonal = d2[~np.eye(len(X), dtype=bool)]
    assert_allclose(mean_pairwise_sq_distance(X), off_diagonal.mean())


def test_width_conventions_agree(X):
    sigma = 1.7
    assert_allclose(resolve_gamma(X, sigma=sigma), 1 / (2 * sigma**2))
    d2 = np.sum((X[0] - X[1]) ** 2)
    K = make_kernel(X, "rbf", sigma=sigma)(X[:2])
    assert_allclose(K[0, 1], np.exp(-d2 / (2 * sigma**2)))
    heuristic = make_kernel(X, "rbf", gamma="mean_pairwise")
    assert_allclose(heuristic.gamma, 1 / (2 * mean_pairwise_sq_distance(X)))


@pytest.mark.parametrize(
    "bad", [{"gamma": 0.0}, {"sigma": 0.0}, {"gamma": -1.0}, {"gamma": "median"}, {"gamma": 1.0, "sigma": 1.0}]
)
def test_bad_widths_are_rejected_with_a_reason(X, bad):
    with pytest.raises(ValueError, match="gamma|sigma|heuristic"):
        make_kernel(X, "rbf", **bad)


@pytest.mark.parametrize(
    "bad", [{"kernel": "rbff"}, {"degree": 0}, {"degree": 2.5}, {"degree": True}, {"coef0": np.nan}]
)
def test_bad_kernel_parameters_are_rejected_by_the_declaration(X, bad):
    name = next(iter(bad))
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of make_kernel must be"):
        make_kernel(X, **{"kernel": "poly", **bad})


def test_identical_points_need_an_explicit_width():
    with pytest.raises(ValueError, match="identical"):
        make_kernel(np.ones((5, 2)), "rbf")


@pytest.mark.parametrize("name", ["rbf", "poly", "linear"])
def test_diagonal_matches_the_matrix(X, name):
    kernel = make_kernel(X, name, degree=2)
    assert_allclose(kernel.diag(X), np.diag(kernel(X)))


def test_centering_matches_scikit_learn_and_explicit_norms(X):
    kernel = make_kernel(X[:20], "poly", degree=2, coef0=0.0)
    K = kernel(X[:20])
    reference = KernelCenterer().fit(K)
    centering = KernelCentering.fit(K)
    assert_allclose(centering.center_train(K.copy()), reference.transform(K), atol=1e-12)
    K_cross = kernel(X[20:], X[:20])
    centered, row_means = centering.center_cross(K_cross.copy())
    assert_allclose(centered, reference.transform(K_cross), atol=1e-12)
    # ||phi(x) - mean phi||^2 with the explicit degree-2 feature map of 4-D inputs
    phi = lambda Z: np.einsum("ni,nj->nij", Z, Z).reshape(len(Z), -1)  # noqa: E731
    explicit = ((phi(X[20:]) - phi(X[:20]).mean(axis=0)) ** 2).sum(axis=1)
    assert_allclose(centering.sq_norms(kernel.diag(X[20:]), row_means), explicit, rtol=1e-10)


def brute_force_hamming(X, Y, lam, sizes):
    """sum over every string u of lam^{d(x, u)} lam^{d(y, u)}, d the Hamming distance."""
    strings = np.array(list(itertools.product(*(range(s) for s in sizes))))
    weight_x = lam ** (X[:, None, :] != strings[None, :, :]).sum(axis=2)
    weight_y = lam ** (Y[:, None, :] != strings[None, :, :]).sum(axis=2)
    return weight_x @ weight_y.T


@pytest.fixture
def codes():
    rng = np.random.default_rng(0)
    sizes = (2, 3, 4, 3)
    X = np.column_stack([rng.integers(0, s, 25) for s in sizes]).astype(float)
    X[0] = np.array(sizes) - 1  # every value occurs, so the sizes are inferred exactly
    return X, sizes


@pytest.mark.parametrize("lam", [0.05, 0.3, 0.7, 1.0])
def test_closed_form_equals_the_sum_over_all_strings(codes, lam):
    X, sizes = codes
    kernel = make_kernel(X, "hamming", gamma=lam)
    assert kernel.domain_sizes == sizes
    expected = brute_force_hamming(X.astype(int), X[:7].astype(int), lam, sizes)
    assert_allclose(kernel(X, X[:7]), expected, rtol=1e-12)
    assert_allclose(kernel.diag(X), np.diag(brute_force_hamming(X.astype(int), X.astype(int), lam, sizes)))


def test_positive_semidefinite_on_random_categorical_data():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(120, 8)).astype(float)
    for lam in (0.02, 0.5, 0.98):
        K = make_kernel(X, "hamming", gamma=lam)(X)
        assert_allclose(K, K.T)
        assert np.linalg.eigvalsh(K).min() > -1e-9 * np.abs(K).max()


def test_normalised_kernel_is_a_constant_multiple_and_leaves_scores_rankings_alone(codes):
    X, _ = codes
    raw, normalised = make_kernel(X, "hamming", gamma=0.4), make_kernel(X, "hamming_normalized", gamma=0.4)
    assert_allclose(normalised(X), raw(X) / raw.diag(X)[0])
    assert_allclose(normalised.diag(X), 1.0)
    train, test = X[:18], X[18:]
    a = KernelPCA(5, kernel="hamming", gamma=0.4).fit(train)
    b = KernelPCA(5, kernel="hamming_normalized", gamma=0.4).fit(train)
    # Scaling the kernel by c scales RE by c and leaves MD unchanged: AUROC is the same either way.
    assert_allclose(reconstruction_error(a, test), reconstruction_error(b, test) * raw.diag(X)[0], rtol=1e-8)
    assert_allclose(mahalanobis_distance(a, test), mahalanobis_distance(b, test), rtol=1e-6)


def test_domain_sizes_are_the_largest_code_plus_one_and_at_least_two():
    X = np.array([[0, 2, 0], [1, 0, 0]], dtype=float)
    assert hamming_domain_sizes(X) == (2, 3, 2)


def test_codes_unseen_in_training_count_as_mismatches():
    train = np.array([[0, 0], [1, 1]], dtype=float)
    kernel = make_kernel(train, "hamming", gamma=0.5)
    a, b = 1 + 0.25, 2 * 0.5  # |D| = 2: match and mismatch factors
    assert_allclose(kernel(np.array([[2.0, 0.0]]), train), [[b * a, b * b]])


@pytest.mark.parametrize(
    "X, kwargs",
    [
        (np.array([[0.5, 1.0]]), {"gamma": 0.5}),
        (np.array([[-1.0, 1.0]]), {"gamma": 0.5}),
        (np.array([[0.0, 1.0]]), {"gamma": 1.5}),
        (np.array([[0.0, 1.0]]), {"gamma": None}),
        (np.array([[0.0, 1.0]]), {"gamma": 0.5, "sigma": 1.0}),
    ],
)
def test_bad_codes_or_lambda_are_rejected(X, kwargs):
    with pytest.raises(ValueError, match="Hamming"):
        make_kernel(X, "hamming", **kwargs)


def test_features_whose_squares_overflow_are_a_clear_error():
    X = np.random.default_rng(0).normal(size=(10, 3)) * 1e300
    with pytest.raises(ValueError, match="scale the features"):
        make_kernel(X, "rbf")
    with pytest.raises(ValueError, match="kernel of these data is not finite.*scale the features"):
        make_kernel(X, "rbf", gamma=1.0)(X)


def test_an_rbf_kernel_that_underflows_to_the_identity_is_warned():
    X = np.random.default_rng(0).normal(size=(10, 3)) * 1e150  # squared distances ~1e300: finite, exp(-d^2) = 0
    with pytest.warns(RuntimeWarning, match="underflows to the identity"):
        K = make_kernel(X, "rbf", gamma=1.0)(X)
    np.testing.assert_array_equal(K, np.eye(10))


def test_finite_values_whose_sum_overflows_are_no_error():
    X = np.full((4, 1), 1e154)  # every linear kernel value 1e308: finite, their sum is not
    assert np.isfinite(make_kernel(X, "linear")(X)).all()


def test_an_rbf_kernel_with_tiny_off_diagonal_values_is_not_the_identity(recwarn):
    X = np.array([[0.0], [1.0]])
    K = make_kernel(X, "rbf", gamma=744.0)(X)  # exp(-744) is subnormal: 1 + it rounds to 1
    assert K[0, 1] > 0 and not [w for w in recwarn if "identity" in str(w.message)]


@pytest.fixture(params=[None, 8 * 40 * 3], ids=["one block", "blocks of 3 rows"])
def block_bytes(request, monkeypatch):
    """The default block size (one block for these tiny matrices), or blocks of 3 rows of 40 columns
    mirrored in bands of 7 rows, tiles of 3."""
    if request.param is not None:
        monkeypatch.setattr(kernels, "BLOCK_BYTES", request.param)
        monkeypatch.setattr(kernels, "MIRROR_ROWS", 7)
        monkeypatch.setattr(kernels, "TRANSPOSE_TILE", 3)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "name, params", [("rbf", {"gamma": 0.07}), ("poly", {"gamma": 0.3, "degree": 3, "coef0": 0.5}), ("linear", {})]
)
def test_kernel_matrices_equal_pairwise_kernels(block_bytes, threads, name, params):
    rng = np.random.default_rng(3)
    X, Y = rng.normal(2.0, 1.5, size=(40, 6)), rng.normal(2.0, 1.5, size=(17, 6))
    kernel = make_kernel(X, name, **params)
    with threadpool_limits(threads):
        for A, B in [(X, None), (Y, X), (X, Y)]:
            expected = pairwise_kernels(A, B, metric=name, **params)
            assert_allclose(kernel(A, B), expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())


@pytest.mark.parametrize("threads", [1, 2])
def test_hamming_kernel_in_blocks_equals_one_block(codes, threads, monkeypatch):
    X, _ = codes
    kernel = make_kernel(X, "hamming", gamma=0.4)
    whole, cross = kernel(X), kernel(X[:7], X)
    monkeypatch.setattr(kernels, "BLOCK_BYTES", 8 * 25 * 2)
    monkeypatch.setattr(kernels, "MIRROR_ROWS", 5)
    with threadpool_limits(threads):
        assert_allclose(kernel(X), whole, rtol=1e-12)
        assert_allclose(kernel(X[:7], X), cross, rtol=1e-12)


def test_the_rbf_kernel_of_a_set_with_itself_is_symmetric_with_a_unit_diagonal(block_bytes):
    X = np.random.default_rng(4).normal(size=(40, 5))
    K = make_kernel(X, "rbf", gamma=0.2)(X)
    assert_allclose(K, K.T, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(np.diag(K), 1.0)


def test_row_blocks_fill_the_budget_within_bands(monkeypatch):
    monkeypatch.setattr(kernels, "BLOCK_BYTES", 8 * 10 * 3)
    assert row_blocks(8, 10) == [slice(0, 3), slice(3, 6), slice(6, 8)]
    assert row_blocks(8, 10, band_rows=4) == [slice(0, 3), slice(3, 4), slice(4, 7), slice(7, 8)]
    assert row_blocks(2, 10**9) == [slice(0, 1), slice(1, 2)]


def test_row_blocks_share_the_blas_threads_out():
    def seen(rows):
        return rows, threading.get_ident(), blas_threads()

    blocks = [slice(i, i + 1) for i in range(25)]
    with threadpool_limits(1):
        serial = map_row_blocks(seen, blocks)
    assert [rows for rows, _, _ in serial] == blocks
    assert {(ident, threads) for _, ident, threads in serial} == {(threading.get_ident(), 1)}
    with threadpool_limits(2):
        parallel = map_row_blocks(seen, blocks)
        assert blas_threads() == 2  # restored after the blocks
    assert [rows for rows, _, _ in parallel] == [rows for rows, _, _ in serial]
    assert {threads for _, _, threads in parallel} == {1}  # each block thread's BLAS is single-threaded
    assert threading.get_ident() not in {ident for _, ident, _ in parallel}


def test_centering_in_blocks_equals_the_whole_matrix_steps(X, monkeypatch):
    K = make_kernel(X, "rbf", gamma=0.3)(X)
    centering = KernelCentering.fit(K)
    expected = K - centering.column_means[np.newaxis, :] - centering.column_means[:, np.newaxis] + centering.grand_mean
    monkeypatch.setattr(kernels, "BLOCK_BYTES", 8 * 30 * 4)
    with threadpool_limits(2):
        np.testing.assert_array_equal(centering.center_train(K.copy()), expected)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
@pytest.mark.parametrize("form", ["list", "DataFrame"])
def test_lists_and_data_frames_take_the_numpy_path(kernel, form):
    """Only device arrays take the array-API path: a list or a DataFrame is read as a float64 NumPy array."""
    import pandas as pd

    from kpca_bench.kernels import KernelCentering
    from kpca_bench.methods.kpca import KernelPCA

    X = np.random.default_rng(5).standard_normal((25, 3))
    as_form = (lambda A: A.tolist()) if form == "list" else (lambda A: pd.DataFrame(A))
    expected = make_kernel(X, kernel, gamma=0.3, degree=2)
    actual = make_kernel(as_form(X), kernel, gamma=0.3, degree=2)
    np.testing.assert_array_equal(actual(as_form(X)), expected(X))
    np.testing.assert_array_equal(expected(as_form(X), as_form(X[:5])), expected(X, X[:5]))
    np.testing.assert_array_equal(expected.diag(as_form(X)), expected.diag(X))
    K = expected(X)
    centering = KernelCentering.fit(K)
    np.testing.assert_array_equal(KernelCentering.fit(as_form(K)).column_means, centering.column_means)
    np.testing.assert_array_equal(centering.center_train(as_form(K)), centering.center_train(K.copy()))
    model = KernelPCA(3, kernel=kernel, gamma=0.3, degree=2, eigen_solver="eigh")
    # scikit-learn's validate_data keeps a DataFrame's column order (Fortran), which moves the last bit.
    assert_allclose(model.fit(as_form(X)).transform(as_form(X)), model.fit(X).transform(X), rtol=1e-12, atol=1e-12)


def hamming_forms(codes: np.ndarray) -> dict:
    """The same category codes as an int array, a list of lists, a DataFrame of int columns and one of categoricals
    whose categories are the codes (read by their values, as scikit-learn reads them)."""
    import pandas as pd

    frame = pd.DataFrame(codes.astype(int), columns=[f"a{i}" for i in range(codes.shape[1])])
    return {
        "int array": codes.astype(int),
        "list": codes.astype(int).tolist(),
        "DataFrame": frame,
        "categorical DataFrame": frame.astype("category"),
    }


@pytest.mark.parametrize("form", ["int array", "list", "DataFrame", "categorical DataFrame"])
def test_hamming_kernel_pca_on_lists_and_data_frames_equals_the_array_bit_for_bit(codes, form):
    from kpca_bench.methods import KernelSubspaceDetector

    X, sizes = codes
    given, reference = hamming_forms(X)[form], X.astype(float)
    train, test = given[:18], given[18:]
    kernel = make_kernel(given, "hamming", gamma=0.4)
    assert hamming_domain_sizes(given) == kernel.domain_sizes == sizes
    np.testing.assert_array_equal(kernel(given), make_kernel(reference, "hamming", gamma=0.4)(reference))
    model, expected = (
        KernelPCA(4, kernel="hamming", gamma=0.4, eigen_solver="eigh"),
        KernelPCA(4, kernel="hamming", gamma=0.4, eigen_solver="eigh").fit(reference[:18]),
    )
    np.testing.assert_array_equal(model.fit(train).transform(test), expected.transform(reference[18:]))
    np.testing.assert_array_equal(reconstruction_error(model, test), reconstruction_error(expected, reference[18:]))
    detector = KernelSubspaceDetector(KernelPCA(4, kernel="hamming", gamma=0.4, eigen_solver="eigh"))
    np.testing.assert_array_equal(
        detector.fit(train).score_samples(test), detector.fit(reference[:18]).score_samples(reference[18:])
    )


@pytest.mark.parametrize(
    "bad, problem",
    [
        ([["a", "b"], ["b", "a"]], "strings"),
        ("frame of strings", "strings"),
        ("categorical strings", "strings"),
        ([[0, -1], [1, 0]], "negative values such as -1"),
        ([[0, 0.5], [1, 0]], "non-integer values such as 0.5"),
        ([[0, np.nan], [1, 0]], "NaN or infinite values"),
    ],
)
@pytest.mark.filterwarnings("ignore:X has feature names")  # a DataFrame given to a model fitted on a list
def test_bad_category_codes_are_one_error_naming_the_fix(bad, problem):
    import pandas as pd

    from kpca_bench.methods import KernelSubspaceDetector
    from kpca_bench.methods.baselines import KernelOneClassSVM

    frames = {"frame of strings": pd.DataFrame({"colour": ["red", "blue"], "size": ["S", "M"]})}
    frames["categorical strings"] = frames["frame of strings"].astype("category")
    X = frames.get(bad, bad) if isinstance(bad, str) else bad
    message = (
        rf"^the Hamming kernel needs categorical data as integer codes >= 0, got {problem}: encode each "
        r"categorical column as codes 0, 1, 2, \.\.\. \(sklearn\.preprocessing\.OrdinalEncoder, or a pandas "
        r"categorical's \.cat\.codes, missing values are -1 there: drop or impute them first\)"
    )
    with pytest.raises(ValueError, match=message):
        make_kernel(X, "hamming", gamma=0.5)
    # Each model reads X as codes before anything else: in fit, and in scoring after a fit on good codes.
    models = [
        KernelPCA(1, kernel="hamming", gamma=0.5),
        KernelSubspaceDetector(KernelPCA(1, kernel="hamming", gamma=0.5)),
        KernelOneClassSVM(kernel="hamming", gamma=0.5),
    ]
    for model in models:
        with pytest.raises(ValueError, match=message):
            model.fit(X)
        fitted = model.fit([[0, 0], [1, 1], [0, 1]])
        with pytest.raises(ValueError, match=message):
            fitted.transform(X) if isinstance(model, KernelPCA) else fitted.score_samples(X)
