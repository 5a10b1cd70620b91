"""``kpca-bench datasets show`` and the descriptions behind it (``kpca_bench/datasets/descriptions.yaml``):
every registered dataset described in full, every description naming a registered dataset, and the groups
of related datasets flagged in a hand-built suite's summary. No data is read."""

import json

import pytest
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.datasets import DATASETS, descriptions
from kpca_bench.experiment.config_parser import parse_config
from kpca_bench.report import suite

runner = CliRunner()
TEXT_FIELDS = [field for field in descriptions.FIELDS if field != "cite"]


def test_every_registered_dataset_has_a_complete_description():
    entries = descriptions.entries()
    assert sorted(entries) == sorted(DATASETS), "described but not registered, or registered but not described"
    incomplete = {
        name: [
            field
            for field in descriptions.FIELDS
            if field not in entry or (field != "cite" and not str(entry[field]).strip())
        ]
        for name, entry in entries.items()
    }
    assert not {name: fields for name, fields in incomplete.items() if fields}


def test_every_cited_key_is_a_reference_and_every_reference_is_cited():
    keys = set(descriptions.references())
    cited = {key for entry in descriptions.entries().values() for key in entry["cite"]}
    assert cited <= keys, cited - keys
    assert keys <= cited, keys - cited


def test_only_your_own_data_cites_nothing():
    uncited = {name for name, entry in descriptions.entries().items() if not entry["cite"]}
    assert uncited == {name for name, spec in DATASETS.items() if spec.collection == "user"}


def test_related_groups_name_registered_datasets_with_a_reason_and_a_source():
    groups = descriptions.related_groups()
    assert groups
    for group in groups:
        assert len(group.datasets) >= 2 and set(group.datasets) <= set(DATASETS), group.datasets
        assert group.name.strip() and group.reason.strip() and group.source.strip()
    wisconsin = next(g for g in groups if "adbench_breastw" in g.datasets)
    assert {"adbench_wbc", "adbench_wdbc", "breast_cancer_wisconsin"} <= set(wisconsin.datasets)


def test_an_adbench_entry_takes_its_collections_version_and_licence():
    described = descriptions.describe("adbench_wine")
    assert "3dac8221081e" in described.version and "BSD-2-Clause" in described.licence
    assert [key for key, _ in described.references] == ["han2022adbench", "rayana2016odds", "dua2019uci"]
    assert descriptions.describe("fashion_mnist").licence.startswith("MIT")


def test_related_present_keeps_groups_with_two_members_here():
    present = descriptions.related_present(["adbench_breastw", "adbench_wbc", "adbench_glass", "adbench_http"])
    assert [members for _, members in present] == [["adbench_breastw", "adbench_wbc"]]
    assert descriptions.related_present(["adbench_glass", "adbench_wine"]) == []


def test_show_prints_every_fact_in_full_lines():
    result = runner.invoke(app, ["datasets", "show", "adbench_breastw"], terminal_width=60)
    assert result.exit_code == 0, result.output
    text = result.output
    for label in (
        "origin",
        "version",
        "source",
        "size",
        "classes",
        "anomalies",
        "inliers",
        "licence",
        "cite",
        "related",
        "here",
    ):
        assert f"\n{label} " in text
    assert "683 rows x 9 features" in text and "239 malignant" in text
    assert "adbench_wbc" in text and "han2022adbench: S. Han" in text
    assert "…" not in text and "..." not in text
    # Wrapped, never cut: the words of the origin all come back.
    flat = " ".join(text.split())
    assert descriptions.describe("adbench_breastw").origin in flat


