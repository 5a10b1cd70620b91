"""scikit-learn's estimator checks over every registered kernel-PCA variant."""

import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_param_validation, parametrize_with_checks

from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.registry import METHODS

# Small settings so the checks' tiny datasets (a few dozen rows) are valid inputs.
SMALL = {"n_components": 2, "n_landmarks": 10, "n_restarts": 2}


def small(spec):
    names = spec.param_names()
    return spec.estimator(**{k: v for k, v in SMALL.items() if k in names})


@parametrize_with_checks([small(spec) for spec in METHODS.values() if spec.subspace])
def test_scikit_learn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


OURS = [small(spec) for spec in METHODS.values() if spec.estimator.__module__.startswith("kpca_bench.")]


@pytest.mark.parametrize("estimator", [*OURS, KernelSubspaceDetector(OURS[0])], ids=lambda e: type(e).__name__)
def test_every_parameter_is_declared_and_checked_by_fit(estimator):
    """scikit-learn's own check: a constraint per parameter, and fit rejects values outside each."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_param_validation(type(estimator).__name__, estimator)
