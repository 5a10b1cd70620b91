import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from kpca_bench.methods.registry import METHODS


@pytest.mark.parametrize(
    "method, params, name, message",
    [
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
        (
            "naive_threshold",
            {"match_l1_ratio": 1.5},
            "match_l1_ratio",
            "must be a float in the range [0.0, 1.0] or None, got 1.5",
        ),
    ],
)
def test_parameter_problems_name_the_value_and_what_is_accepted(method, params, name, message):
    assert METHODS[method].parameter_problems(params) == [(name, message)]


@pytest.mark.parametrize(
    "method, params, name, options",
    [
        ("kpca", {"kernel": "rbff"}, "kernel", {"rbf", "poly", "linear", "hamming", "hamming_normalized"}),
        ("nystrom_kpca", {"landmarks": "grid"}, "landmarks", {"kmeans", "random"}),
    ],
)
def test_parameter_problems_list_the_accepted_names(method, params, name, options):
    [(problem_name, message)] = METHODS[method].parameter_problems(params)
    assert problem_name == name
    assert message.startswith("must be a str among {") and message.endswith(f", got {params[name]!r}")
    assert all(repr(option) in message for option in options)


@pytest.mark.parametrize(
    "method, params",
    [
        ("kpca", {"n_components": 5, "kernel": "rbf", "sigma": 1.0, "eigen_solver": "arpack"}),
        ("kpca", {"gamma": "mean_pairwise"}),
        ("skpca_l1", {"lam1": [0.01, 0.02], "n_components": 2}),
        ("nystrom_kpca", {"landmarks": np.zeros((3, 2))}),
        ("ocsvm", {"nu": 1, "gamma": "scale"}),
        ("lof", {"n_neighbors": 20}),
        ("isolation_forest", {}),
    ],
)
def test_valid_settings_have_no_problems(method, params):
    assert METHODS[method].parameter_problems(params) == []


def test_every_problem_is_reported_in_the_settings_order_and_on_one_line():
    problems = METHODS["skpca_l21"].parameter_problems(
        {"max_iter": 0, "mu21": -1.0, "lam": 0.1, "delta": np.array([[1.0], [2.0]])}
    )
    assert [name for name, _ in problems] == ["max_iter", "mu21", "delta"]
    assert all("\n" not in message and message.startswith("must be ") for _, message in problems)


def test_names_the_class_does_not_have_are_left_to_the_config():
    assert METHODS["kpca"].parameter_problems({"no_such_parameter": -1}) == []


def test_defaults_are_part_of_the_setting():
    assert METHODS["lof"].defaults == {"novelty": True}
    assert METHODS["lof"].parameter_problems({}) == []


@pytest.mark.parametrize(
    "method, params",
    [
        ("kpca", {"n_components": "ten"}),
        ("ocsvm_kernel", {"nu": 1.5}),
        ("skpca_enet", {"l1_ratio": 2}),
        ("lof", {"n_neighbors": 0}),
    ],
)
def test_fit_raises_what_parameter_problems_reports(method, params):
    spec = METHODS[method]
    [(name, message)] = spec.parameter_problems(params)
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of .* must be"):
        spec.build(params, random_state=0).fit(X)


