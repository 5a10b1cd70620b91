"""The runner's flags on finished cells: a fit stopped on its iteration limit is marked ``not_converged`` in its record
when it runs, and the end of a run says how many.

No real data: the small example file shipped in kpca_bench/configs/examples/data (180 rows, 4 features).
"""

from pathlib import Path

from kpca_bench.experiment.config_parser import parse_config
from kpca_bench.experiment.runner import not_converged_summary, run_experiment
from kpca_bench.experiment.store import ResultStore

DATA = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data" / "example.npz"
SKPCA = {"n_components": 3, "l1_ratio": 0.5, "gamma": "mean_pairwise", "eigen_solver": "arpack"}


def config(max_iter: int):
    return parse_config(
        {
            "name": "limits",
            "dataset": {"name": "file", "options": {"path": str(DATA)}, "scaling": "minmax"},
            "protocol": {"name": "adbench", "max_train": 60},
            "trials": 2,
            "seed": 0,
            "methods": [
                {
                    "name": "skpca_enet",
                    "label": "SKPCA RE",
                    "params": {**SKPCA, "max_iter": max_iter},
                    "score": "reconstruction_error",
                },
                {
                    "name": "kpca",
                    "label": "KPCA RE",
                    "params": {"n_components": 3, "gamma": "mean_pairwise"},
                    "score": "reconstruction_error",
                },
            ],
        }
    )


def test_a_fit_stopped_on_max_iter_is_flagged_in_its_record_and_counted_at_the_end(tmp_path):
    lines = []
    outcome = run_experiment(config(1), tmp_path, notify=lines.append)
    assert outcome.stopped_by is None and not outcome.failures
    records = list(ResultStore(outcome.directory).load().values())
    skpca = [r for r in records if r["method"] == "SKPCA RE"]
    assert [r["not_converged"] for r in skpca] == ["stopped at max_iter = 1 (ConvergenceWarning)"] * 2
    assert all(r["n_iter"] == 1 for r in skpca)
    assert not any(r.get("not_converged") for r in records if r["method"] == "KPCA RE")
    assert (
        "warning: SKPCA RE: 2 of 2 fits stopped on their iteration limit (stopped at max_iter = 1 "
        "(ConvergenceWarning)): not the method's converged model; see not_converged in trials.csv"
    ) in lines


def test_a_fit_that_converges_is_not_flagged_and_records_its_last_relative_change(tmp_path):
    outcome = run_experiment(config(2000), tmp_path, notify=lambda line: None)
    skpca = [r for r in ResultStore(outcome.directory).load().values() if r["method"] == "SKPCA RE"]
    assert all(not r.get("not_converged") and r["n_iter"] < 2000 for r in skpca)
    assert all(0 <= r["relative_change"] <= 1e-3 for r in skpca)
    assert not_converged_summary(skpca) == []
