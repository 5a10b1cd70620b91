"""reproductions.framework.loader: reproductions are folders loaded by path, never imported by the library."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kpca_bench.errors import KpcaBenchError
from reproductions.framework.loader import Reproduction, load_reproduction, load_reproductions, papers_by_dataset

REPO = Path(__file__).resolve().parents[1]

TOY = """
from reproductions.framework.loader import Reproduction

from .analysis import analyse

REPRODUCTION = Reproduction(reference="Toy et al.", citation="A. Toy. 2026.", analyses=(analyse,))
"""
ANALYSIS = """
def analyse(results_root, configs):
    path = results_root / "toy.md"
    path.write_text(" ".join(p.name for p in configs))
    return [path]
"""


def toy(root: Path, key: str, reference: str = "Toy et al.") -> Path:
    folder = root / key
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(TOY.replace("Toy et al.", reference))
    (folder / "analysis.py").write_text(ANALYSIS)
    return folder


def test_a_folder_is_loaded_by_path_with_its_own_modules_configs_and_variants(tmp_path):
    folder = toy(tmp_path / "reproductions", "toy_one")
    (folder / "configs" / "variants").mkdir(parents=True)
    for name in ("toy_b.yaml", "toy_a.yaml", "variants/toy_a_literal.yaml", "notes.md"):
        (folder / "configs" / name).write_text("")
    (reproduction,) = load_reproductions(tmp_path / "reproductions").values()
    assert reproduction.key == "toy_one" and reproduction.reference == "Toy et al." and reproduction.folder == folder
    (written,) = reproduction.analyses[0](tmp_path, reproduction.config_paths())
    assert written.read_text() == "toy_a.yaml toy_b.yaml"
    assert reproduction.variant_paths() == [folder / "configs" / "variants" / "toy_a_literal.yaml"]


def test_reproductions_come_in_folder_name_order(tmp_path):
    for key in ("toy_zeta", "toy_alpha"):
        toy(tmp_path, key)
    (tmp_path / "notes").mkdir()  # a folder without __init__.py is not a reproduction
    assert list(load_reproductions(tmp_path)) == ["toy_alpha", "toy_zeta"]


def test_a_folder_declaring_nothing_is_one_line_naming_it(tmp_path):
    (folder := tmp_path / "toy_empty").mkdir()
    (folder / "__init__.py").write_text("X = 1\n")
    with pytest.raises(KpcaBenchError, match=r"toy_empty/__init__.py declares no REPRODUCTION"):
        load_reproduction(folder)


def test_no_reproduction_folder_names_the_option(tmp_path):
    with pytest.raises(KpcaBenchError, match="no reproduction in .*--reproductions"):
        load_reproductions(tmp_path / "nowhere")


def test_the_shipped_reproductions_are_the_five_papers_keyed_by_folder():
    found = load_reproductions(REPO / "reproductions")
    assert list(found) == ["das", "kim", "li", "sas", "wang"]
    assert all(isinstance(r, Reproduction) and r.analyses for r in found.values())


def test_loading_by_path_gives_the_modules_the_tests_import():
    loaded = load_reproduction(REPO / "reproductions" / "li")
    from reproductions.li import REPRODUCTION, tables

    assert loaded.analyses == REPRODUCTION.analyses and tables.analyse in loaded.analyses
    assert sys.modules["reproductions.li.tables"] is tables


def test_papers_by_dataset_come_from_the_reproductions_configs(tmp_path):
    config = (
        "name: {name}\ndataset: {{name: {dataset}, inliers: [1], outliers: [2], train_inliers: 5, test_inliers: 5, "
        "test_outliers: 5}}\nmethods: [{{name: kpca}}]\n"
    )
    for key, names in (("toy_a", [("a1", "digits"), ("a2", "yeast")]), ("toy_b", [("b1", "digits")])):
        (folder := toy(tmp_path / "reproductions", key, f"{key} et al.") / "configs").mkdir()
        for name, dataset in names:
            (folder / f"{name}.yaml").write_text(config.format(name=name, dataset=dataset))
    (tmp_path / "reproductions" / "toy_b" / "configs" / "b2.yaml").write_text(
        config.format(name="b2", dataset="digits")
    )
    assert papers_by_dataset(tmp_path / "reproductions") == {
        "digits": ["toy_a et al.", "toy_b et al."],
        "yeast": ["toy_a et al."],
    }
    assert papers_by_dataset(tmp_path / "nowhere") == {}
