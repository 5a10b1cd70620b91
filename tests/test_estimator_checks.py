"""scikit-learn's estimator checks over every registered kernel-PCA variant."""

import warnings

from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

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
