"""Fit groups: the cells of one trial that differ only in the outlier score of a kernel-PCA variant whose
seed only starts an exact eigensolver run as one task that fits once, with the seed of the group's
reconstruction-error cell, whatever the order of the entries and whatever else ran.

No real data: the small example file shipped in kpca_bench/configs/examples/data (180 rows, 4 features).
"""

import json
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from kpca_bench.experiment.config_parser import parse_config
from kpca_bench.experiment.runner import run_experiment
from kpca_bench.experiment.planning import derive_seed, plan_cells, tasks_of
from kpca_bench.experiment.store import RECORDS_FILE, ResultStore
from kpca_bench.methods import KernelPCA
from kpca_bench.methods.nystrom import NystromKernelPCA
from kpca_bench.protocols import PROTOCOLS

DATA = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data" / "example.npz"
KPCA = {"n_components": 4, "gamma": "mean_pairwise", "eigen_solver": "arpack"}
NYSTROM = {"n_components": 4, "n_landmarks": 20, "gamma": "mean_pairwise"}
ENTRIES = [
    {"name": "kpca", "label": "KPCA RE", "params": KPCA, "score": "reconstruction_error"},
    {"name": "kpca", "label": "KPCA MD", "params": KPCA, "score": "mahalanobis"},
    {"name": "nystrom_kpca", "label": "Nystrom RE", "params": NYSTROM, "score": "reconstruction_error"},
    {"name": "nystrom_kpca", "label": "Nystrom MD", "params": NYSTROM, "score": "mahalanobis"},
    {"name": "knn", "label": "kNN"},
]
PROTOCOL_ENTRIES = {
    "adbench": ({"name": "adbench", "max_train": 60}, {}),
    "unsupervised": ({"name": "unsupervised", "n_inliers": 60, "n_outliers": 10}, {}),
    "novelty": ({"name": "novelty"}, {"train_inliers": 60, "test_inliers": 40, "test_outliers": 20}),
}
# What a cell measured, as its record holds it (times and where it ran aside).
NUMBERS = (
    "status",
    "auroc",
    "auprc",
    "f1",
    "precision",
    "recall",
    "threshold",
    "f1_by_rule",
    "roc_tpr",
    "sparsity",
    "gamma",
    "eigen_solver",
    "random_state",
    "split_seed",
    "n_train",
)


def raw_config(*labels: str, protocol: str = "adbench") -> dict:
    """Two trials of the entries ``labels`` (default: all) under ``protocol``."""
    options, sizes = PROTOCOL_ENTRIES[protocol]
    return {
        "name": "groups",
        "dataset": {
            "name": "file",
            "options": {"path": str(DATA)},
            "scaling": "minmax",
            "inliers": [0],
            "outliers": [1],
            **sizes,
        },
        "protocol": options,
        "trials": 2,
        "seed": 0,
        "methods": [entry for entry in ENTRIES if entry["label"] in labels] if labels else ENTRIES,
    }


def config(*labels: str, protocol: str = "adbench"):
    return parse_config(raw_config(*labels, protocol=protocol))


def run(out: Path, *labels: str, jobs: int = 1, **options) -> dict[str, dict]:
    """The records of a run of the entries ``labels`` (default: all), by label and trial."""
    outcome = run_experiment(config(*labels), out, jobs=jobs, notify=lambda message: None, **options)
    if outcome.stopped_by is not None:
        raise outcome.stopped_by
    return by_entry(outcome.directory)


def by_entry(folder: Path) -> dict[tuple[str, int], dict]:
    return {(record["entry"], record["trial"]): record for record in ResultStore(folder).load().values()}


def numbers(record: dict) -> dict:
    return {name: record.get(name) for name in NUMBERS}


@pytest.fixture
def fits(monkeypatch) -> Counter:
    """Fits of exact and Nystrom KPCA in this process, by class."""
    counted = Counter()
    for cls in (KernelPCA, NystromKernelPCA):

        def counting(self, X, y=None, fit=cls.fit):
            counted[type(self).__name__] += 1
            return fit(self, X, y)

        monkeypatch.setattr(cls, "fit", counting)
    return counted


