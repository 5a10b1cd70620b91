import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.methods.baselines import KernelOneClassSVM


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(20, 3))


@pytest.mark.parametrize("params", [{"nu": 1.5}, {"nu": 0.0}, {"tol": 0.0}, {"kernel": "rbff"}, {"sigma": 0.0},
                                    {"gamma": "median"}])
def test_invalid_parameters_are_rejected_by_the_declaration(X, params):
    (name,) = params
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of KernelOneClassSVM must be"):
        KernelOneClassSVM(**params).fit(X)


def test_checks_that_combine_parameters_or_need_the_data_stay(X):
    with pytest.raises(ValueError, match="gamma or as sigma, not both"):
        KernelOneClassSVM(gamma=1.0, sigma=1.0).fit(X)
    with pytest.raises(ValueError, match="Hamming kernel takes its lambda as gamma"):
        KernelOneClassSVM(kernel="hamming", gamma=2.0).fit(X.round().clip(0))
    with pytest.raises(ValueError, match="at least 2 training samples"):
        KernelOneClassSVM(sigma=1.0).fit(X[:1])
