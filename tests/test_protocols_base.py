"""The flags a protocol puts on a finished cell's record: a model without components, a fit stopped on its
iteration limit, joined with others."""

from types import SimpleNamespace

import numpy as np
import pytest

from kpca_bench.methods import KernelPCA
from kpca_bench.methods.sparse_admm import L1SparseKernelPCA
from kpca_bench.protocols.base import Method, ThresholdConfig, constant_scores, empty_model, iteration_limit, with_flags
from kpca_bench.protocols.novelty import Options, Split, evaluate_novelty


@pytest.mark.parametrize(
    "model, flag",
    [
        (SimpleNamespace(empty_components_=np.array([True, True, True])), "no components: 3 of 3 empty"),
        (SimpleNamespace(empty_components_=np.array([True, False, True])), None),
        (SimpleNamespace(n_nonzero_=np.array([0, 0])), "no components: 2 of 2 empty"),
        (SimpleNamespace(n_nonzero_=np.array([0, 4])), None),
        (
            SimpleNamespace(estimator_=SimpleNamespace(empty_components_=np.array([True]))),
            "no components: 1 of 1 empty",
        ),
        (SimpleNamespace(dual_coef_=np.zeros((4, 2))), None),  # says nothing of its components: no flag
    ],
)
def test_a_model_is_flagged_only_when_it_says_every_component_is_empty(model, flag):
    assert empty_model(model).get("degenerate") == flag


def test_flags_are_joined_and_an_empty_one_changes_nothing():
    record = {"status": "ok", "degenerate": "constant scores"}
    assert (
        with_flags(record, {"degenerate": "no components: 2 of 2 empty"})["degenerate"]
        == "constant scores; no components: 2 of 2 empty"
    )
    assert with_flags({"status": "ok"}, {}) == {"status": "ok"}


SKPCA_LIMIT = (
    "SKPCA stopped after max_iter=6 alternations before the relative change of beta fell below tol=0.001; "
    "raise max_iter for a converged solution"
)
LARS = "Early stopping the lars path, as the residues are small and the current value of alpha is no longer well "


@pytest.mark.parametrize(
    "messages, n_iter, flag",
    [
        ([SKPCA_LIMIT], 6.0, "stopped at max_iter = 6 (ConvergenceWarning)"),
        (
            [
                "3 of 10 sparse components stopped at max_outer_iter=300 before the outer loop converged (eps_outer); raise "
                "max_outer_iter"
            ],
            300.0,
            "stopped at max_outer_iter = 300 (ConvergenceWarning)",
        ),
        (
            ["L1-norm KPCA component 2: the sign pattern still changed after max_iter=100 steps; increase max_iter"],
            100,
            "stopped at max_iter = 100 (ConvergenceWarning)",
        ),
        (
            ["Solver terminated early (max_iter=50).  Consider pre-processing your data"],
            None,
            "stopped at max_iter = 50 (ConvergenceWarning)",
        ),
        (
            ["block Krylov eigensolver stopped after 30 restarts with residual 1e-05 * lambda_1 on eigenpair 3"],
            None,
            "stopped at max_restarts = 30 (ConvergenceWarning)",
        ),
        ([LARS, SKPCA_LIMIT], 6.0, "stopped at max_iter = 6 (ConvergenceWarning)"),
        # k-means's duplicate points (Nystrom's landmarks) and LARS's early stop name no iteration limit.
        (
            ["Number of distinct clusters (148) found smaller than n_clusters (149). Possibly due to duplicate points"],
            None,
            None,
        ),
        ([LARS], 6.0, None),
        ([], None, None),
    ],
)
def test_a_fit_is_flagged_not_converged_when_a_convergence_warning_names_the_limit_it_stopped_on(
    messages, n_iter, flag
):
    assert iteration_limit(messages, n_iter).get("not_converged") == flag


def test_each_flag_is_joined_in_its_own_field():
    record = with_flags(
        {"status": "ok", "degenerate": "constant scores"},
        {"not_converged": "stopped at max_iter = 6 (ConvergenceWarning)"},
        {},
    )
    assert record["degenerate"] == "constant scores"
    assert record["not_converged"] == "stopped at max_iter = 6 (ConvergenceWarning)"
    assert "not_converged" not in with_flags({"status": "ok"}, {"degenerate": "constant scores"})


def novelty_split(seed=0):
    rng = np.random.default_rng(seed)
    return Split(
        X_train=rng.normal(size=(30, 2)),
        X_test=np.r_[rng.normal(size=(10, 2)), rng.normal(4, 1, (10, 2))],
        is_outlier=np.r_[np.zeros(10, bool), np.ones(10, bool)],
    )


@pytest.mark.filterwarnings("ignore:.*sparse components have no non-zero coefficient")
@pytest.mark.parametrize(
    "estimator, flag",
    [
        (L1SparseKernelPCA(3, gamma=1.0, lam1=100.0), "no components: 3 of 3 empty"),
        (L1SparseKernelPCA(3, gamma=1.0, lam1=1e-4), None),
        (KernelPCA(3, gamma=1.0), None),
    ],
)
def test_the_novelty_record_of_a_model_without_components_carries_the_flag(estimator, flag):
    method = Method(label="m", name="skpca_l1", estimator=estimator, subspace=True)
    record = evaluate_novelty(method, novelty_split(), Options(threshold=ThresholdConfig()))
    assert record["status"] == "ok" and record.get("degenerate") == flag
    # Not constant scores: the empty model still ranks points, by their distance to the kernel mean.
    assert (record["sparsity"] == 0) == (flag is not None) and record["auroc"] > 0.9


@pytest.mark.parametrize(
    "columns, flagged",
    [
        ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], True),  # each column one value, at its own level (a sweep's MD)
        ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.5]], False),  # one column ranks the points
        ([[0.0, 0.0], [0.0, 0.0]], True),
    ],
)
def test_constant_scores_of_a_sweep_are_judged_per_model_parameter(columns, flagged):
    assert constant_scores(np.array(columns)) == ({"degenerate": "constant scores"} if flagged else {})