@pytest.fixture(scope="module")
def grouped(tmp_path_factory) -> dict:
    """Every entry, two trials, one job."""
    return run(tmp_path_factory.mktemp("grouped"))


def test_the_re_and_md_cells_of_exact_kpca_form_a_group_with_the_re_cells_seed():
    planned = config()
    cells = plan_cells(planned)
    for trial in (0, 1):
        cell = {planned.methods[c.method_index].label: c for c in cells if c.trial == trial}
        assert cell["KPCA MD"].fit_group == cell["KPCA RE"].fit_group is not None
        assert cell["KPCA MD"].random_state == cell["KPCA RE"].random_state
        assert {cell[label].fit_group for label in ("Nystrom RE", "Nystrom MD", "kNN")} == {None}
        assert cell["Nystrom MD"].random_state != cell["Nystrom RE"].random_state
    tasks = tasks_of(cells, planned)
    assert [[planned.methods[c.method_index].label for c in task] for task in tasks[:4]] == [
        ["KPCA RE", "KPCA MD"],
        ["Nystrom RE"],
        ["Nystrom MD"],
        ["kNN"],
    ]  # groups, kernel methods, the rest
    assert [task[0].trial for task in tasks] == [0] * 4 + [1] * 4
    reversed_order = parse_config({**raw_config(), "methods": ENTRIES[::-1]})
    labels = [
        [reversed_order.methods[c.method_index].label for c in task]
        for task in tasks_of(plan_cells(reversed_order), reversed_order)[:4]
    ]
    assert labels == [["KPCA MD", "KPCA RE"], ["Nystrom MD"], ["Nystrom RE"], ["kNN"]]
    # The group's seed is its reconstruction-error cell's, whatever the order of the entries.
    assert {(c.key, c.random_state) for c in plan_cells(reversed_order)} == {(c.key, c.random_state) for c in cells}


def test_a_fit_group_moves_the_seed_and_the_key_of_its_mahalanobis_cells_only(monkeypatch):
    grouped = plan_cells(config())
    monkeypatch.setattr(PROTOCOLS["adbench"], "shares_fits", False)
    alone = plan_cells(config())
    assert [c.split_seed for c in grouped] == [c.split_seed for c in alone]
    moved_seeds = [c.method_index for c, before in zip(grouped, alone) if c.random_state != before.random_state]
    moved_keys = [c.method_index for c, before in zip(grouped, alone) if c.key != before.key]
    assert moved_seeds == moved_keys == [1, 1]  # KPCA MD in each trial
    assert {c.fit_group for c in alone} == {None}


def test_a_cell_alone_in_its_group_keeps_its_own_seed_and_key(monkeypatch):
    md_alone = {c.trial: c for c in plan_cells(config("KPCA MD"))}
    monkeypatch.setattr(PROTOCOLS["adbench"], "shares_fits", False)
    unshared = {c.trial: c for c in plan_cells(config("KPCA MD"))}
    assert md_alone == unshared  # so a record computed with the group's seed is never taken for it, nor the reverse


def test_a_protocol_that_fits_each_cell_itself_has_no_fit_groups():
    assert not PROTOCOLS["novelty_sweep"].shares_fits
    assert {name for name, protocol in PROTOCOLS.items() if protocol.shares_fits} == {
        "novelty",
        "unsupervised",
        "adbench",
    }


@pytest.mark.parametrize("protocol", list(PROTOCOL_ENTRIES))
def test_a_group_fits_once_and_its_other_cells_say_whose_fit_they_scored(tmp_path, fits, protocol):
    outcome = run_experiment(config(protocol=protocol), tmp_path, notify=lambda message: None)
    assert outcome.stopped_by is None and not outcome.failures
    assert fits == {"KernelPCA": 2, "NystromKernelPCA": 4}
    records = by_entry(outcome.directory)
    for trial in (0, 1):
        assert records["KPCA MD", trial]["fit_shared_with"] == records["KPCA RE", trial]["key"]
        assert all(
            "fit_shared_with" not in records[label, trial] for label in ("KPCA RE", "Nystrom RE", "Nystrom MD", "kNN")
        )
        # The one fit's time is the model's cost in both records (the scoring cell's wall time is its own).
        assert records["KPCA MD", trial]["fit_time"] == records["KPCA RE", trial]["fit_time"]


