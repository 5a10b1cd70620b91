"""The flags a protocol puts on a finished cell's record: a model without components (issue 32), joined with others."""

from types import SimpleNamespace

import numpy as np
import pytest

from kpca_bench.methods import KernelPCA
from kpca_bench.methods.sparse_admm import L1SparseKernelPCA
from kpca_bench.protocols.base import (Method, ThresholdConfig, constant_scores, empty_model, stored_empty_model,
                                      with_flags)
from kpca_bench.protocols.novelty import Options, Split, evaluate_novelty


@pytest.mark.parametrize("model, flag", [
    (SimpleNamespace(empty_components_=np.array([True, True, True])), "no components: 3 of 3 empty"),
    (SimpleNamespace(empty_components_=np.array([True, False, True])), None),
    (SimpleNamespace(n_nonzero_=np.array([0, 0])), "no components: 2 of 2 empty"),
    (SimpleNamespace(n_nonzero_=np.array([0, 4])), None),
    (SimpleNamespace(estimator_=SimpleNamespace(empty_components_=np.array([True]))), "no components: 1 of 1 empty"),
    (SimpleNamespace(dual_coef_=np.zeros((4, 2))), None),  # says nothing of its components: no flag
])
def test_a_model_is_flagged_only_when_it_says_every_component_is_empty(model, flag):
    assert empty_model(model).get("degenerate") == flag


@pytest.mark.parametrize("record, flag", [
    ({"status": "ok", "sparsity": 0.0, "params": {"n_components": 15}},
     "no components: 15 of 15 empty (stored sparsity 0 %)"),
    ({"status": "ok", "sparsity": 0.0, "params": {}}, "no components: all empty (stored sparsity 0 %)"),
    ({"status": "ok", "sparsity": 0.01, "params": {"n_components": 15}}, None),
    ({"status": "ok", "params": {}}, None),
    ({"status": "failed", "sparsity": 0.0, "params": {}}, None),
    ({"status": "ok", "sparsity": 0.0, "params": {}, "degenerate": "no components: 3 of 3 empty"}, None),
])
def test_a_stored_record_with_no_non_zero_coefficient_is_read_as_a_model_without_components(record, flag):
    assert stored_empty_model(record).get("degenerate") == flag


def test_flags_are_joined_and_an_empty_one_changes_nothing():
    record = {"status": "ok", "degenerate": "constant scores"}
    assert with_flags(record, {"degenerate": "no components: 2 of 2 empty"})["degenerate"] == \
        "constant scores; no components: 2 of 2 empty"
    assert with_flags({"status": "ok"}, {}) == {"status": "ok"}


def novelty_split(seed=0):
    rng = np.random.default_rng(seed)
    return Split(X_train=rng.normal(size=(30, 2)), X_test=np.r_[rng.normal(size=(10, 2)), rng.normal(4, 1, (10, 2))],
                 is_outlier=np.r_[np.zeros(10, bool), np.ones(10, bool)])


@pytest.mark.filterwarnings("ignore:.*sparse components have no non-zero coefficient")
@pytest.mark.parametrize("estimator, flag", [
    (L1SparseKernelPCA(3, gamma=1.0, lam1=100.0), "no components: 3 of 3 empty"),
    (L1SparseKernelPCA(3, gamma=1.0, lam1=1e-4), None),
    (KernelPCA(3, gamma=1.0), None),
])
def test_the_novelty_record_of_a_model_without_components_carries_the_flag(estimator, flag):
    method = Method(label="m", name="skpca_l1", estimator=estimator, subspace=True)
    record = evaluate_novelty(method, novelty_split(), Options(threshold=ThresholdConfig()))
    assert record["status"] == "ok" and record.get("degenerate") == flag
    # Not constant scores: the empty model still ranks points, by their distance to the kernel mean.
    assert (record["sparsity"] == 0) == (flag is not None) and record["auroc"] > 0.9


@pytest.mark.parametrize("columns, flagged", [
    ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], True),   # each column one value, at its own level (a sweep's MD)
    ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.5]], False),  # one column ranks the points
    ([[0.0, 0.0], [0.0, 0.0]], True),
])
def test_constant_scores_of_a_sweep_are_judged_per_model_parameter(columns, flagged):
    assert constant_scores(np.array(columns)) == ({"degenerate": "constant scores"} if flagged else {})
