"""Any detector in a config by import path: sklearn and PyOD classes beside ours, end to end; errors at load."""

import sys

import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.errors import ConfigError
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.planning import plan_cells
from kpca_bench.experiment.store import ResultStore

DATASET = {
    "name": "digits",
    "inliers": [0],
    "outliers": [1, 2, 3, 4, 5, 6, 7, 8, 9],
    "train_inliers": 60,
    "test_inliers": 30,
    "test_outliers": 30,
}


def write(tmp_path, methods, name="mix"):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"name": name, "dataset": DATASET, "trials": 2, "methods": methods}))
    return path


@pytest.mark.slow  # a run of three detectors, PyOD's among them
def test_a_config_mixing_kpca_isolation_forest_and_ecod_runs_end_to_end(tmp_path):
    methods = [
        {"name": "kpca", "label": "KPCA", "params": {"n_components": 5}},
        {"name": "sklearn.ensemble:IsolationForest", "params": {"n_estimators": 30}},
    ]
    try:
        import pyod  # noqa: F401

        methods.append({"name": "pyod.models.ecod:ECOD"})
    except ImportError:
        pass
    result = CliRunner().invoke(app, ["run", str(write(tmp_path, methods)), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    records = ResultStore(tmp_path / "mix").records()
    assert all(r["status"] == "ok" for r in records) and len(records) == 2 * len(methods)
    by_label = {r["method"]: r for r in records}
    assert by_label["IsolationForest"]["method_class"] == "sklearn.ensemble:IsolationForest"
    assert by_label["IsolationForest"]["method_package"].startswith("scikit-learn ")
    assert "method_class" not in by_label["KPCA"]
    for record in records:
        assert record["auroc"] > 0.8, record["method"]  # the sign is right for every package
    if len(methods) == 3:
        assert by_label["ECOD"]["method_package"].startswith("pyod ")


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"name": "nopackage.module:Detector"}, "cannot import nopackage.module:Detector (ModuleNotFoundError"),
        ({"name": "sklearn.ensemble:IsolationForst"}, "has no attribute 'IsolationForst'"),
        ({"name": "collections:OrderedDict"}, "is not an outlier detector: it has no fit"),
        ({"name": "json.decoder:JSONDecoder"}, "is not an outlier detector"),
    ],
)
def test_a_bad_class_is_one_line_at_load(tmp_path, entry, message):
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, [entry]))
    assert len(str(error.value).splitlines()) == 1 and message in str(error.value)
    result = CliRunner().invoke(app, ["run", str(write(tmp_path, [entry])), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_an_unknown_sign_must_be_declared(tmp_path):
    module = tmp_path / "own_detectors.py"
    module.write_text(
        "class Mine:\n    def __init__(self, k=1):\n        self.k = k\n"
        "    def fit(self, X, y=None):\n        self.mean_ = X.mean(axis=0)\n        return self\n"
        "    def decision_function(self, X):\n        return ((X - self.mean_) ** 2).sum(axis=1)\n"
    )
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ConfigError, match="higher_is: outlier"):
            load_config(write(tmp_path, [{"name": "own_detectors:Mine"}]))
        config = load_config(
            write(tmp_path, [{"name": "own_detectors:Mine", "higher_is": "outlier", "params": {"k": 2}}])
        )
        assert config.methods[0].label == "Mine" and config.methods[0].higher_is == "outlier"
        assert len(plan_cells(config)) == 2
        result = CliRunner().invoke(
            app,
            [
                "run",
                str(write(tmp_path, [{"name": "own_detectors:Mine", "higher_is": "outlier"}])),
                "--out",
                str(tmp_path),
                "--quiet",
            ],
        )
        assert result.exit_code == 0, result.output
        record = ResultStore(tmp_path / "mix").records()[0]
        assert record["auroc"] > 0.8 and record["method_class"] == "own_detectors:Mine"
    finally:
        sys.path.remove(str(tmp_path))


def test_higher_is_is_only_for_import_paths(tmp_path):
    with pytest.raises(ConfigError, match="higher_is: only for a class named by import path"):
        load_config(write(tmp_path, [{"name": "kpca", "higher_is": "outlier"}]))


def test_a_subclass_of_a_pyod_detector_has_pyods_sign_by_import_path_and_as_an_object(tmp_path, monkeypatch):
    pytest.importorskip("pyod")
    (tmp_path / "own_pyod.py").write_text("from pyod.models.knn import KNN\n\n\nclass FarKNN(KNN):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from kpca_bench.methods.registry import estimator_spec, method_spec

    assert load_config(write(tmp_path, [{"name": "own_pyod:FarKNN"}])).methods[0].label == "FarKNN"
    import own_pyod

    assert method_spec("own_pyod:FarKNN").higher_is == estimator_spec(own_pyod.FarKNN).higher_is == "outlier"


RAISER = """\
import numpy as np


class Raiser:
    '''Distance to the training mean, higher = more normal; raises on data with a NaN.'''

    def __init__(self, scale=1.0):
        self.scale = scale

    def fit(self, X, y=None):
        if np.isnan(X).any():
            raise ValueError("Raiser refuses NaN")
        self.mean_ = X.mean(axis=0)
        return self

    def score_samples(self, X):
        return -self.scale * ((X - self.mean_) ** 2).sum(axis=1)
"""


@pytest.fixture
def beside(tmp_path, monkeypatch):
    """A config in its own folder naming ``raiser:Raiser`` from the ``raiser.py`` beside it, and another folder
    as the current one; ``raiser`` is forgotten afterwards, so that each test imports its own."""
    folder, elsewhere = tmp_path / "experiment", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "raiser.py").write_text(RAISER)
    config = folder / "c.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "name": "beside",
                "dataset": DATASET,
                "trials": 2,
                "methods": [
                    {"name": "raiser:Raiser", "higher_is": "normal", "params": {"scale": 2.0}},
                    {"name": "kpca"},
                ],
            }
        )
    )
    monkeypatch.chdir(elsewhere)
    monkeypatch.delitem(sys.modules, "raiser", raising=False)
    yield config
    sys.modules.pop("raiser", None)