def test_the_first_cells_numbers_are_as_alone_and_the_others_within_the_solvers_tolerance(grouped, tmp_path):
    before = run(tmp_path / "re", "KPCA RE") | run(tmp_path / "md", "KPCA MD")  # no group: each its own seed
    for trial in (0, 1):
        assert numbers(grouped["KPCA RE", trial]) == numbers(before["KPCA RE", trial])
        shared, own = grouped["KPCA MD", trial], before["KPCA MD", trial]
        assert shared["random_state"] == grouped["KPCA RE", trial]["random_state"] != own["random_state"]
        assert own["random_state"] == derive_seed(0, trial, {"method": "kpca", "setting": KPCA, "score": "mahalanobis"})
        for name in ("auroc", "auprc", "f1", "threshold", "sparsity"):
            assert shared[name] == pytest.approx(own[name], rel=1e-8, abs=1e-12), name
        np.testing.assert_allclose(shared["roc_tpr"], own["roc_tpr"], rtol=1e-8)


def test_a_cell_whose_group_partner_is_stored_runs_alone_to_the_same_numbers(grouped, tmp_path, fits):
    folder = tmp_path / "groups"
    folder.mkdir()
    (folder / RECORDS_FILE).write_text(
        "".join(json.dumps(record) + "\n" for (label, _), record in grouped.items() if label != "KPCA MD")
    )
    resumed = run(tmp_path)
    assert fits == {"KernelPCA": 2}
    for trial in (0, 1):
        assert "fit_shared_with" not in resumed["KPCA MD", trial]
        assert numbers(resumed["KPCA MD", trial]) == numbers(grouped["KPCA MD", trial])


def test_one_job_and_two_give_the_same_numbers(grouped, tmp_path):
    parallel = run(tmp_path, jobs=2)
    assert parallel.keys() == grouped.keys()
    assert all(numbers(parallel[cell]) == numbers(grouped[cell]) for cell in grouped)
    assert all(parallel[cell].get("fit_shared_with") == grouped[cell].get("fit_shared_with") for cell in grouped)


def test_an_interrupt_between_the_cells_of_a_group_resumes_to_the_same_numbers(grouped, tmp_path, monkeypatch):
    append = ResultStore.append

    def interrupt_after_one(store, record):
        if store.load():
            raise KeyboardInterrupt
        append(store, record)

    monkeypatch.setattr(ResultStore, "append", interrupt_after_one)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path)
    assert [record["entry"] for record in by_entry(tmp_path / "groups").values()] == ["KPCA RE"]
    monkeypatch.setattr(ResultStore, "append", append)
    resumed = run(tmp_path)
    assert all(numbers(resumed[cell]) == numbers(grouped[cell]) for cell in grouped)


def failing_fit(monkeypatch) -> list:
    """Exact KPCA's fit raises; the list counts the attempts."""
    attempts = []

    def fail(self, K_centered):
        attempts.append(K_centered.shape)
        raise np.linalg.LinAlgError("no eigenpairs today")

    monkeypatch.setattr(KernelPCA, "_fit_components", fail)
    return attempts


def test_a_failed_fit_gives_each_cell_of_its_group_a_failed_record(tmp_path, monkeypatch):
    attempts = failing_fit(monkeypatch)
    records = run(tmp_path)
    assert len(attempts) == 2
    for trial in (0, 1):
        for label in ("KPCA RE", "KPCA MD"):
            record = records[label, trial]
            assert (record["status"], record["error_type"], record["error"]) == (
                "failed",
                "LinAlgError",
                "no eigenpairs today",
            )
        assert records["KPCA MD", trial]["fit_shared_with"] == records["KPCA RE", trial]["key"]
        assert records["Nystrom MD", trial]["status"] == "ok"


def test_fail_fast_stores_every_record_of_the_group_that_failed(tmp_path, monkeypatch):
    failing_fit(monkeypatch)
    records = run(tmp_path, fail_fast=True)
    assert sorted(records) == [("KPCA MD", 0), ("KPCA RE", 0)]


