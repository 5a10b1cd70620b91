"""Every kind of bad config gets one line naming the file, the key and what is accepted, and exit code 2."""

import json
import textwrap
from dataclasses import fields
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.errors import ConfigError
from kpca_bench.experiment.store import ResultStore
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.config_schema import config_schema
from kpca_bench.experiment.yaml_loader import read_yaml
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.experiment.planning import plan_cells

GOOD = textwrap.dedent("""\
    name: tiny
    dataset:
      name: digits
      inliers: [0]
      outliers: [1, 2]
      train_inliers: 40
      test_inliers: 20
      test_outliers: 20
    trials: 2
    methods:
      - name: kpca
        params: {n_components: 5}
    """)


def write(tmp_path, text):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


def edited(**changes):
    raw = yaml.safe_load(GOOD)
    for dotted, value in changes.items():
        target = raw
        *parents, last = dotted.split("__")
        for key in parents:
            target = target[key] if not key.isdigit() else target[int(key)]
        target[last] = value
    return yaml.safe_dump(raw)


def test_good_config_loads_into_dataclasses(tmp_path):
    config = load_config(write(tmp_path, GOOD))
    assert config.dataset.train_inliers == 40 and config.methods[0].settings() == [{"n_components": 5}]
    assert config.threshold.rule == "train_quantile"


