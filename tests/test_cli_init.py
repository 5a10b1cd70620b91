"""``kpca-bench init`` copies the packaged configs; a packaged config runs and plans by name."""

from pathlib import Path

from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.experiment.packaged import PACKAGED_CONFIGS, find_config, packaged_names

ROOT = Path(__file__).resolve().parents[1]


def test_the_repository_configs_are_the_packaged_ones():
    assert (ROOT / "configs").resolve() == PACKAGED_CONFIGS
    assert {"quickstart", "adbench_classical", "examples/csv", "examples/npz", "examples/mat"} <= set(packaged_names())


def test_a_config_is_found_as_a_file_first_then_by_packaged_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert find_config(Path("quickstart")) == PACKAGED_CONFIGS / "quickstart.yaml"
    assert find_config(Path("examples/csv.yaml")) == PACKAGED_CONFIGS / "examples" / "csv.yaml"
    (tmp_path / "quickstart").mkdir()  # a folder of that name is no config: the packaged one is meant
    assert find_config(Path("quickstart")) == PACKAGED_CONFIGS / "quickstart.yaml"
    (tmp_path / "quickstart.yaml").write_text("name: mine\n")
    assert find_config(Path("quickstart.yaml")) == Path("quickstart.yaml")  # the user's own file wins
    assert find_config(Path("missing")) == Path("missing")


def test_init_copies_the_configs_and_refuses_to_overwrite_without_force(tmp_path):
    target = tmp_path / "mine"
    assert CliRunner().invoke(app, ["init", str(target)]).exit_code == 0
    copied = sorted(p.relative_to(target) for p in target.rglob("*") if p.is_file())
    assert copied == sorted(p.relative_to(PACKAGED_CONFIGS) for p in PACKAGED_CONFIGS.rglob("*") if p.is_file())
    (target / "quickstart.yaml").write_text("edited")
    refused = CliRunner().invoke(app, ["init", str(target)])
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1 and "--force" in refused.stderr
    assert (target / "quickstart.yaml").read_text() == "edited"
    assert CliRunner().invoke(app, ["init", str(target), "--force"]).exit_code == 0
    assert (target / "quickstart.yaml").read_bytes() == (PACKAGED_CONFIGS / "quickstart.yaml").read_bytes()


def test_plan_takes_a_packaged_config_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["plan", "quickstart", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0 and "40 cells, 0 stored" in result.output, result.output
