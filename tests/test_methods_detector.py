import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.methods import KernelPCA, KernelSubspaceDetector


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(20, 3))


@pytest.mark.parametrize("params", [{"outlier_score": "euclidean"}, {"contamination": 0.0}, {"contamination": 0.6},
                                    {"estimator": PCA(2)}])
def test_invalid_parameters_are_rejected_by_the_declaration(X, params):
    (name,) = params
    detector = KernelSubspaceDetector(**{"estimator": KernelPCA(2, sigma=1.0), **params})
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of KernelSubspaceDetector must be"):
        detector.fit(X)


def test_the_wrapped_estimator_validates_its_own_parameters(X):
    with pytest.raises(InvalidParameterError, match="'n_components' parameter of KernelPCA must be"):
        KernelSubspaceDetector(KernelPCA("ten")).fit(X)