@pytest.mark.parametrize(
    "text, expected",
    [
        (GOOD + "trails: 3\n", "trails: unknown key (did you mean 'trials'?)"),
        (edited(dataset__name="mnsit"), "dataset.name: unknown dataset 'mnsit'"),
        (edited(methods__0__name="kcpa"), "methods[0].name: unknown method 'kcpa' (did you mean 'kpca'?)"),
        (edited(methods__0__params={"n_component": 5}), "methods[0].params.n_component: kpca has no parameter"),
        (edited(trials="ten"), "trials: must be an integer >= 1, got 'ten'"),
        (edited(trials=0), "trials: must be >= 1, got 0"),
        (edited(dataset__train_inliers=1.5), "dataset.train_inliers: must be an integer"),
        (
            edited(dataset__scaling_rows="test"),
            "dataset.scaling_rows: unknown scaling_rows 'test'; accepted: training, all, each",
        ),
        (
            edited(dataset__draw="first"),
            "dataset.draw: unknown draw 'first'; accepted: random, file_order, first_outliers",
        ),
        (
            edited(dataset__draw="file_order"),
            "trials: dataset.draw: file_order takes the same rows in every trial; set trials: 1",
        ),
        (
            edited(dataset__draw="file_order", trials=1, protocol="unsupervised"),
            "dataset.draw: file_order is read by the novelty protocols only, not unsupervised; remove it",
        ),
        (
            edited(dataset__draw="first_outliers", protocol="unsupervised"),
            "dataset.draw: first_outliers is read by the novelty protocols only, not unsupervised; remove it",
        ),
        (edited(threshold={"rule": "oracle"}), "threshold.rule: unknown rule 'oracle'"),
        (edited(threshold={"quantile": 1.5}), "threshold.quantile: must be a number strictly between 0 and 1"),
        (edited(threshold={"rule": "fixed"}), "threshold.value: give a value exactly when the rule is fixed"),
        (edited(methods__0__params={"n_components": 50}), "methods[0].params.n_components: 50 components need more"),
        (
            edited(methods__0__params={"n_components": 5, "gamma": 0}),
            "methods[0].params.gamma: must be a float in the range (0.0, inf)",
        ),
        (
            edited(methods__0__params={"n_components": "ten"}),
            "methods[0].params.n_components: must be an int in the range",
        ),
        (
            edited(methods__0__params={"n_components": 5, "kernel": "rbff"}),
            "methods[0].params.kernel: must be a str among",
        ),
        (
            edited(methods__0__name="ocsvm", methods__0__params={"nu": 1.5}),
            "methods[0].params.nu: must be a float in the range (0.0, 1.0], got 1.5",
        ),
        (edited(methods__0__score="entropy"), "methods[0].score: unknown score 'entropy'"),
        (edited(methods__0__grid={"n_components": []}), "methods[0].grid.n_components: must be a non-empty list"),
        (GOOD + "execution: {adress: local}\n", "execution.adress: unknown key (did you mean 'address'?)"),
        (GOOD + "execution: {backend: dsak}\n", "execution.backend: unknown backend 'dsak' (did you mean 'dask'?)"),
        (GOOD + "execution: {address: tcp://h:8786}\n", "execution.address: a scheduler address needs backend: dask"),
        (GOOD + "execution: {backend: dask, address: h:8786}\n", "execution.address: must be 'local' (start a"),
        (GOOD + "execution: {max_memory_mb: -1}\n", "execution.max_memory_mb: must be a positive number of MiB"),
        ("name: x\ndataset: [1, 2\n", "YAML syntax error at line 3"),
        ("- just\n- a list\n", "must be a YAML mapping"),
    ],
)
def test_config_errors_are_one_clear_line_and_exit_2(tmp_path, text, expected):
    result = CliRunner().invoke(app, ["run", str(write(tmp_path, text)), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert expected in result.stderr
    assert str(tmp_path / "config.yaml") in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert not (tmp_path / "out").exists()


def test_trials_override_of_a_file_order_config_is_refused(tmp_path):
    config = write(tmp_path, edited(dataset__draw="file_order", trials=1))
    result = CliRunner().invoke(app, ["run", str(config), "--trials", "3", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert (
        "--trials 3: dataset.draw: file_order takes the same rows in every trial; leave --trials out" in result.stderr
    )
    assert not (tmp_path / "out").exists()


def test_all_problems_are_reported_at_once(tmp_path):
    text = edited(trials=0, seed=-1, methods__0__name="nope")
    result = CliRunner().invoke(app, ["run", str(write(tmp_path, text))])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 3


def test_missing_config_file(tmp_path):
    result = CliRunner().invoke(app, ["run", str(tmp_path / "absent.yaml")])
    assert result.exit_code == 2 and "no such config file" in result.stderr


def test_classes_the_dataset_cannot_supply_are_reported(tmp_path):
    result = CliRunner().invoke(
        app, ["run", str(write(tmp_path, edited(dataset__train_inliers=170))), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    assert "has 178 inliers" in result.stderr and "lower dataset.train_inliers" in result.stderr


def test_protocol_options_are_checked_against_the_protocol(tmp_path):
    result = CliRunner().invoke(app, ["run", str(write(tmp_path, edited(protocol={"name": "novelty", "sweep": 1})))])
    assert result.exit_code == 2 and "protocol.sweep: protocol novelty has no option 'sweep'" in result.stderr


def test_a_bad_value_in_a_grid_is_reported_once_with_every_other_problem(tmp_path):
    text = edited(methods__0__params={"kernel": "rbff"}, methods__0__grid={"n_components": [2, 3, 4]}, trials=0)
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, text))
    lines = str(error.value).splitlines()
    assert len(lines) == 2
    assert sum("methods[0].params.kernel: must be a str among" in line for line in lines) == 1
    assert sum("trials: must be >= 1" in line for line in lines) == 1


COMMITTED = [
    "configs/quickstart",
    "reproductions/das/configs/mnist",
    "reproductions/li/configs/li_balance",
    "reproductions/li/configs/li_thyroid",
    "reproductions/kim/configs/kim_robustness",
    "reproductions/wang/configs/wang_australian",
    "reproductions/sas/configs/sas_letter",
]


@pytest.mark.parametrize("name", COMMITTED, ids=lambda name: Path(name).name)
def test_the_committed_results_keep_their_cell_keys(name):
    """Fields added to the dataset entry later (max_rows, the 0/1 default) leave every existing key as it was."""
    root = Path(__file__).parents[1]
    config = load_config(root / f"{name}.yaml")
    stored = ResultStore(root / "results" / config.name).load().keys()
    assert {cell.key for cell in plan_cells(config)} <= stored


def keys_by_setting(config):
    return {
        (config.methods[c.method_index].label, json.dumps(c.setting, sort_keys=True), c.trial): c.key
        for c in plan_cells(config)
    }


@pytest.mark.parametrize("name", ["li_thyroid", "li_chess", "li_wine", "li_balance", "li_ttt"])
def test_a_report_only_option_leaves_the_cells_of_the_headline(name):
    """statistics: kernel_max changes the report only: the variant plans its headline's cells, key for key."""
    li = Path(__file__).parents[1] / "reproductions" / "li" / "configs"
    headline = keys_by_setting(load_config(li / f"{name}.yaml"))
    variant = keys_by_setting(load_config(li / "variants" / f"{name}_kernel_max.yaml"))
    assert variant and {cell: headline[cell] for cell in variant} == variant


def test_an_option_that_changes_the_numbers_keys_the_cells(tmp_path):
    raw = yaml.safe_load((Path(__file__).parents[1] / "reproductions/li/configs/li_balance.yaml").read_text())
    keys = {}
    for option in [{}, {"statistics": "kernel_max"}, {"p_range": "all"}]:
        raw["protocol"] = {"name": "novelty_sweep", "nu": [0.1, 0.5], **option}
        keys[json.dumps(option)] = {c.key for c in plan_cells(load_config(write(tmp_path, yaml.safe_dump(raw))))}
    assert keys["{}"] == keys['{"statistics": "kernel_max"}']
    assert keys["{}"].isdisjoint(keys['{"p_range": "all"}'])


def test_max_rows_and_the_binary_label_default_are_parsed(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "own",
                "dataset": {
                    "name": "file",
                    "options": {"path": "x.csv"},
                    "max_rows": 500,
                    "train_inliers": 10,
                    "test_inliers": 5,
                    "test_outliers": 5,
                },
                "methods": [{"name": "kpca"}],
            }
        )
    )
    dataset = load_config(path).dataset
    assert (dataset.inliers, dataset.outliers, dataset.default_classes, dataset.max_rows) == ((0,), (1,), True, 500)
    assert load_config(path).folder == tmp_path


def test_a_paper_dataset_still_needs_its_classes(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "x",
                "dataset": {"name": "digits", "train_inliers": 10, "test_inliers": 5, "test_outliers": 5},
                "methods": [{"name": "kpca"}],
            }
        )
    )
    with pytest.raises(Exception, match="dataset.inliers"):
        load_config(path)