def test_show_json_has_the_same_facts():
    result = runner.invoke(app, ["datasets", "show", "spect", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["name"] == "spect" and shown["size"] == "267 rows x 22 features, 2 classes"
    assert any(line.startswith("spectf (UCI SPECT Heart): ") for line in shown["related"])
    assert shown["here"].split(":")[0] in {"present", "missing"}


def test_show_of_a_built_in_dataset_says_nothing_to_fetch():
    result = runner.invoke(app, ["datasets", "show", "digits", "--json"])
    assert json.loads(result.output)["here"] == "built in: nothing to fetch"


def test_an_unknown_name_is_one_line_naming_the_closest():
    result = runner.invoke(app, ["datasets", "show", "adbench_breast"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: unknown dataset 'adbench_breast'; did you mean adbench_breastw")


def hand_suite(datasets):
    return parse_config(
        {
            "name": "hand",
            "datasets": datasets,
            "protocol": "adbench",
            "trials": 1,
            "methods": [{"name": "isolation_forest", "label": "IForest"}, {"name": "lof", "label": "LOF"}],
        }
    )


def test_a_suites_summary_lists_its_related_datasets():
    config = hand_suite(
        ["adbench_breastw", "adbench_glass", "adbench_wbc", "adbench_cardio", "adbench_cardiotocography"]
    )
    scores = {
        "adbench_breastw": 0.9,
        "adbench_glass": 0.7,
        "adbench_wbc": 0.8,
        "adbench_cardio": 0.6,
        "adbench_cardiotocography": 0.65,
    }
    records = {
        name: [
            {"method": method, "status": "ok", "auroc": value - shift, "auprc": value / 2, "f1": 0.5}
            for method, shift in (("IForest", 0.0), ("LOF", 0.1))
        ]
        for name, value in scores.items()
    }
    table = suite.dataset_table(config, records)
    stats = suite.suite_statistics(config, table)
    text = suite.summary_markdown(config, records, [], table, stats, suite.rank_frame(stats), [])
    related = [line for line in text.splitlines() if line.startswith("**Related datasets:**")]
    assert len(related) == 1
    assert "2 groups" in related[0]
    assert "{adbench_breastw, adbench_wbc} (Wisconsin breast cancer)" in related[0]
    assert "{adbench_cardio, adbench_cardiotocography} (UCI Cardiotocography)" in related[0]
    assert "not independent" in related[0]


def test_a_related_dataset_left_out_of_the_statistics_is_not_flagged():
    config = hand_suite(["adbench_breastw", "adbench_wbc", "adbench_glass"])
    records = {
        name: [
            {"method": method, "status": "ok", "auroc": 0.8 - shift, "auprc": 0.4, "f1": 0.5}
            for method, shift in (("IForest", 0.0), ("LOF", 0.1))
        ]
        for name in ("adbench_breastw", "adbench_glass")
    }
    records["adbench_wbc"] = [
        {"method": "IForest", "status": "ok", "auroc": 0.9, "auprc": 0.4, "f1": 0.5},
        {"method": "LOF", "status": "failed", "error": "boom"},
    ]
    in_statistics = list(suite.score_table(suite.dataset_table(config, records), "auroc", ["IForest", "LOF"]).index)
    assert in_statistics == ["adbench_breastw", "adbench_glass"]
    assert suite.related_lines(config, in_statistics) == []


def test_a_suite_without_related_datasets_says_nothing():
    config = hand_suite(["adbench_glass", "adbench_wine"])
    assert suite.related_lines(config, ["adbench_glass", "adbench_wine"]) == []


def test_one_group_is_named_in_the_singular():
    lines = suite.related_lines(
        hand_suite(["adbench_http", "adbench_smtp", "adbench_glass"]), ["adbench_http", "adbench_smtp", "adbench_glass"]
    )
    assert lines[0].startswith(
        "**Related datasets:** one group of this suite's datasets shares its source: "
        "{adbench_http, adbench_smtp} (KDD Cup 1999)."
    )


@pytest.mark.parametrize("labels", [["adbench_breastw"], []])
def test_one_member_of_a_group_is_not_a_group(labels):
    assert suite.related_lines(hand_suite(["adbench_breastw", "adbench_glass"]), labels) == []
