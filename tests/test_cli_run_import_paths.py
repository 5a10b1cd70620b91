"""Any detector in a config by import path: sklearn and PyOD classes beside ours, end to end; errors at load."""

import json

import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.errors import ConfigError
from kpca_bench.experiment.config import load_config
from kpca_bench.experiment.runner import plan_cells

DATASET = {"name": "digits", "inliers": [0], "outliers": [1, 2, 3, 4, 5, 6, 7, 8, 9], "train_inliers": 60,
           "test_inliers": 30, "test_outliers": 30}


def write(tmp_path, methods, name="mix"):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"name": name, "dataset": DATASET, "trials": 2, "methods": methods}))
    return path


@pytest.mark.slow  # a run of three detectors, PyOD's among them
def test_a_config_mixing_kpca_isolation_forest_and_ecod_runs_end_to_end(tmp_path):
    methods = [{"name": "kpca", "label": "KPCA", "params": {"n_components": 5}},
               {"name": "sklearn.ensemble:IsolationForest", "params": {"n_estimators": 30}}]
    try:
        import pyod  # noqa: F401
        methods.append({"name": "pyod.models.ecod:ECOD"})
    except ImportError:
        pass
    result = CliRunner().invoke(app, ["run", str(write(tmp_path, methods)), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (tmp_path / "mix" / "records.jsonl").open()]
    assert all(r["status"] == "ok" for r in records) and len(records) == 2 * len(methods)
    by_label = {r["method"]: r for r in records}
    assert by_label["IsolationForest"]["method_class"] == "sklearn.ensemble:IsolationForest"
    assert by_label["IsolationForest"]["method_package"].startswith("scikit-learn ")
    assert "method_class" not in by_label["KPCA"]
    for record in records:
        assert record["auroc"] > 0.8, record["method"]  # the sign is right for every package
    if len(methods) == 3:
        assert by_label["ECOD"]["method_package"].startswith("pyod ")


@pytest.mark.parametrize("entry, message", [
    ({"name": "nopackage.module:Detector"}, "cannot import nopackage.module:Detector (ModuleNotFoundError"),
    ({"name": "sklearn.ensemble:IsolationForst"}, "has no attribute 'IsolationForst'"),
    ({"name": "collections:OrderedDict"}, "is not an outlier detector: it has no fit"),
    ({"name": "json.decoder:JSONDecoder"}, "is not an outlier detector"),
])
def test_a_bad_class_is_one_line_at_load(tmp_path, entry, message):
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, [entry]))
    assert len(str(error.value).splitlines()) == 1 and message in str(error.value)
    result = CliRunner().invoke(app, ["run", str(write(tmp_path, [entry])), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_an_unknown_sign_must_be_declared(tmp_path):
    module = tmp_path / "own_detectors.py"
    module.write_text("class Mine:\n    def __init__(self, k=1):\n        self.k = k\n"
                      "    def fit(self, X, y=None):\n        self.mean_ = X.mean(axis=0)\n        return self\n"
                      "    def decision_function(self, X):\n        return ((X - self.mean_) ** 2).sum(axis=1)\n")
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ConfigError, match="higher_is: outlier"):
            load_config(write(tmp_path, [{"name": "own_detectors:Mine"}]))
        config = load_config(write(tmp_path, [{"name": "own_detectors:Mine", "higher_is": "outlier",
                                               "params": {"k": 2}}]))
        assert config.methods[0].label == "Mine" and config.methods[0].higher_is == "outlier"
        assert len(plan_cells(config)) == 2
        result = CliRunner().invoke(app, ["run", str(write(tmp_path, [{"name": "own_detectors:Mine",
                                                                        "higher_is": "outlier"}])),
                                          "--out", str(tmp_path), "--quiet"])
        assert result.exit_code == 0, result.output
        record = json.loads((tmp_path / "mix" / "records.jsonl").read_text().splitlines()[0])
        assert record["auroc"] > 0.8 and record["method_class"] == "own_detectors:Mine"
    finally:
        sys.path.remove(str(tmp_path))


def test_higher_is_is_only_for_import_paths(tmp_path):
    with pytest.raises(ConfigError, match="higher_is: only for a class named by import path"):
        load_config(write(tmp_path, [{"name": "kpca", "higher_is": "outlier"}]))


def test_a_subclass_of_a_pyod_detector_has_pyods_sign_by_import_path_and_as_an_object(tmp_path, monkeypatch):
    pytest.importorskip("pyod")
    (tmp_path / "own_pyod.py").write_text("from pyod.models.knn import KNN\n\n\nclass FarKNN(KNN):\n"
                                          "    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from kpca_bench.methods.registry import estimator_spec, method_spec

    assert load_config(write(tmp_path, [{"name": "own_pyod:FarKNN"}])).methods[0].label == "FarKNN"
    import own_pyod

    assert method_spec("own_pyod:FarKNN").higher_is == estimator_spec(own_pyod.FarKNN).higher_is == "outlier"
