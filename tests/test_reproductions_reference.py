"""reproductions.framework.reference: a config finds its paper's numbers in the reproduction folder that holds its file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from kpca_bench.errors import ConfigError, KpcaBenchError
from kpca_bench.experiment.config_parser import load_config, parse_config
from reproductions.framework.compare import compare_with_papers
from reproductions.framework.reference import (
    config_references,
    declared_variants,
    diagnostic_variants,
    load_references,
    reference_folder,
    references_of,
)

REPO = Path(__file__).resolve().parents[1]
CONFIG = {
    "name": "tiny",
    "reference": {"paper": "Toy et al.", "dataset": "Digits"},
    "dataset": {
        "name": "digits",
        "inliers": [0],
        "outliers": [1],
        "train_inliers": 10,
        "test_inliers": 5,
        "test_outliers": 5,
    },
    "methods": [{"name": "kpca", "label": "KPCA"}],
}


def number(dataset: str, value: float) -> dict:
    return {
        "paper": "Toy et al.",
        "source": "Table 1",
        "dataset": dataset,
        "method": "KPCA",
        "metric": "auroc_mean",
        "value": value,
        "tolerance": 0.02,
        "reason": "test",
    }


@pytest.fixture
def toy(tmp_path) -> Path:
    """A reproduction folder with a headline config, a variant and two numbers."""
    folder = tmp_path / "reproductions" / "toy"
    (folder / "configs" / "variants").mkdir(parents=True)
    (folder / "reference").mkdir()
    (folder / "reference" / "numbers.yaml").write_text(yaml.safe_dump([number("Digits", 0.9), number("Iris", 0.8)]))
    for path in (folder / "configs" / "tiny.yaml", folder / "configs" / "variants" / "tiny_other.yaml"):
        path.write_text(yaml.safe_dump(CONFIG))
    return folder


def test_a_config_and_its_variants_find_the_reference_folder_of_their_reproduction(toy):
    assert reference_folder(toy / "configs" / "tiny.yaml") == toy / "reference"
    assert reference_folder(toy / "configs" / "variants" / "tiny_other.yaml") == toy / "reference"
    assert reference_folder("tiny.yaml") is None


def test_a_running_config_reads_its_folders_numbers_and_one_outside_any_reproduction_none(toy, tmp_path):
    config = load_config(toy / "configs" / "variants" / "tiny_other.yaml")
    assert [e["value"] for e in config_references(config)] == [0.9, 0.8]
    outside = tmp_path / "tiny.yaml"
    outside.write_text(yaml.safe_dump(CONFIG))
    assert config_references(load_config(outside)) == []
    assert config_references(parse_config(CONFIG)) == []


def test_the_numbers_of_several_configs_of_one_folder_are_read_once(toy):
    paths = [toy / "configs" / "tiny.yaml", toy / "configs" / "variants" / "tiny_other.yaml"]
    assert [e["dataset"] for e in references_of(paths)] == ["Digits", "Iris"]


def test_check_full_of_a_config_outside_any_reproduction_says_where_paper_configs_belong(tmp_path):
    outside = tmp_path / "tiny.yaml"
    outside.write_text(yaml.safe_dump(CONFIG))
    with pytest.raises(
        KpcaBenchError,
        match="is in no reproduction, so it has no paper numbers; a paper's config "
        r"belongs in reproductions/<paper>/configs/",
    ):
        compare_with_papers(str(outside), load_config(outside), tmp_path)


def test_check_full_names_the_numbers_file_that_lacks_the_configs_dataset(toy):
    path = toy / "configs" / "tiny.yaml"
    config = load_config(path)
    (toy / "reference" / "numbers.yaml").write_text(yaml.safe_dump([number("Iris", 0.8)]))
    with pytest.raises(
        KpcaBenchError,
        match=r"toy/reference/numbers.yaml has no entries for paper 'Toy et al.', "
        r"dataset 'Digits'",
    ):
        compare_with_papers(str(path), config, toy)


def test_every_shipped_reproduction_keeps_its_papers_numbers_in_its_own_folder():
    for folder in sorted((REPO / "reproductions").glob("*/reference")):
        entries = references_of(sorted((folder.parent / "configs").glob("*.yaml")))
        papers = {
            load_config(p).reference.paper
            for p in (folder.parent / "configs").glob("*.yaml")
            if load_config(p).reference is not None
        }
        assert {e["paper"] for e in entries} <= papers, folder
    assert not (REPO / "results" / "reference" / "papers.yaml").exists()


def test_a_config_named_from_inside_its_configs_folder_finds_the_same_numbers(toy, monkeypatch):
    monkeypatch.chdir(toy / "configs")
    assert reference_folder("tiny.yaml").resolve() == (toy / "reference").resolve()


def test_the_tolerance_parts_and_the_diagnostic_mark_are_read_and_checked(toy):
    parts = {**number("Digits", 0.9), "statistical": 0.012, "floor": 0.02, "by_construction": "always 0"}
    (toy / "reference" / "numbers.yaml").write_text(yaml.safe_dump([parts]))
    assert config_references(load_config(toy / "configs" / "tiny.yaml"))[0]["floor"] == 0.02
    (toy / "reference" / "numbers.yaml").write_text(yaml.safe_dump([{**parts, "flor": 0.02}]))
    with pytest.raises(ConfigError, match=r"entries \[0\] must each have the keys .* \(optional: statistical, floor"):
        config_references(load_config(toy / "configs" / "tiny.yaml"))
    choices = [
        {"paper": "Toy et al.", "choice": "a", "variants": ["tiny_other"], "diagnostic": True},
        {"paper": "Toy et al.", "choice": "b", "variants": ["tiny_read"]},
    ]
    (toy / "reference" / "choices.yaml").write_text(yaml.safe_dump(choices))
    assert diagnostic_variants(toy / "reference") == {"tiny_other"}
    (toy / "reference" / "choices.yaml").write_text(yaml.safe_dump([{**choices[0], "diagnostic": "yes please"}]))
    with pytest.raises(ConfigError, match=r"entries \[0\]: diagnostic must be true or false"):
        diagnostic_variants(toy / "reference")
    assert diagnostic_variants(None) == set()


def test_a_variant_is_declared_only_by_an_entry_that_states_its_source(toy):
    choices = [
        {"paper": "Toy et al.", "choice": "a", "source": "paper text", "variants": ["tiny_a"]},
        {"paper": "Toy et al.", "choice": "b", "source": " ", "variants": ["tiny_b"]},
        {"paper": "Toy et al.", "choice": "c", "variants": ["tiny_c"]},
        {"paper": "Toy et al.", "choice": "d", "source": "authors' code", "variants": ["tiny_d"], "diagnostic": True},
    ]
    (toy / "reference" / "choices.yaml").write_text(yaml.safe_dump(choices))
    assert declared_variants(toy / "reference") == {"tiny_a": "paper text", "tiny_d": "authors' code"}
    assert declared_variants(None) == {}


def test_every_shipped_tolerance_is_its_larger_part_rounded_up_never_below_its_statistical_part():
    """Every entry of every numbers.yaml: max(statistical, floor) rounded up, by less than 0.01."""
    entries = [
        entry for folder in sorted((REPO / "reproductions").glob("*/reference")) for entry in load_references(folder)
    ]
    assert len(entries) > 200
    for entry in entries:
        assert {"statistical", "floor"} <= set(entry), entry
        assert entry["statistical"] <= entry["tolerance"] < max(entry["statistical"], entry["floor"]) + 0.01, entry
        assert entry["floor"] <= entry["tolerance"], entry


@pytest.mark.parametrize("parts", [{"statistical": 0.0645, "floor": 0.03}, {"statistical": 0.01, "floor": 0.07}])
def test_a_tolerance_rounded_below_a_part_is_one_line_naming_the_entry(toy, parts):
    numbers = toy / "reference" / "numbers.yaml"
    entries = yaml.safe_load(numbers.read_text())
    numbers.write_text(yaml.safe_dump([{**entries[0], "tolerance": 0.06, **parts}]))
    with pytest.raises(
        ConfigError,
        match=r"numbers.yaml: entries \[0\]: the tolerance is below its statistical part "
        r"or its floor; round it up",
    ):
        load_references(toy / "reference")


def test_shipped_diagnostics_are_li_s_uncentred_re_and_ocsvm_predictions():
    diagnostic = set().union(*(diagnostic_variants(f) for f in (REPO / "reproductions").glob("*/reference")))
    assert diagnostic and all(
        stem.startswith("li_") and ("re_uncentred" in stem or "ocsvm_predictions" in stem) for stem in diagnostic
    )
    assert "li_spect_re_uncentred_kernel_max" in diagnostic


@pytest.mark.parametrize("flagged", [2, 0])
def test_a_paper_number_that_rests_on_a_degenerate_model_is_marked_and_named(toy, tmp_path, flagged):
    """The comparison carries the summary's flag; REPORT.md marks the row and names the number."""
    from reproductions.framework.compare import degenerate_line
    from reproductions.framework.paper_findings import numbers_table

    path = toy / "configs" / "tiny.yaml"
    run = tmp_path / "run"
    run.mkdir()
    reason = "no components: 15 of 15 empty" if flagged else ""
    (run / "summary.csv").write_text(
        f"method,trials,planned,failed,degenerate,degenerate_reason,auroc_mean\nKPCA,2,2,0,{flagged},{reason},0.91\n"
    )
    comparison = compare_with_papers(str(path), load_config(path), run)
    assert list(comparison["degenerate"]) == [f"{reason}; in 2 of 2 trials" if flagged else ""]
    line, table = degenerate_line(comparison), numbers_table(comparison)
    if flagged:
        assert line.endswith("`tiny` KPCA auroc_mean 0.910 (no components: 15 of 15 empty; in 2 of 2 trials).")
        assert "| `tiny` | KPCA **(no components)** | auroc_mean | 0.900 | 0.910 |" in table
    else:
        assert line is None and "| `tiny` | KPCA | auroc_mean |" in table


def test_a_sweep_number_reached_by_constant_score_cells_alone_is_marked(toy, tmp_path):
    """The table's number is the median over the trials; constant-score cells alone reach it in most."""
    path = toy / "configs" / "tiny.yaml"
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.csv").write_text("method,trials,auroc_best,auroc_min\nKPCA,3,0.5,0.2\n")
    rows = [
        {
            "entry": "KPCA",
            "trial": trial,
            "statistic": statistic,
            "auroc": 0.5,
            "constant_only": statistic == "best" and trial < 2,
        }
        for trial in range(3)
        for statistic in ("best", "min")
    ]
    pd.DataFrame(rows).to_csv(run / "sweep_statistics.csv", index=False)
    numbers = [{**number("Digits", 0.9), "metric": metric} for metric in ("auroc_best", "auroc_min")]
    (toy / "reference" / "numbers.yaml").write_text(yaml.safe_dump(numbers))
    comparison = compare_with_papers(str(path), load_config(path), run).set_index("metric")

    assert comparison.loc["auroc_best", "degenerate"] == (
        "constant scores: its best comes from constant-score cells alone in 2 of 3 trials"
    )
    assert comparison.loc["auroc_min", "degenerate"] == ""
