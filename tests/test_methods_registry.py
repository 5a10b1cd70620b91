import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.methods.registry import METHODS


@pytest.mark.parametrize("method, params, name, message", [
    ("kpca", {"n_components": "ten"}, "n_components", "must be an int in the range [1, inf) or None, got 'ten'"),
    ("kpca", {"n_components": 0}, "n_components", "must be an int in the range [1, inf) or None, got 0"),
    ("kpca", {"n_components": True}, "n_components", "must be an int in the range [1, inf) or None, got True"),
    ("kpca", {"sigma": -1.0}, "sigma", "must be a float in the range (0.0, inf) or None, got -1.0"),
    ("ocsvm", {"nu": 1.5}, "nu", "must be a float in the range (0.0, 1.0], got 1.5"),
    ("ocsvm_kernel", {"nu": 0}, "nu", "must be a float in the range (0.0, 1.0], got 0"),
    ("isolation_forest", {"n_estimators": -1}, "n_estimators", "must be an int in the range [1, inf), got -1"),
    ("skpca_enet", {"l1_ratio": 2}, "l1_ratio", "must be a float in the range [0.0, 1.0], got 2"),
    ("lof", {"n_neighbors": 0}, "n_neighbors", "must be an int in the range [1, inf) or None, got 0"),
    ("skpca_l21", {"eta": 1}, "eta", "must be a float in the range (1.0, inf), got 1"),
    ("naive_threshold", {"match_l1_ratio": 1.5}, "match_l1_ratio",
     "must be a float in the range [0.0, 1.0] or None, got 1.5"),
])
def test_parameter_problems_name_the_value_and_what_is_accepted(method, params, name, message):
    assert METHODS[method].parameter_problems(params) == [(name, message)]


@pytest.mark.parametrize("method, params, name, options", [
    ("kpca", {"kernel": "rbff"}, "kernel", {"rbf", "poly", "linear", "hamming", "hamming_normalized"}),
    ("nystrom_kpca", {"landmarks": "grid"}, "landmarks", {"kmeans", "random"}),
])
def test_parameter_problems_list_the_accepted_names(method, params, name, options):
    [(problem_name, message)] = METHODS[method].parameter_problems(params)
    assert problem_name == name
    assert message.startswith("must be a str among {") and message.endswith(f", got {params[name]!r}")
    assert all(repr(option) in message for option in options)


@pytest.mark.parametrize("method, params", [
    ("kpca", {"n_components": 5, "kernel": "rbf", "sigma": 1.0, "eigen_solver": "arpack"}),
    ("kpca", {"gamma": "mean_pairwise"}),
    ("skpca_l1", {"lam1": [0.01, 0.02], "n_components": 2}),
    ("nystrom_kpca", {"landmarks": np.zeros((3, 2))}),
    ("ocsvm", {"nu": 1, "gamma": "scale"}),
    ("lof", {"n_neighbors": 20}),
    ("isolation_forest", {}),
])
def test_valid_settings_have_no_problems(method, params):
    assert METHODS[method].parameter_problems(params) == []


def test_every_problem_is_reported_in_the_settings_order_and_on_one_line():
    problems = METHODS["skpca_l21"].parameter_problems({"max_iter": 0, "mu21": -1.0, "lam": 0.1,
                                                       "delta": np.array([[1.0], [2.0]])})
    assert [name for name, _ in problems] == ["max_iter", "mu21", "delta"]
    assert all("\n" not in message and message.startswith("must be ") for _, message in problems)


def test_names_the_class_does_not_have_are_left_to_the_config():
    assert METHODS["kpca"].parameter_problems({"no_such_parameter": -1}) == []


def test_defaults_are_part_of_the_setting():
    assert METHODS["lof"].defaults == {"novelty": True}
    assert METHODS["lof"].parameter_problems({}) == []


@pytest.mark.parametrize("method, params", [("kpca", {"n_components": "ten"}), ("ocsvm_kernel", {"nu": 1.5}),
                                            ("skpca_enet", {"l1_ratio": 2}), ("lof", {"n_neighbors": 0})])
def test_fit_raises_what_parameter_problems_reports(method, params):
    spec = METHODS[method]
    [(name, message)] = spec.parameter_problems(params)
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of .* must be"):
        spec.build(params, random_state=0).fit(X)


# Degenerate training data through every registered method: a clear ValueError, or finite scores
# (possibly with a warning that says what is degenerate), never NaN scores passed on silently.
SMALL_PARAMS = {"kpca": {"n_components": 5}, "skpca_enet": {"n_components": 3}, "skpca_l1": {"n_components": 3},
                "skpca_l21": {"n_components": 3}, "naive_threshold": {"n_components": 3, "n_nonzero": 2},
                "nystrom_kpca": {"n_components": 3}, "l1_kpca": {"n_components": 3}, "lof": {"novelty": True}}
_BASE = np.random.default_rng(0).normal(size=(30, 4))
DEGENERATE = {
    "duplicated rows": np.repeat(_BASE[:5], 6, axis=0),   # also: n_components above the kernel's rank (5 points)
    "constant features": np.column_stack([_BASE[:, :2], np.ones(30), np.zeros(30)]),
    "three training points": _BASE[:3],
    "features of 1e300": _BASE * 1e300,
}


def fit_and_score(name: str, X: np.ndarray) -> np.ndarray:
    from kpca_bench.methods import KernelSubspaceDetector

    spec = METHODS[name]
    estimator = spec.build(SMALL_PARAMS.get(name, {}), random_state=0)
    detector = KernelSubspaceDetector(estimator, outlier_score="reconstruction_error") if spec.subspace else estimator
    return detector.fit(X).score_samples(_BASE)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", list(DEGENERATE))
@pytest.mark.parametrize("name", list(METHODS))
def test_degenerate_data_give_a_clear_error_or_finite_scores(name, case):
    try:
        scores = fit_and_score(name, DEGENERATE[case])
    except ValueError as error:
        assert str(error).strip() and "Traceback" not in str(error)
        return
    assert np.all(np.isfinite(scores)), f"{name} on {case}: non-finite scores"


@pytest.mark.parametrize("name", [name for name, spec in METHODS.items() if spec.subspace])
def test_kernel_pca_methods_reject_overflowing_features_naming_the_fix(name):
    with pytest.raises(ValueError, match="scale the features"):
        fit_and_score(name, DEGENERATE["features of 1e300"])


@pytest.mark.parametrize("name", [name for name, spec in METHODS.items() if spec.subspace])
def test_kernel_pca_methods_reject_more_components_than_three_points_allow(name):
    with pytest.raises(ValueError, match="more than the 2 components that 3 training samples can have"):
        fit_and_score(name, DEGENERATE["three training points"])


def test_kpca_warns_when_asked_for_components_beyond_the_kernels_rank():
    with pytest.warns(UserWarning, match="zero eigenvalue"):
        scores = fit_and_score("kpca", DEGENERATE["duplicated rows"])
    assert np.all(np.isfinite(scores))
