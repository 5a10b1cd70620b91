"""Bad input as people write it, one table per kind — configs, YAML files, command-line options, the Python API,
data files, results folders and resources: each case asserts the exit code (2) or the exception type, exactly one
line naming the problem and how to fix it, no traceback, and that no finished work is lost.

The cases run in-process (typer's ``CliRunner``) and fail before any cell runs, so the whole table takes seconds;
tests/test_bad_input.py holds the end-to-end failures (failing cells, write faults, damaged state files).
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path

import pytest
import yaml
from sklearn.ensemble import IsolationForest
from typer.testing import CliRunner

import kpca_bench
from kpca_bench.cli import app
from kpca_bench.errors import ConfigError, KpcaBenchError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "kpca_bench" / "configs" / "examples"
# A word that says what to do: every message names the fix, not only the problem.
FIX = re.compile(
    r"accepted|must|give|did you mean|remove|use |set |save|keep|run |name |leave|add |pass |wrap|"
    r"derive|see '|e\.g\.|at most|needs? |not both|expected|only|fetch|get it|lists? them|columns: |"
    r"fix |correct |put |install",
    re.I,
)

BASE = {
    "name": "bad_input",
    "dataset": {
        "name": "digits",
        "inliers": [0],
        "outliers": [1, 2],
        "train_inliers": 60,
        "test_inliers": 30,
        "test_outliers": 30,
    },
    "protocol": "novelty",
    "trials": 1,
    "seed": 0,
    "methods": [
        {"name": "kpca", "label": "KPCA", "params": {"n_components": 5, "kernel": "rbf"}},
        {"name": "ocsvm", "label": "OCSVM", "params": {"nu": 0.1}},
    ],
}


def edited(path: str, value) -> dict:
    """:data:`BASE` with the value at ``path`` (``dataset.inliers``, ``methods.0.params.nu``) set; ``...`` deletes."""
    config = copy.deepcopy(BASE)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = config
    for part in parents:
        node = node[part]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return config


def assert_one_line(result, expected: str, code: int = 2) -> str:
    """The command exited with ``code`` after exactly one ``error:`` line holding ``expected`` and a fix."""
    output = result.output + result.stderr
    assert result.exit_code == code, output
    assert "Traceback" not in output and result.exception is None or isinstance(result.exception, SystemExit), output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert expected in result.stderr, result.stderr
    assert FIX.search(result.stderr.removeprefix("error: ")), f"no fix named: {result.stderr}"
    return result.stderr


def assert_one_message(error: BaseException, expected: str) -> None:
    message = str(error)
    assert "\n" not in message and expected in message, message
    assert FIX.search(message), f"no fix named: {message}"


def cli(*args) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


# (id, the config as a dict, a fragment of the one-line message)
CONFIGS = [
    ("dataset name misspelt", edited("dataset.name", "digts"), "unknown dataset 'digts' (did you mean 'digits'?)"),
    ("unknown dataset, classes absent", edited("dataset", {"name": "nosuchset"}), "unknown dataset 'nosuchset'"),
    ("dataset not a mapping", edited("dataset", "digits"), "dataset: must be a mapping"),
    ("dataset name missing", edited("dataset.name", ...), "dataset.name: missing (required)"),
    ("inliers missing", edited("dataset.inliers", ...), "dataset.inliers: missing (required)"),
    ("outliers missing", edited("dataset.outliers", ...), "dataset.outliers: missing (required)"),
    ("train_inliers missing", edited("dataset.train_inliers", ...), "dataset.train_inliers: missing"),
    ("inliers a mapping", edited("dataset.inliers", {"a": 1}), "dataset.inliers: must be a class label"),
    ("inliers empty", edited("dataset.inliers", []), "dataset.inliers: must be a class label or a non-empty list"),
    ("inliers a float", edited("dataset.inliers", [0.5]), "dataset.inliers"),
    ("class both sides", edited("dataset.outliers", [0, 1]), "classes [0] are also inliers"),
    ("train size zero", edited("dataset.train_inliers", 0), "dataset.train_inliers: must be >= 2"),
    ("train size text", edited("dataset.train_inliers", "sixty"), "dataset.train_inliers: must be an integer"),
    ("train size float", edited("dataset.train_inliers", 60.5), "dataset.train_inliers: must be an integer"),
    ("test size negative", edited("dataset.test_outliers", -3), "dataset.test_outliers: must be >= "),
    ("test size a list", edited("dataset.test_inliers", [30]), "dataset.test_inliers: must be an integer"),
    ("unknown dataset key", edited("dataset.colour", "blue"), "dataset.colour: unknown key"),
    (
        "dataset key misspelt",
        edited("dataset.scalling", "minmax"),
        "dataset.scalling: unknown key (did you mean 'scaling'?)",
    ),
    ("scaling unknown", edited("dataset.scaling", "zscore"), "dataset.scaling: unknown scaling 'zscore'"),
    ("draw unknown", edited("dataset.draw", "sorted"), "dataset.draw: unknown draw 'sorted'"),
    ("options not a mapping", edited("dataset.options", [1]), "dataset.options: must be a mapping"),
    ("name with a space", edited("name", "bad input"), "name: must be a word"),
    ("name a number list", edited("name", [1]), "name: must be a word"),
    ("name missing", edited("name", ...), "name: missing (required)"),
    ("methods missing", edited("methods", ...), "methods: missing (required)"),
    ("methods empty", edited("methods", []), "methods: must be a non-empty list"),
    ("methods a mapping", edited("methods", {"kpca": {}}), "methods: must be a non-empty list"),
    ("method not a mapping", edited("methods.0", "kpca"), "methods[0]: must be a mapping"),
    ("method name missing", edited("methods.0.name", ...), "methods[0].name: missing (required)"),
    ("method misspelt", edited("methods.0.name", "kcpa"), "unknown method 'kcpa' (did you mean 'kpca'?)"),
    (
        "method import path of nothing",
        edited("methods.0.name", "no_such_module:Detector"),
        "searched the config's folder",
    ),
    (
        "method import path no class",
        edited("methods.0.name", "sklearn.ensemble:IsolationForrest"),
        "did you mean 'sklearn.ensemble:IsolationForest'?",
    ),
    (
        "method import path of no near class",
        edited("methods.0.name", "sklearn.ensemble:Zzzqx"),
        "name a class that sklearn.ensemble defines",
    ),
    (
        "method import path not a detector",
        edited("methods.0", {"name": "sklearn.preprocessing:StandardScaler"}),
        "methods[0].name",
    ),
    ("method unknown key", edited("methods.0.colour", "red"), "methods[0].colour: unknown key"),
    ("method params a list", edited("methods.0.params", [5]), "methods[0].params: must be a mapping"),
    (
        "method unknown parameter",
        edited("methods.0.params.n_component", 5),
        "kpca has no parameter 'n_component' (did you mean 'n_components'?)",
    ),
    ("runner's parameter", edited("methods.1.params.random_state", 3), "has no parameter 'random_state'"),
    ("components zero", edited("methods.0.params.n_components", 0), "methods[0].params.n_components"),
    ("components text", edited("methods.0.params.n_components", "five"), "methods[0].params.n_components"),
    (
        "components above training rows",
        edited("methods.0.params.n_components", 60),
        "60 components need more than the 60 training",
    ),
    ("kernel unknown", edited("methods.0.params.kernel", "gauss"), "methods[0].params.kernel"),
    ("gamma negative", edited("methods.0.params.gamma", -1.0), "methods[0].params.gamma"),
    ("gamma a word", edited("methods.0.params.gamma", "wide"), "methods[0].params.gamma"),
    ("nu above one", edited("methods.1.params.nu", 2), "methods[1].params.nu"),
    ("nu a word", edited("methods.1.params.nu", "small"), "methods[1].params.nu"),
    ("grid empty", edited("methods.1.grid", {"nu": []}), "methods[1].grid.nu: must be a non-empty list"),
    ("grid not a list", edited("methods.1.grid", {"nu": 0.1}), "methods[1].grid.nu: must be a non-empty list"),
    (
        "grid range backwards",
        edited("methods.1.grid", {"nu": {"start": 0.5, "stop": 0.1, "step": 0.1}}),
        "a range needs numbers start <= stop and step > 0",
    ),
    (
        "grid range zero step",
        edited("methods.1.grid", {"nu": {"start": 0.1, "stop": 0.5, "step": 0}}),
        "a range needs numbers start <= stop and step > 0",
    ),
    ("grid unknown parameter", edited("methods.1.grid", {"mu": [0.1]}), "ocsvm has no parameter 'mu'"),
    ("score unknown", edited("methods.0.score", "distance"), "methods[0].score: unknown score 'distance'"),
    ("score on a detector without subspace", edited("methods.1.score", "mahalanobis"), "methods[1].score"),
    ("higher_is on a registered method", edited("methods.1.higher_is", "normal"), "higher_is: only for a class"),
    ("same label twice", edited("methods.1.label", "KPCA"), "label 'KPCA' is used twice"),
    ("method trials zero", edited("methods.1.trials", 0), "methods[1].trials: must be >= 1"),
    ("trials zero", edited("trials", 0), "trials: must be >= 1"),
    ("trials a word", edited("trials", "ten"), "trials: must be an integer"),
    ("trials a float", edited("trials", 1.5), "trials: must be an integer"),
    ("trials true", edited("trials", True), "trials: must be an integer"),
    (
        "trials in exponent form",
        edited("trials", 10.0),
        "trials: must be an integer >= 1, got 10.0; write it as a whole number (10)",
    ),
    ("name read as a number", edited("name", 100000.0), "got 100000.0; YAML reads it as a number, so quote it"),
    ("seed negative", edited("seed", -1), "seed: must be >= 0"),
    ("seed a word", edited("seed", "lucky"), "seed: must be an integer"),
    ("unknown top-level key", edited("colour", "blue"), "colour: unknown key"),
    ("top-level key misspelt", edited("trails", 3), "trails: unknown key (did you mean 'trials'?)"),
    ("protocol misspelt", edited("protocol", "novelity"), "unknown protocol 'novelity' (did you mean 'novelty'?)"),
    ("protocol a list", edited("protocol", ["novelty"]), "protocol: unknown protocol"),
    ("protocol option unknown", edited("protocol", {"name": "novelty", "folds": 3}), "protocol novelty has no option"),
    ("protocol mapping without name", edited("protocol", {"folds": 3}), "protocol: unknown protocol None"),
    ("threshold rule unknown", edited("threshold", {"rule": "guess"}), "threshold.rule: unknown rule 'guess'"),
    ("threshold quantile one", edited("threshold", {"quantile": 1}), "threshold.quantile: must be a number strictly"),
    ("threshold fixed without value", edited("threshold", {"rule": "fixed"}), "threshold.value: give a value"),
    (
        "threshold value a word",
        edited("threshold", {"rule": "fixed", "value": "high"}),
        "threshold.value: must be a number",
    ),
    ("threshold unknown key", edited("threshold", {"side": "left"}), "threshold.side: unknown key"),
    ("threshold a list", edited("threshold", [0.95]), "threshold: must be a mapping"),
    ("figures unknown", edited("output", {"figures": ["pie"]}), "output.figures: must be a list drawn from"),
    ("output unknown key", edited("output", {"tables": True}), "output.tables: unknown key"),
    ("execution backend unknown", edited("execution", {"backend": "slurm"}), "execution.backend: unknown backend"),
    ("execution address without dask", edited("execution", {"address": "tcp://h:1"}), "needs backend: dask"),
    (
        "execution address bad",
        edited("execution", {"backend": "dask", "address": "h:1"}),
        "execution.address: must be 'local'",
    ),
    ("execution memory zero", edited("execution", {"max_memory_mb": 0}), "execution.max_memory_mb: must be a positive"),
    ("execution device unknown", edited("execution", {"device": "tpu"}), "execution.device: unknown device 'tpu'"),
    ("reference without dataset", edited("reference", {"paper": "das"}), "reference.dataset: missing (required)"),
    ("statistics on one dataset", edited("statistics", {"posthoc": "nemenyi"}), "statistics across datasets need"),
    ("dataset and datasets", edited("datasets", [BASE["dataset"]]), "give dataset (one) or datasets / suite (several)"),
    ("datasets empty", {**edited("dataset", ...), "datasets": []}, "datasets: must be a non-empty list"),
    (
        "suite entry unknown dataset",
        {**edited("dataset", ...), "protocol": "adbench", "datasets": ["adbench_nosuchset"]},
        "unknown dataset 'adbench_nosuchset'",
    ),
    (
        "suite collection unknown",
        {**edited("dataset", ...), "protocol": "adbench", "suite": {"collection": "odds"}},
        "suite.collection: unknown collection 'odds'",
    ),
    (
        "suite include unknown",
        {**edited("dataset", ...), "protocol": "adbench", "suite": {"collection": "adbench", "include": ["nosuch"]}},
        "'nosuch' is not in collection adbench",
    ),
    (
        "suite include and exclude",
        {
            **edited("dataset", ...),
            "protocol": "adbench",
            "suite": {"collection": "adbench", "include": ["glass"], "exclude": ["wine"]},
        },
        "give include or exclude, not both",
    ),
    ("profiles unknown name", edited("profiles", {"fast": {"trials": 1}}), "profiles.fast: unknown profile"),
    ("profile bad value", edited("profiles", {"quick": {"trials": 0}}), "profiles.quick.trials: must be >= 1"),
    (
        "profile unknown label",
        edited("profiles", {"quick": {"methods": {"KCPA": {}}}}),
        "no method has this label (did you mean 'KPCA'?)",
    ),
    (
        "file_order with trials",
        {**edited("dataset.draw", "file_order"), "trials": 2},
        "file_order takes the same rows in every trial",
    ),
]


def cases(table: list) -> list:
    """The rows of a case table as pytest parameters, each named by its first item (marks kept)."""
    return [
        pytest.param(*row.values[1:], id=row.values[0], marks=row.marks)
        if hasattr(row, "values")
        else pytest.param(*row[1:], id=row[0])
        for row in table
    ]


@pytest.mark.parametrize("config, expected", cases(CONFIGS))
def test_a_bad_config_is_one_line_and_runs_nothing(tmp_path, config, expected):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    line = assert_one_line(cli("run", path, "--out", tmp_path / "out", "--quiet"), expected)
    assert line.startswith(f"error: {path}: ")
    assert not (tmp_path / "out").exists()


# (id, the file's bytes, a fragment of the one-line message): files that cannot be read as a config at all.
FILES = [
    ("unclosed bracket", b"name: x\ndataset: {name: [\n", "YAML syntax error at line 3"),
    ("unclosed quote", b"name: 'x\nseed: 0\n", "YAML syntax error"),
    ("a tab for indent", b"name: x\ndataset:\n\tname: digits\n", "YAML syntax error at line 3"),
    ("bad indent", b"name: x\n  seed: 0\n", "YAML syntax error at line 2"),
    ("a list item inside a mapping", b"name: x\n- seed\n", "YAML syntax error"),
    (
        "duplicate top-level key",
        b"name: x\nseed: 0\nseed: 1\n",
        "duplicate key 'seed' (first given on line 2); keep one",
    ),
    ("duplicate nested key", b"name: x\ndataset: {name: digits, name: iris}\n", "duplicate key 'name'"),
    ("undefined alias", b"name: *nothing\n", "YAML syntax error"),
    ("Latin-1 text", b"name: caf\xe9\n", "not UTF-8 text: byte 0xe9 on line 1"),
    ("UTF-16 text", "name: x\n".encode("utf-16"), "(it looks like UTF-16)"),
    ("empty file", b"", "must be a YAML mapping"),
    ("only a comment", b"# nothing yet\n", "must be a YAML mapping"),
    ("a scalar", b"quickstart\n", "must be a YAML mapping"),
    ("a list", b"- name: x\n", "must be a YAML mapping"),
    ("a python tag", b"name: !!python/object:os.system x\n", "YAML syntax error"),
]


@pytest.mark.parametrize("command", ["run", "plan"])
@pytest.mark.parametrize("content, expected", cases(FILES))
def test_a_config_file_that_cannot_be_read_is_one_line(tmp_path, content, expected, command):
    path = tmp_path / "config.yaml"
    path.write_bytes(content)
    assert_one_line(cli(command, path, "--out", tmp_path / "out"), expected)
    assert not (tmp_path / "out").exists()


# (id, the command's arguments, a fragment of the one-line message); {tmp} is the test's folder.
QUICKSTART = ROOT / "configs" / "quickstart.yaml"
OPTIONS = [
    ("jobs a word", ["run", QUICKSTART, "--jobs", "two"], "Invalid value for '--jobs'"),
    ("jobs zero", ["run", QUICKSTART, "--jobs", "0"], "--jobs: 0 runs nothing"),
    ("jobs too negative", ["run", QUICKSTART, "--jobs", "-100"], "--jobs -100"),
    ("jobs a float", ["run", QUICKSTART, "--jobs", "1.5"], "Invalid value for '--jobs'"),
    ("trials zero", ["run", QUICKSTART, "--trials", "0"], "Invalid value for '--trials'"),
    ("trials a word", ["run", QUICKSTART, "--trials", "many"], "Invalid value for '--trials'"),
    ("seed negative", ["run", QUICKSTART, "--seed", "-1"], "Invalid value for '--seed'"),
    ("profile unknown", ["run", QUICKSTART, "--profile", "huge"], "--profile: unknown profile 'huge'"),
    ("profile misspelt", ["run", QUICKSTART, "--profile", "quik"], "(did you mean 'quick'?)"),
    ("profile the file lacks", ["run", EXAMPLES / "csv.yaml", "--profile", "quick"], "no 'quick' profile"),
    ("max-memory zero", ["run", QUICKSTART, "--max-memory", "0"], "--max-memory: must be a positive number"),
    ("max-memory nan", ["run", QUICKSTART, "--max-memory", "nan"], "--max-memory: must be a positive number"),
    ("max-memory a word", ["run", QUICKSTART, "--max-memory", "lots"], "Invalid value for '--max-memory'"),
    ("scheduler without scheme", ["run", QUICKSTART, "--scheduler", "10.0.0.5:8786"], "--scheduler: must be 'local'"),
    ("scheduler scheme only", ["run", QUICKSTART, "--scheduler", "tcp://"], "--scheduler: must be 'local'"),
    ("unknown flag", ["run", QUICKSTART, "--no-such-flag"], "No such option: --no-such-flag"),
    ("flag misspelt", ["run", QUICKSTART, "--trails", "3"], "No such option: --trails"),
    ("option without value", ["run", "--out", "{tmp}/out", QUICKSTART, "--trials"], "'--trials' requires an argument"),
    ("config missing", ["run"], "Missing argument 'config'"),
    ("config not there", ["run", "{tmp}/missing.yaml"], "no such config file"),
    ("config a folder", ["run", "{tmp}"], "cannot read the config"),
    ("packaged name misspelt", ["run", "quickstrat"], "no such config file"),
    ("reuse-from missing", ["run", QUICKSTART, "--reuse-from", "{tmp}/missing"], "--reuse-from"),
    ("unknown command", ["runn", QUICKSTART], "No such command 'runn'"),
    ("plan trials zero", ["plan", QUICKSTART, "--trials", "0"], "Invalid value for '--trials'"),
    ("plan jobs zero", ["plan", QUICKSTART, "--jobs", "0"], "--jobs: 0 runs nothing"),
    ("plan unknown profile", ["plan", QUICKSTART, "--profile", "huge"], "unknown profile 'huge'"),
    ("export unknown format", ["export", "{tmp}", "--format", "xml"], "--format: unknown format 'xml'"),
    ("report of a missing folder", ["report", "{tmp}/missing"], "is not a folder of results"),
    ("compare of missing folders", ["compare", "{tmp}/a", "{tmp}/b"], "no records.parquet here"),
    ("methods of an unknown method", ["methods", "kcpa"], "unknown method 'kcpa'"),
    ("datasets show unknown", ["datasets", "show", "digts"], "unknown dataset 'digts'"),
    ("datasets list unknown collection", ["datasets", "list", "--collection", "mine"], "unknown collection 'mine'"),
]


@pytest.mark.parametrize("args, expected", cases(OPTIONS))
def test_a_bad_option_is_one_line(tmp_path, args, expected):
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in args]
    out = ["--out", str(tmp_path / "out")] if args[0] in ("run", "plan") and "--out" not in args else []
    assert_one_line(cli(args[0], *out, *args[1:]), expected)
    assert not list(tmp_path.glob("out/**/records.*"))


API_CONFIG = {**BASE, "methods": [{"name": "kpca", "label": "KPCA", "params": {"n_components": 5}}]}
# (id, kpca_bench.run's arguments besides out, the exception type, a fragment of its one-line message)
API = [
    ("methods a list", {"methods": [IsolationForest()]}, ConfigError, "methods: give a dict of label -> estimator"),
    ("methods a tuple", {"methods": (IsolationForest(),)}, ConfigError, "not a tuple"),
    (
        "methods an estimator",
        {"methods": IsolationForest()},
        ConfigError,
        "methods: must be a dict of label -> estimator",
    ),
    ("methods a string", {"methods": "kpca"}, ConfigError, "methods: must be a dict"),
    (
        "methods a class",
        {"methods": {"iforest": IsolationForest}},
        ConfigError,
        "give an instance, e.g. IsolationForest()",
    ),
    ("methods empty label", {"methods": {"": IsolationForest()}}, ConfigError, "a label must be a non-empty string"),
    ("methods label a number", {"methods": {3: IsolationForest()}}, ConfigError, "a label must be a non-empty string"),
    ("methods no get_params", {"methods": {"x": object()}}, ConfigError, "has no get_params()"),
    ("jobs a string", {"jobs": "2"}, ConfigError, "got '2'; give it as a number"),
    (
        "jobs zero",
        {"jobs": 0},
        ConfigError,
        "jobs: must be a number of workers (1, 2, ...) or a negative value as in joblib",
    ),
    ("jobs leaving no core", {"jobs": -100}, ConfigError, "jobs=-100: means all CPU cores but 99"),
    ("jobs a float", {"jobs": 2.0}, ConfigError, "jobs: must be a number of workers (1, 2, ...)"),
    ("jobs true", {"jobs": True}, ConfigError, "jobs: must be a number of workers (1, 2, ...)"),
    ("trials zero", {"trials": 0}, ConfigError, "trials: must be an integer >= 1, got 0"),
    ("trials a string", {"trials": "3"}, ConfigError, "trials: must be an integer >= 1, got '3'"),
    ("seed negative", {"seed": -5}, ConfigError, "seed: must be an integer >= 0"),
    ("seed a float", {"seed": 0.5}, ConfigError, "seed: must be an integer >= 0"),
    ("trials a whole float", {"trials": 10.0}, ConfigError, "got 10.0; write it as a whole number (10)"),
    ("profile unknown", {"profile": "huge"}, ConfigError, "profile: unknown profile 'huge'"),
    ("profile None", {"profile": None}, ConfigError, "profile: unknown profile None"),
    ("out empty", {"out": ""}, ConfigError, "out: is empty; give a folder"),
    ("out a number", {"out": 3}, ConfigError, "out: must be a folder path"),
    ("out a list", {"out": ["results"]}, ConfigError, "out: must be a folder path"),
    ("reuse_from a number", {"reuse_from": 1}, ConfigError, "reuse_from: must be a folder path"),
    ("scheduler bad", {"scheduler": "h:1"}, ConfigError, "scheduler: must be 'local'"),
    ("max_memory negative", {"max_memory": -1}, ConfigError, "max_memory: must be a positive number of MiB"),
    ("max_memory a string", {"max_memory": "512"}, ConfigError, "max_memory: must be a positive number"),
    ("quiet a string", {"quiet": "yes"}, ConfigError, "quiet: must be True or False"),
    ("offline a number", {"offline": 1}, ConfigError, "offline: must be True or False"),
    ("html None", {"html": None}, ConfigError, "html: must be True or False"),
    ("notify not callable", {"notify": "print"}, ConfigError, "notify: must be a function"),
    ("config a number", {"config": 42}, ConfigError, "config: must be a path of a YAML config"),
    ("config a list", {"config": [API_CONFIG]}, ConfigError, "config: must be a path of a YAML config"),
    ("config file missing", {"config": "no/such.yaml"}, ConfigError, "no such config file"),
    ("config dict invalid", {"config": {**API_CONFIG, "trials": 0}}, ConfigError, "<dict>: trials: must be >= 1"),
    (
        "config dict unknown dataset",
        {"config": {**API_CONFIG, "dataset": {"name": "nosuch"}}},
        ConfigError,
        "<dict>: dataset.name: unknown dataset 'nosuch'",
    ),
    ("config not a mapping YAML", {"config": "{tmp}/list.yaml"}, ConfigError, "must be a YAML mapping"),
]


@pytest.mark.parametrize("arguments, error, expected", cases(API))
def test_a_bad_argument_of_run_raises_one_line_in_the_callers_words(tmp_path, arguments, error, expected):
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    arguments = dict(arguments)
    config = arguments.pop("config", API_CONFIG)
    config = config.replace("{tmp}", str(tmp_path)) if isinstance(config, str) else config
    with pytest.raises(error) as raised:
        kpca_bench.run(config, out=arguments.pop("out", tmp_path / "out"), **arguments)
    assert isinstance(raised.value, KpcaBenchError)
    assert_one_message(raised.value, expected)
    assert "--" not in str(raised.value), "the API names its arguments, not the command line's flags"
    assert not list(tmp_path.glob("out/**/records.*"))


def file_config(tmp_path, data: bytes, name: str = "data.csv", **dataset) -> Path:
    """A config reading ``data`` (written as ``name`` beside it) with the CSV example's keys."""
    (tmp_path / name).write_bytes(data)
    entry = {
        "name": "file",
        "options": {"path": name, "label": "status"},
        "inliers": ["ok"],
        "outliers": ["faulty"],
        "train_inliers": 4,
        "test_inliers": 2,
        "test_outliers": 2,
        **dataset,
    }
    config = {**BASE, "dataset": entry, "methods": [{"name": "kpca", "label": "KPCA", "params": {"n_components": 2}}]}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