@pytest.mark.slow
def test_a_dask_run_shares_fits_to_the_same_numbers(grouped, tmp_path):
    pytest.importorskip("distributed")
    dask = parse_config({**raw_config(), "execution": {"backend": "dask", "address": "local"}})
    outcome = run_experiment(dask, tmp_path, jobs=2, notify=lambda message: None)
    assert outcome.stopped_by is None
    records = by_entry(outcome.directory)
    assert all(numbers(records[cell]) == numbers(grouped[cell]) for cell in grouped)
    assert all(records[cell].get("fit_shared_with") == grouped[cell].get("fit_shared_with") for cell in grouped)


def test_an_skpca_group_scores_one_model_and_each_cell_counts_the_fits_warnings(tmp_path):
    skpca = {"n_components": 3, "l1_ratio": 0.5, "gamma": "mean_pairwise", "eigen_solver": "arpack", "max_iter": 1}
    raw = {
        **raw_config(),
        "methods": [
            {"name": "skpca_enet", "label": f"SKPCA {score}", "params": skpca, "score": score} for score in ("RE", "MD")
        ],
    }
    raw["methods"][0]["score"], raw["methods"][1]["score"] = "reconstruction_error", "mahalanobis"
    outcome = run_experiment(parse_config(raw), tmp_path, notify=lambda message: None)
    assert outcome.stopped_by is None and not outcome.failures
    records = by_entry(outcome.directory)
    for trial in (0, 1):
        re, md = records["SKPCA RE", trial], records["SKPCA MD", trial]
        assert md["fit_shared_with"] == re["key"]
        assert (md["sparsity"], md["n_iter"], md["random_state"]) == (re["sparsity"], re["n_iter"], re["random_state"])
        # max_iter=1 stops SKPCA before it converges: the warning is the fit's, so both cells count it.
        assert md["warnings"] == re["warnings"] and re["warnings"]["ConvergenceWarning"] >= 1


def test_an_entry_without_a_score_is_scored_by_reconstruction_error_and_gives_its_group_its_seed():
    raw = raw_config("KPCA RE", "KPCA MD")
    raw["methods"] = [
        {key: value for key, value in entry.items() if key != "score" or entry["label"] != "KPCA RE"}
        for entry in raw["methods"]
    ]
    unnamed = {c.method_index: c for c in plan_cells(parse_config(raw)) if c.trial == 0}
    named = {c.method_index: c for c in plan_cells(config("KPCA RE", "KPCA MD")) if c.trial == 0}
    assert unnamed[0].fit_group == unnamed[1].fit_group is not None
    assert unnamed[1].random_state == unnamed[0].random_state != named[0].random_state  # its own identity's seed


def test_the_warnings_of_one_cells_scoring_stay_its_own_whichever_cell_fits(tmp_path, monkeypatch):
    from kpca_bench.methods import scores

    mahalanobis = scores._OF_PROJECTION["mahalanobis"]

    def warning_mahalanobis(model, projection):
        warnings.warn("overflow encountered in divide", RuntimeWarning)
        return mahalanobis(model, projection)

    monkeypatch.setitem(scores._OF_PROJECTION, "mahalanobis", warning_mahalanobis)
    raw = {**raw_config(), "methods": [ENTRIES[1], ENTRIES[0]]}  # MD first: it fits
    outcome = run_experiment(parse_config(raw), tmp_path, notify=lambda message: None)
    records = by_entry(outcome.directory)
    for trial in (0, 1):
        assert records["KPCA RE", trial]["fit_shared_with"] == records["KPCA MD", trial]["key"]
        assert "RuntimeWarning" in records["KPCA MD", trial]["warnings"]
        assert not (records["KPCA RE", trial].get("warnings") or {}).get("RuntimeWarning")
        assert not records["KPCA RE", trial].get("degenerate")


def test_a_groups_seed_does_not_depend_on_which_of_two_reconstruction_error_entries_comes_first():
    unnamed = {key: value for key, value in ENTRIES[0].items() if key != "score"} | {"label": "KPCA"}
    orders = ([unnamed, ENTRIES[0], ENTRIES[1]], [ENTRIES[0], unnamed, ENTRIES[1]])
    planned = [
        {(c.trial, c.key, c.random_state) for c in plan_cells(parse_config({**raw_config(), "methods": order}))}
        for order in orders
    ]
    assert planned[0] == planned[1]
