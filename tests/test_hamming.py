"""Couto's Hamming kernel: the closed form against the sum over all strings, PSD, normalisation, codes."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from kpca_bench.kernels import hamming_domain_sizes, make_kernel
from kpca_bench.methods import KernelPCA, mahalanobis_distance, reconstruction_error


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


@pytest.mark.parametrize("X, kwargs", [
    (np.array([[0.5, 1.0]]), {"gamma": 0.5}),
    (np.array([[-1.0, 1.0]]), {"gamma": 0.5}),
    (np.array([[0.0, 1.0]]), {"gamma": 1.5}),
    (np.array([[0.0, 1.0]]), {"gamma": None}),
    (np.array([[0.0, 1.0]]), {"gamma": 0.5, "sigma": 1.0}),
])
def test_bad_codes_or_lambda_are_rejected(X, kwargs):
    with pytest.raises(ValueError, match="Hamming"):
        make_kernel(X, "hamming", **kwargs)