GOOD_ROWS = b"".join(b"%d,%d,ok\n" % (i, i * 2) for i in range(8)) + b"".join(b"%d,1,faulty\n" % i for i in range(4))
# (id, the data file's bytes, dataset keys, a fragment of the one-line message)
DATA = [
    ("file missing", None, {}, "data.csv"),
    ("file empty", b"", {}, "data.csv"),
    ("header only", b"a,b,status\n", {}, "data.csv"),
    ("label column missing", b"a,b,kind\n" + GOOD_ROWS, {}, "status"),
    ("inlier class missing", b"a,b,status\n" + GOOD_ROWS.replace(b",ok", b",good"), {}, "ok"),
    ("outlier class missing", b"a,b,status\n" + GOOD_ROWS.replace(b"faulty", b"bad"), {}, "faulty"),
    ("too few inliers", b"a,b,status\n" + GOOD_ROWS, {"train_inliers": 50}, "train_inliers"),
    ("too few outliers", b"a,b,status\n" + GOOD_ROWS, {"test_outliers": 50}, "test_outliers"),
    ("a text feature", b"a,b,status\n" + GOOD_ROWS.replace(b"0,0,ok", b"zero,0,ok"), {}, "data.csv"),
    ("binary junk", b"\x89PNG\r\n\x1a\n" + bytes(range(256)), {}, "data.csv"),
    ("duplicate column names", b"a,a,status\n" + GOOD_ROWS, {}, "data.csv"),
    ("unknown file format", b"a,b\n1,2\n", {"options": {"path": "data.xyz", "label": "status"}}, "data.xyz"),
    (
        "unknown file option",
        b"a,b,status\n" + GOOD_ROWS,
        {"options": {"path": "data.csv", "label": "status", "sheet": 2}},
        "sheet",
    ),
    ("path missing from options", b"a,b,status\n" + GOOD_ROWS, {"options": {"label": "status"}}, "path"),
]


