"""``kpca_bench.run``: the Python entry point, with configs as paths, dicts or objects and estimators as objects.

No real data: the in-process runs read the small example file shipped in kpca_bench/configs/examples/data; the documentation's
example, run as a notebook-style script, uses scikit-learn's bundled digits.
"""

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.base import BaseEstimator
from sklearn.ensemble import IsolationForest

import kpca_bench
from kpca_bench.api import Results, method_entry, with_methods
from kpca_bench.errors import ConfigError, KpcaBenchError
from kpca_bench.experiment.config_parser import parse_config
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.methods.registry import estimator_spec
from kpca_bench.protocols import PROTOCOLS

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parents[1] / "kpca_bench" / "configs" / "examples" / "data"
CONFIG = {
    "name": "api",
    "dataset": {"name": "file", "options": {"path": str(DATA / "example.npz")}, "scaling": "minmax"},
    "protocol": {"name": "adbench", "max_train": 50},
    "trials": 2,
    "seed": 0,
    "methods": [{"name": "knn", "label": "kNN"}],
}


class MeanDistance(BaseEstimator):
    """Minus the distance to the training mean (higher = more normal)."""

    def __init__(self, power=2.0):
        self.power = power

    def fit(self, X, y=None):
        self.mean_ = X.mean(axis=0)
        return self

    def score_samples(self, X):
        return -np.sum(np.abs(X - self.mean_) ** self.power, axis=1)


class DecisionOnly(BaseEstimator):
    """A detector whose only score is ``decision_function``, of no known sign."""

    def fit(self, X, y=None):
        return self

    def decision_function(self, X):
        return X[:, 0]


def numbers(summary: pd.DataFrame) -> pd.DataFrame:
    """A summary without its timings and memory, which differ between runs."""
    return summary.drop(columns=[c for c in summary if "time" in c or "memory" in c])


def test_a_path_a_dict_and_a_config_give_the_same_summary(tmp_path):
    path = tmp_path / "api.yaml"
    path.write_text(yaml.safe_dump(CONFIG))
    summaries = [
        kpca_bench.run(given, out=tmp_path / kind).summary
        for kind, given in (("path", path), ("dict", CONFIG), ("config", parse_config(CONFIG)))
    ]
    assert list(summaries[0]["method"]) == ["kNN"]
    for other in summaries[1:]:
        pd.testing.assert_frame_equal(numbers(other), numbers(summaries[0]))


def test_results_hold_the_tables_the_folder_and_the_outcome(tmp_path):
    results = kpca_bench.run(CONFIG, methods={"mean": MeanDistance()}, out=tmp_path)
    assert isinstance(results, Results)
    assert results.folder == tmp_path / "api"
    assert list(results.summary["method"]) == ["kNN", "mean"]
    assert len(results.records) == 4 and set(results.records["status"]) == {"ok"}
    pd.testing.assert_frame_equal(numbers(results.summary), numbers(pd.read_csv(results.folder / "summary.csv")))
    assert results.ranks is None and results.statistics is None and results.failures == []
    assert (results.outcome.n_cells, results.outcome.n_run) == (4, 4)
    again = kpca_bench.run(CONFIG, methods={"mean": MeanDistance()}, out=tmp_path)
    assert (again.outcome.n_run, again.outcome.n_reused) == (0, 4)


def test_a_failed_cell_is_a_result_not_an_exception(tmp_path):
    results = kpca_bench.run(CONFIG, methods={"bad": MeanDistance(power="two")}, out=tmp_path)
    assert [f["method"] for f in results.failures] == ["bad", "bad"]
    assert set(results.records.loc[results.records["method"] == "bad", "status"]) == {"failed"}


@pytest.mark.parametrize(
    "config, methods, message",
    [
        ({**CONFIG, "trials": 0}, {}, "trials"),
        ({**CONFIG, "methods": [{"name": "no_such_method", "label": "x"}]}, {}, "no_such_method"),
        (
            42,
            {},
            "config: must be a path of a YAML config (str or pathlib.Path), a dict of its keys or a Config, got int",
        ),
        (
            CONFIG,
            [IsolationForest()],
            "methods: give a dict of label -> estimator, e.g. methods={'IsolationForest': "
            "IsolationForest()}, not a list",
        ),
        (CONFIG, {"mine": MeanDistance}, "give an instance, e.g. MeanDistance(), not the class"),
        (CONFIG, {"mine": object()}, "object has no get_params()"),
        (CONFIG, {"mine": BaseEstimator()}, "is not an outlier detector"),
        (CONFIG, {"mine": DecisionOnly()}, "wrap the detector in kpca_bench.methods.interop.SignedDetector("),
    ],
)
def test_a_bad_config_or_method_raises_the_config_error(tmp_path, config, methods, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        kpca_bench.run(config, methods=methods, out=tmp_path)
    assert not (tmp_path / "api").exists()


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"trials": 0}, "trials: must be an integer >= 1, got 0"),
        ({"seed": -1}, "seed: must be an integer >= 0, got -1"),
        ({"trials": 2.5}, "trials: must be an integer >= 1, got 2.5"),
        (
            {"jobs": "2"},
            "jobs: must be a number of workers (1, 2, ...) or a negative value as in joblib (-1: one per CPU "
            "core), got '2'; give it as a number, without quotes",
        ),
        ({"max_memory": 0}, "max_memory: must be a positive number of MiB"),
        ({"scheduler": "nowhere"}, "scheduler: must be 'local'"),
        ({"profile": "quik"}, "profile: unknown profile 'quik' (did you mean 'quick'?)"),
    ],
)
def test_arguments_are_checked_before_any_work_in_the_callers_words(tmp_path, overrides, message, monkeypatch):
    monkeypatch.setattr("kpca_bench.api.as_config", lambda *a: pytest.fail("the config was read"))
    with pytest.raises(ConfigError, match=re.escape(message)) as raised:
        kpca_bench.run(CONFIG, out=tmp_path, **overrides)
    assert "--" not in str(raised.value) and str(raised.value).count("\n") == 0
    assert not (tmp_path / "api").exists()