def run_beside(config, out, *args):
    before = list(sys.path)
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--quiet", "--no-html", *args])
    assert result.exit_code == 0, result.output + result.stderr
    assert sys.path == before  # the config's folder was importable while needed, not after
    return ResultStore(out / "beside").records()


def test_a_detector_beside_the_config_runs_plans_and_reports_from_another_folder(beside, tmp_path):
    out = tmp_path / "out"
    records = run_beside(beside, out)
    assert len(records) == 4 and {r["status"] for r in records} == {"ok"}
    assert {r["method_class"] for r in records if r["method"] == "Raiser"} == {"raiser:Raiser"}
    plan = CliRunner().invoke(app, ["plan", str(beside), "--out", str(out)])
    assert plan.exit_code == 0 and "4 stored" in plan.output, plan.output + plan.stderr
    sys.modules.pop("raiser")  # as in a new session: report imports it again, from the folder run.json names
    report = CliRunner().invoke(app, ["report", str(out / "beside")])
    assert report.exit_code == 0, report.output + report.stderr
    assert "Raiser" in (out / "beside" / "summary.md").read_text()


@pytest.mark.slow  # two worker processes, which import the class themselves
def test_workers_import_a_detector_beside_the_config(beside, tmp_path):
    records = run_beside(beside, tmp_path / "out", "--jobs", "2")
    assert len(records) == 4 and {r["status"] for r in records} == {"ok"}


def test_the_api_runs_a_config_whose_detector_is_beside_it(beside, tmp_path):
    import kpca_bench

    before = list(sys.path)
    results = kpca_bench.run(beside, out=tmp_path / "out", html=False)
    assert set(results.records["method"]) == {"Raiser", "kpca"} and not results.failures
    assert sys.path == before


def test_a_class_found_nowhere_names_the_folders_searched_and_the_fix(beside, tmp_path):
    beside.write_text(beside.read_text().replace("raiser:Raiser", "rasier:Raiser"))
    result = CliRunner().invoke(app, ["run", str(beside), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output + result.stderr
    assert (
        f"cannot import rasier:Raiser (ModuleNotFoundError: No module named 'rasier'); searched the config's "
        f"folder {beside.parent} and the Python path (sys.path): put rasier.py (or the package rasier/) beside "
        "the config, or install it"
    ) in result.stderr


def test_the_configs_folder_comes_first_even_when_it_is_already_on_the_path(tmp_path, monkeypatch):
    from kpca_bench.methods.interop import importable_from

    monkeypatch.setattr(sys, "path", ["/elsewhere", str(tmp_path), "/site"])
    with importable_from([str(tmp_path)]):
        assert sys.path == [str(tmp_path), "/elsewhere", "/site"]
    assert sys.path == ["/elsewhere", str(tmp_path), "/site"]
