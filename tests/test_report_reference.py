"""kpca_bench.report.reference: a config finds its paper's numbers in the reproduction folder that holds its file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kpca_bench.errors import KpcaBenchError
from kpca_bench.experiment.config import load_config, parse_config
from kpca_bench.report.compare import compare_with_papers
from kpca_bench.report.reference import config_references, reference_folder, references_of

REPO = Path(__file__).resolve().parents[1]
CONFIG = {"name": "tiny", "reference": {"paper": "Toy et al.", "dataset": "Digits"},
          "dataset": {"name": "digits", "inliers": [0], "outliers": [1], "train_inliers": 10, "test_inliers": 5,
                      "test_outliers": 5},
          "methods": [{"name": "kpca", "label": "KPCA"}]}


def number(dataset: str, value: float) -> dict:
    return {"paper": "Toy et al.", "source": "Table 1", "dataset": dataset, "method": "KPCA", "metric": "auroc_mean",
            "value": value, "tolerance": 0.02, "reason": "test"}


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
    with pytest.raises(KpcaBenchError, match="is in no reproduction, so it has no paper numbers; a paper's config "
                                             r"belongs in reproductions/<paper>/configs/"):
        compare_with_papers(str(outside), load_config(outside), tmp_path)


def test_check_full_names_the_numbers_file_that_lacks_the_configs_dataset(toy):
    path = toy / "configs" / "tiny.yaml"
    config = load_config(path)
    (toy / "reference" / "numbers.yaml").write_text(yaml.safe_dump([number("Iris", 0.8)]))
    with pytest.raises(KpcaBenchError, match=r"toy/reference/numbers.yaml has no entries for paper 'Toy et al.', "
                                             r"dataset 'Digits'"):
        compare_with_papers(str(path), config, toy)


def test_every_shipped_reproduction_keeps_its_papers_numbers_in_its_own_folder():
    for folder in sorted((REPO / "reproductions").glob("*/reference")):
        entries = references_of(sorted((folder.parent / "configs").glob("*.yaml")))
        papers = {load_config(p).reference.paper for p in (folder.parent / "configs").glob("*.yaml")
                  if load_config(p).reference is not None}
        assert {e["paper"] for e in entries} <= papers, folder
    assert not (REPO / "results" / "reference" / "papers.yaml").exists()


def test_a_config_named_from_inside_its_configs_folder_finds_the_same_numbers(toy, monkeypatch):
    monkeypatch.chdir(toy / "configs")
    assert reference_folder("tiny.yaml").resolve() == (toy / "reference").resolve()


@pytest.mark.parametrize("flagged", [2, 0])
def test_a_paper_number_that_rests_on_a_degenerate_model_is_marked_and_named(toy, tmp_path, flagged):
    """Issue 32: the comparison carries the summary's flag; REPORT.md marks the row and names the number."""
    from kpca_bench.report.compare import degenerate_line
    from kpca_bench.report.overview import _table

    path = toy / "configs" / "tiny.yaml"
    run = tmp_path / "run"
    run.mkdir()
    reason = "no components: 15 of 15 empty" if flagged else ""
    (run / "summary.csv").write_text("method,trials,planned,failed,degenerate,degenerate_reason,auroc_mean\n"
                                     f"KPCA,2,2,0,{flagged},{reason},0.91\n")
    comparison = compare_with_papers(str(path), load_config(path), run)
    assert list(comparison["degenerate"]) == [reason]
    line, table = degenerate_line(comparison), _table(comparison)
    if flagged:
        assert line.endswith("`tiny` KPCA auroc_mean 0.910 (no components: 15 of 15 empty).")
        assert "| `tiny` | KPCA **(no components)** | auroc_mean | 0.900 | 0.910 |" in table
    else:
        assert line is None and "| `tiny` | KPCA | auroc_mean |" in table