def test_first_outliers_draw_loads_with_several_trials(tmp_path):
    config = load_config(write(tmp_path, edited(dataset__draw="first_outliers")))
    assert config.dataset.draw == "first_outliers" and config.trials == 2


SUITE = textwrap.dedent("""\
    name: two
    datasets: [adbench_wine, adbench_glass]
    protocol: adbench
    methods:
      - name: kpca
        params: {n_components: 5}
    """)


def test_statistics_posthoc_is_read_and_leaves_the_config_hash(tmp_path):
    default = load_config(write(tmp_path, SUITE))
    chosen = load_config(write(tmp_path, SUITE + "statistics: {posthoc: wilcoxon_holm}\n"))
    assert (default.statistics.posthoc, chosen.statistics.posthoc) == ("nemenyi", "wilcoxon_holm")
    assert default.config_hash() == chosen.config_hash()


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            SUITE + "statistics: {posthoc: holm}\n",
            "statistics.posthoc: unknown post-hoc test 'holm'; accepted: nemenyi, wilcoxon_holm",
        ),
        (SUITE + "statistics: {post_hoc: nemenyi}\n", "statistics.post_hoc: unknown key (did you mean 'posthoc'?)"),
        (GOOD + "statistics: {posthoc: nemenyi}\n", "statistics: statistics across datasets need several datasets"),
    ],
)
def test_a_bad_statistics_entry_is_one_line(tmp_path, text, expected):
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, text))
    assert expected in str(error.value) and len(str(error.value).splitlines()) == 1


def test_every_profile_is_checked_and_the_one_asked_for_applied(tmp_path):
    text = (Path(__file__).parents[1] / "configs" / "quickstart.yaml").read_text()
    path = tmp_path / "c.yaml"
    path.write_text(
        text.replace("quick: {trials: 3}", "quick: {trials: 2, methods: {KPCA: {params: {n_components: 3}}}}")
    )
    quick, full = load_config(path, "quick"), load_config(path, "full")
    assert (quick.trials, quick.methods[0].params["n_components"], quick.profile) == (2, 3, "quick")
    assert quick.source == full.source == str(path)
    assert (full.trials, full.methods[0].params["n_components"], full.profile) == (10, 10, "full")
    path.write_text(text.replace("quick: {trials: 3}", "quick: {trails: 3}"))
    with pytest.raises(ConfigError, match=r"c.yaml: profiles.quick.trails: unknown key \(did you mean 'trials'\?\)"):
        load_config(path, "full")