def test_every_bad_argument_is_listed_at_once(tmp_path):
    with pytest.raises(ConfigError) as raised:
        kpca_bench.run(CONFIG, out="", jobs=0, trials="3", quiet="no")
    assert [line.split(":")[0] for line in str(raised.value).splitlines()] == ["jobs", "trials", "out", "quiet"]


def test_a_missing_config_file_raises_the_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no_such.yaml"):
        kpca_bench.run(tmp_path / "no_such.yaml", out=tmp_path)


def test_an_object_replaces_the_entry_of_its_label_and_others_are_added():
    config = with_methods(
        parse_config({**CONFIG, "methods": [{"name": "knn", "label": "kNN"}, {"name": "lof", "label": "LOF"}]}),
        {"kNN": IsolationForest(n_estimators=5), "mean": MeanDistance()},
    )
    assert [(m.label, m.name) for m in config.methods] == [
        ("kNN", "sklearn.ensemble._iforest:IsolationForest"),
        ("LOF", "lof"),
        ("mean", f"{__name__}:MeanDistance"),
    ]


def test_an_objects_cell_keys_follow_its_class_and_parameters_only():
    def keys(estimator):
        return [cell.key for cell in plan_cells(with_methods(parse_config(CONFIG), {"mine": estimator}))]

    assert keys(MeanDistance(power=3.0)) == keys(MeanDistance(power=3.0))
    assert keys(MeanDistance(power=3.0))[1] != keys(MeanDistance(power=1.0))[1]
    # The knn cells (0 and 2) keep their keys whatever object is added beside them.
    assert keys(MeanDistance(power=3.0))[::2] == keys(MeanDistance(power=1.0))[::2]
    assert method_entry("mine", MeanDistance(power=3.0)).params == {"power": 3.0}


def test_importing_kpca_bench_loads_no_heavy_library():
    code = "import sys, kpca_bench; print(' '.join(m for m in ('sklearn', 'pandas', 'matplotlib') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []


def python_blocks(markdown: str) -> str:
    return "\n".join(re.findall(r"```python\n(.*?)```", markdown, flags=re.S))


# Appended to the documentation's example: what its run returned, as the script's last three lines.
RETURNED = """
print(results.summary.to_json())
print(results.ranks.to_json())
print(sorted(set(results.records["method_name"])), len(results.failures))
"""


@pytest.mark.slow
def test_the_documented_example_runs_a_detector_defined_in_main_on_two_workers(tmp_path):
    """The example of docs/python-api.md as a script (run as ``__main__``): its class travels to two workers; then
    the page's block that loads the finished suite back (``results`` is then what it loaded)."""
    code = python_blocks((ROOT / "docs" / "python-api.md").read_text())
    assert "class CentroidDistance(BaseEstimator)" in code and "jobs=2" in code
    (tmp_path / "example.py").write_text(code + RETURNED)
    done = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary_json, ranks_json, names = done.stdout.splitlines()[-3:]
    summary, ranks = pd.read_json(io.StringIO(summary_json)), pd.read_json(io.StringIO(ranks_json))
    assert list(summary["dataset"]) == ["digits", "digits", "digits_2", "digits_2"]  # not glued to the method
    assert list(summary["method"]) == ["KPCA", "centroid", "KPCA", "centroid"]
    assert summary["auroc_mean"].between(0.5, 1).all() and (summary["trials"] == 2).all()
    assert set(ranks["method"]) == {"KPCA", "centroid"}
    assert names == "['__main__:CentroidDistance', 'kpca'] 0"
    assert (tmp_path / "results" / "notebook_suite" / "digits_2" / "records.parquet").exists()


def test_an_interrupt_writes_the_tables_of_what_finished_then_propagates(tmp_path, monkeypatch):
    real = PROTOCOLS["adbench"].evaluate
    calls = []

    def evaluate(*args):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(PROTOCOLS["adbench"], "evaluate", evaluate)
    with pytest.raises(KeyboardInterrupt):
        kpca_bench.run({**CONFIG, "trials": 3}, out=tmp_path)
    assert len(pd.read_csv(tmp_path / "api" / "trials.csv")) == 2
    resumed = kpca_bench.run({**CONFIG, "trials": 3}, out=tmp_path)
    assert (resumed.outcome.n_run, resumed.outcome.n_reused) == (1, 2)