@pytest.mark.parametrize("data, dataset, expected", cases(DATA))
def test_a_bad_data_file_is_one_line_before_any_cell(tmp_path, data, dataset, expected):
    config = file_config(tmp_path, data if data is not None else b"", **dataset)
    if data is None:
        (tmp_path / "data.csv").unlink()
    assert_one_line(cli("run", config, "--out", tmp_path / "out", "--quiet", "--offline"), expected)
    assert not list(tmp_path.glob("out/**/records.*"))


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """The results root of a finished run of the CSV example (one trial): records.parquet and the tables."""
    out = tmp_path_factory.mktemp("finished")
    result = cli("run", EXAMPLES / "csv.yaml", "--out", out, "--quiet", "--offline", "--trials", "1", "--no-html")
    assert result.exit_code == 0, result.output + result.stderr
    return out


# (id, the command's arguments after it, given the finished run's root as {out}, a fragment of the message)
RERUNS = [
    ("a bad option", ["run", EXAMPLES / "csv.yaml", "--out", "{out}", "--max-memory", "-1"], "--max-memory"),
    ("an unknown profile", ["run", EXAMPLES / "csv.yaml", "--out", "{out}", "--profile", "huge"], "unknown profile"),
    ("trials zero", ["run", EXAMPLES / "csv.yaml", "--out", "{out}", "--trials", "0"], "'--trials'"),
    ("a broken config of the same name", ["run", "{tmp}/broken.yaml", "--out", "{out}"], "YAML syntax error"),
    ("an invalid config of the same name", ["run", "{tmp}/invalid.yaml", "--out", "{out}"], "trials: must be >= 1"),
    ("a folder in use", ["run", EXAMPLES / "csv.yaml", "--out", "{out}", "--no-wait", "--trials", "1"], "in use"),
    (
        "out under a file",
        ["run", EXAMPLES / "csv.yaml", "--out", "{out}/example_csv/records.parquet"],
        "records.parquet",
    ),
    ("report with an unknown format", ["export", "{out}/example_csv", "--format", "xml"], "unknown format 'xml'"),
    ("report of a file in the run", ["report", "{out}/example_csv/records.parquet"], "is not a folder of results"),
    ("compare with a missing run", ["compare", "{out}/example_csv", "{tmp}/missing"], "no records.parquet here"),
    ("plan with trials zero", ["plan", EXAMPLES / "csv.yaml", "--out", "{out}", "--trials", "0"], "'--trials'"),
    ("API with jobs as text", "api", "jobs: must be a number of workers"),
]