def test_a_key_given_twice_is_refused_even_on_one_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("name: x\nparams: {nu: 0.1, nu: 0.2}\n")
    with pytest.raises(ConfigError, match=r"c.yaml: line 2, column 19: duplicate key 'nu' \(first given on line 2\)"):
        load_config(path)


@pytest.mark.parametrize("text", ["1e-3", "1E5", "-2e+3", "1e308", "+.5e1", "25e-2"])
def test_numbers_in_exponent_form_are_floats(text):
    assert read_yaml(f"x: {text}") == {"x": float(text)}
    assert yaml.safe_load(f"x: {text}") == {"x": text}  # PyYAML's own loader is left as it is


def exponent_form(value: float) -> str:
    """``value`` written as YAML 1.1 reads as a string (digits, no dot, an exponent): 0.25 -> 25e-2."""
    sign, digits, exponent = Decimal(repr(float(value))).as_tuple()
    return f"{'-' if sign else ''}{''.join(map(str, digits))}e{exponent}"


def numeric_keys() -> list[tuple[str, str | None, str]]:
    """Every key the config's JSON Schema types as a number (or a list of numbers): (section, protocol, key)."""

    def numeric(schema):
        return any(
            "number" in ([t] if isinstance(t, str) else t)
            for t in (schema.get("type", []), schema.get("items", {}).get("type", []))
        )

    schema = config_schema()
    keys = [
        (section, None, key)
        for section in ("threshold", "output", "execution", "statistics", "reference")
        for key, value in schema["properties"][section]["properties"].items()
        if numeric(value)
    ]
    for case in schema["properties"]["protocol"]["anyOf"][1]["allOf"]:
        name = case["if"]["properties"]["name"]["const"]
        keys += [
            ("protocol", name, key)
            for key, value in case["then"]["properties"].items()
            if key != "name" and numeric(value["anyOf"][0])
        ]
    return keys


# A value each top-level numeric key accepts, with the keys it needs beside it.
SECTION_VALUES = {
    ("threshold", "quantile"): ({"rule": "train_quantile"}, 0.95),
    ("threshold", "value"): ({"rule": "fixed"}, 1e308),
    ("execution", "max_memory_mb"): ({}, 1500.0),
}


def test_the_numeric_keys_are_found_in_the_schema():
    assert {("threshold", None, "value"), ("protocol", "adbench", "test_size")} <= set(numeric_keys())


@pytest.mark.parametrize("section, protocol, key", numeric_keys(), ids=lambda part: str(part))
def test_every_numeric_key_of_the_schema_takes_exponent_form(tmp_path, section, protocol, key):
    base = GOOD.replace("params: {n_components: 5}", "params: {}")
    if protocol is None:
        others, value = SECTION_VALUES[(section, key)]
        entries = ", ".join([*(f"{k}: {v}" for k, v in others.items()), f"{key}: {exponent_form(value)}"])
        config = load_config(write(tmp_path, base + f"{section}: {{{entries}}}\n"))
        loaded = getattr(getattr(config, section), key)
    else:
        default = {f.name: f.default for f in fields(PROTOCOLS[protocol].options)}[key]
        value = default[:2] if isinstance(default, tuple) else default
        written = f"[{', '.join(map(exponent_form, value))}]" if isinstance(value, tuple) else exponent_form(value)
        config = load_config(write(tmp_path, base + f"protocol: {{name: {protocol}, {key}: {written}}}\n"))
        loaded = getattr(config.options, key)
    assert loaded == value and type(loaded) is type(value)


def test_a_kernel_width_and_a_range_in_exponent_form_load(tmp_path):
    text = GOOD.replace("params: {n_components: 5}", "params: {n_components: 5, gamma: 1e-3}")
    text += "  - name: ocsvm\n    grid: {nu: {start: 1e-1, stop: 3e-1, step: 1e-1}}\n"
    config = load_config(write(tmp_path, text))
    assert config.methods[0].params["gamma"] == 1e-3
    assert [setting["nu"] for setting in config.methods[1].settings()] == pytest.approx([0.1, 0.2, 0.3])
