import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.preprocessing import KernelCenterer
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.kernels import KernelCentering, make_kernel, mean_pairwise_sq_distance, resolve_gamma


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


@pytest.mark.parametrize("bad", [{"gamma": 0.0}, {"sigma": 0.0}, {"gamma": -1.0}, {"gamma": "median"},
                                 {"gamma": 1.0, "sigma": 1.0}])
def test_bad_widths_are_rejected_with_a_reason(X, bad):
    with pytest.raises(ValueError, match="gamma|sigma|heuristic"):
        make_kernel(X, "rbf", **bad)


@pytest.mark.parametrize("bad", [{"kernel": "rbff"}, {"degree": 0}, {"degree": 2.5}, {"degree": True},
                                 {"coef0": np.nan}])
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