@pytest.mark.parametrize("args, expected", cases(RERUNS))
def test_bad_input_against_a_finished_run_loses_none_of_its_records(tmp_path, finished, args, expected):
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    records = (out / "example_csv" / "records.parquet").read_bytes()
    tables = sorted(p.name for p in (out / "example_csv").iterdir())
    text = (EXAMPLES / "csv.yaml").read_text().replace("path: data/", f"path: {EXAMPLES}/data/")
    (tmp_path / "broken.yaml").write_text(text + "methods: [\n")
    (tmp_path / "invalid.yaml").write_text(text.replace("trials: 3", "trials: 0"))
    if args == "api":
        with pytest.raises(ConfigError) as raised:
            kpca_bench.run(EXAMPLES / "csv.yaml", out=out, jobs="2", trials=1)
        assert_one_message(raised.value, expected)
    elif "--no-wait" in args:
        from kpca_bench.experiment.lock import folder_lock

        with folder_lock(out / "example_csv"):
            assert_one_line(cli(*[str(a).replace("{out}", str(out)) for a in args], "--quiet"), "")
    else:
        args = [str(a).replace("{out}", str(out)).replace("{tmp}", str(tmp_path)) for a in args]
        assert_one_line(cli(*args), expected)
    assert (out / "example_csv" / "records.parquet").read_bytes() == records
    assert sorted(p.name for p in (out / "example_csv").iterdir()) == tables