# Degenerate training data through every registered method: a clear ValueError, or finite scores
# (possibly with a warning that says what is degenerate), never NaN scores passed on silently.
SMALL_PARAMS = {
    "kpca": {"n_components": 5},
    "skpca_enet": {"n_components": 3},
    "skpca_l1": {"n_components": 3},
    "skpca_l21": {"n_components": 3},
    "naive_threshold": {"n_components": 3, "n_nonzero": 2},
    "nystrom_kpca": {"n_components": 3},
    "l1_kpca": {"n_components": 3},
    "lof": {"novelty": True},
}
_BASE = np.random.default_rng(0).normal(size=(30, 4))
DEGENERATE = {
    "duplicated rows": np.repeat(_BASE[:5], 6, axis=0),  # also: n_components above the kernel's rank (5 points)
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


# Exact KPCA's fits with two seeds agree to this, relative to the size of what they give.
EXACT_RTOL = 1e-8
SOLVER_SEEDED = {
    "kpca": {"n_components": 6},
    "skpca_enet": {"n_components": 4, "l1_ratio": 0.5},
    "naive_threshold": {"n_components": 4, "n_nonzero": 20},
}


def fits_with_two_seeds(name: str, setting: dict) -> list[dict]:
    """For seeds 1 and 2: the fitted estimator's dual coefficients and the test points' scores, by score."""
    from kpca_bench.methods import KernelSubspaceDetector

    rng = np.random.default_rng(3)
    X_train, X_test = rng.normal(size=(120, 5)), rng.normal(size=(40, 5))
    fits = []
    for seed in (1, 2):
        detectors = {
            score: KernelSubspaceDetector(METHODS[name].build(setting, random_state=seed), outlier_score=score).fit(
                X_train
            )
            for score in ("reconstruction_error", "mahalanobis")
        }
        fits.append(
            {
                "dual_coef": detectors["mahalanobis"].estimator_.dual_coef_,
                **{score: detector.score_samples(X_test) for score, detector in detectors.items()},
            }
        )
    return fits


@pytest.mark.parametrize("solver", ["eigh", "arpack"])
@pytest.mark.parametrize("name", sorted(SOLVER_SEEDED))
def test_the_seed_of_a_flagged_setting_reaches_only_the_eigensolvers_start(name, solver, monkeypatch):
    from kpca_bench.methods import kpca, sparse_enet

    setting = {**SOLVER_SEEDED[name], "eigen_solver": solver, "gamma": "mean_pairwise"}
    assert METHODS[name].seed_only_starts_solver(setting)
    for module in (kpca, sparse_enet):

        def started_alike(K, k, solver, random_state, *args, solve=module.top_eigenpairs, **options):
            return solve(K, k, solver, 0, *args, **options)

        monkeypatch.setattr(module, "top_eigenpairs", started_alike)
    first, second = fits_with_two_seeds(name, setting)
    for field in first:
        np.testing.assert_array_equal(first[field], second[field])


@pytest.mark.parametrize("solver", ["eigh", "arpack"])
def test_exact_kpcas_fits_with_two_seeds_agree_to_the_solvers_tolerance(solver):
    first, second = fits_with_two_seeds("kpca", {**SOLVER_SEEDED["kpca"], "eigen_solver": solver})
    for field in first:
        assert np.linalg.norm(first[field] - second[field]) <= EXACT_RTOL * np.linalg.norm(first[field])


@pytest.mark.parametrize(
    "name, setting",
    [
        ("kpca", {"eigen_solver": "block"}),
        ("kpca", {}),  # auto may pick the block solver
        ("kpca", {"eigen_solver": "arpack", "dtype": "float32"}),
        ("skpca_enet", {"eigen_solver": "block"}),
        ("naive_threshold", {}),
        ("nystrom_kpca", {}),
        ("l1_kpca", {}),
        ("skpca_l1", {}),
        ("ocsvm", {}),
    ],
)
def test_settings_whose_seed_does_more_than_start_an_exact_solver_are_not_flagged(name, setting):
    assert not METHODS[name].seed_only_starts_solver(setting)


@pytest.mark.parametrize("name, setting", [("nystrom_kpca", {"n_landmarks": 30}), ("l1_kpca", {"n_restarts": 3})])
def test_nystrom_and_l1_kpca_fits_change_with_the_seed(name, setting):
    first, second = fits_with_two_seeds(name, {"n_components": 4, "gamma": "mean_pairwise", **setting})
    assert np.linalg.norm(first["mahalanobis"] - second["mahalanobis"]) > 1e-3 * np.linalg.norm(first["mahalanobis"])