def test_an_objects_sign_comes_from_its_package_its_pyod_base_or_score_samples():
    base = pytest.importorskip("pyod.models.base").BaseDetector

    class OwnPyOD(base):
        def fit(self, X, y=None):
            return self

        def decision_function(self, X):
            return X[:, 0]

    assert estimator_spec(OwnPyOD).higher_is == "outlier"
    assert estimator_spec(MeanDistance).higher_is == "normal"
    assert estimator_spec(IsolationForest).higher_is == "normal"
    assert estimator_spec(DecisionOnly, "outlier").higher_is == "outlier"


# kpca_bench.load: a finished run's tables read back from its folder.

SUITE = {
    **{k: v for k, v in CONFIG.items() if k != "dataset"},
    "name": "api_suite",
    "datasets": [
        {"name": "file", "options": {"path": str(DATA / "example.npz")}, "scaling": "minmax"},
        {
            "name": "file",
            "options": {"path": str(DATA / "example.csv"), "label": "status"},
            "inliers": ["ok"],
            "outliers": ["faulty"],
            "scaling": "minmax",
        },
    ],
    "methods": [{"name": "knn", "label": "kNN"}, {"name": "lof", "label": "LOF"}],
}


def assert_same_results(loaded: Results, returned: Results) -> None:
    for name in ("records", "summary", "datasets", "ranks", "statistics"):
        mine, theirs = getattr(loaded, name), getattr(returned, name)
        if theirs is None:
            assert mine is None, name
        else:
            pd.testing.assert_frame_equal(mine, theirs, obj=name)
    assert loaded.verdict == returned.verdict and loaded.folder == returned.folder
    assert loaded.config.config_hash() == returned.config.config_hash()
    assert [r["key"] for r in loaded.failures] == [r["key"] for r in returned.failures]


def test_load_gives_back_the_tables_of_the_run_that_wrote_the_folder(tmp_path):
    path = tmp_path / "api.yaml"
    path.write_text(
        yaml.safe_dump({**CONFIG, "methods": [{"name": "knn", "label": "kNN"}, {"name": "lof", "label": "LOF"}]})
    )
    plain = kpca_bench.run(path, out=tmp_path / "out", trials=3, seed=4)
    loaded = kpca_bench.load(plain.folder)
    assert_same_results(loaded, plain)
    assert (loaded.outcome.n_cells, loaded.outcome.n_reused, loaded.outcome.n_run) == (6, 6, 0)
    assert loaded.config.trials == 3 and loaded.config.seed == 4  # the run's overrides, from its folder
    bad = {"bad": MeanDistance(power="two")}
    returned = kpca_bench.run(path, methods=bad, out=tmp_path / "objects", trials=2)
    assert len(returned.failures) == 2  # a power that is no number: every cell of "bad" fails, and is a row
    assert_same_results(kpca_bench.load(returned.folder, config=path, methods=bad), returned)


def test_load_of_a_suite_given_as_a_dict_and_objects_needs_them_and_then_gives_every_table(tmp_path):
    returned = kpca_bench.run(SUITE, methods={"mean": MeanDistance()}, out=tmp_path)
    assert set(returned.records["dataset"]) == {"example", "example_2"} and returned.ranks is not None
    with pytest.raises(KpcaBenchError, match="methods 'mean' as estimator objects") as raised:
        kpca_bench.load(returned.folder)
    assert "\n" not in str(raised.value)
    with pytest.raises(KpcaBenchError, match="given its config as a dict"):
        kpca_bench.load(kpca_bench.run(SUITE, out=tmp_path / "plain").folder)
    assert_same_results(kpca_bench.load(returned.folder, config=SUITE, methods={"mean": MeanDistance()}), returned)


@pytest.mark.parametrize(
    "folder, message",
    [
        ("{tmp}/missing", "is not a folder of results"),
        ("{tmp}", "holds no run: neither run.json nor records.parquet"),
    ],
)
def test_load_of_a_folder_without_a_run_is_one_line(tmp_path, folder, message):
    with pytest.raises(KpcaBenchError) as raised:
        kpca_bench.load(folder.format(tmp=tmp_path))
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_load_checks_its_arguments_as_run_does(tmp_path):
    with pytest.raises(ConfigError) as raised:
        kpca_bench.load(42, config=7, methods=[IsolationForest()])
    assert str(raised.value).splitlines() == [
        "folder: must be the path of a run's results folder (str or pathlib.Path), got int",
        "methods: give a dict of label -> estimator, e.g. methods={'IsolationForest': IsolationForest()}, not a list "
        "(the label names the method in every table)",
        "config: must be a path of a YAML config (str or pathlib.Path), a dict of its keys or a Config, got int",
    ]
