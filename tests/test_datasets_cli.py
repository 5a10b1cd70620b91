"""``kpca-bench datasets list / verify / fetch`` in-process, without the network."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from kpca_bench.datasets import DATASETS, locate
from kpca_bench.cli.datasets import app
from kpca_bench.datasets.locate import DataFile

YEAST_ROW = "ADT1_YEAST  0.58  0.61  0.47  0.13  0.50  0.00  0.48  0.22  MIT\n"


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def toy_data(tmp_path, monkeypatch):
    """A data dir with a one-row yeast (registered with its checksum) and a tiny ETH-80 listing."""
    (tmp_path / "yeast").mkdir()
    (tmp_path / "yeast" / "yeast.data").write_text(YEAST_ROW)
    sha = hashlib.sha256(YEAST_ROW.encode()).hexdigest()
    monkeypatch.setitem(
        DATASETS,
        "yeast",
        replace(
            DATASETS["yeast"], files=(DataFile("yeast.data", (f"sha256:{sha}",), "https://example.invalid/yeast.data"),)
        ),
    )
    image = tmp_path / "eth80" / "apple" / "apple1" / "apple1-000-000.png"
    image.parent.mkdir(parents=True)
    image.write_bytes(b"png")
    listing = tmp_path / "eth80" / "SHA256SUMS"
    listing.write_text(f"{hashlib.sha256(b'png').hexdigest()}  ./apple/apple1/apple1-000-000.png\n")
    monkeypatch.setitem(
        DATASETS,
        "eth80",
        replace(
            DATASETS["eth80"],
            files=(
                replace(
                    DATASETS["eth80"].files[0],
                    checksums=(f"sha256:{hashlib.sha256(listing.read_bytes()).hexdigest()}",),
                ),
            ),
        ),
    )
    monkeypatch.setenv("KPCA_BENCH_DATA", str(tmp_path))
    return tmp_path


def test_list_shows_every_dataset_with_shape_papers_and_presence(runner, toy_data):
    result = runner.invoke(app, ["list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if line.count("│") > 4}
    assert set(DATASETS) <= set(rows)
    assert "present" in rows["yeast"] and "1484x8" in rows["yeast"]
    assert "missing" in rows["mnist"] and "built-in" in rows["digits"]


def test_the_reproductions_name_the_papers_that_use_each_dataset():
    from reproductions.framework.cli import app as reproductions

    result = CliRunner().invoke(reproductions, ["datasets"])
    assert result.exit_code == 0, result.output
    rows = dict(line.split(": ", 1) for line in result.output.splitlines())
    assert rows["yeast"] == "Li et al."
    assert rows["breast_cancer_wisconsin"] == "Kim & Klabjan, Shen & Asgharzadeh, Wang & Tanaka"
    assert "digits" not in rows


def test_verify_ok_and_deep_checks_the_eth80_images(runner, toy_data):
    result = runner.invoke(app, ["verify", "yeast", "eth80"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert result.output.count(" ok ") == 2
    (toy_data / "eth80" / "apple" / "apple1" / "apple1-000-000.png").write_bytes(b"changed")
    result = runner.invoke(app, ["verify", "eth80"], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "corrupt" in result.output
    assert "error: 1 file(s) failed verification: eth80/SHA256SUMS (corrupt)" in result.stderr


def test_verify_reports_a_corrupted_file_with_exit_code_2(runner, toy_data):
    (toy_data / "yeast" / "yeast.data").write_text(YEAST_ROW.replace("MIT", "NUC"))
    result = runner.invoke(app, ["verify"], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert result.stderr.startswith("error: 1 file(s) failed verification: yeast/yeast.data (corrupt)")
    assert result.stderr.count("\n") == 1


def test_verify_a_named_missing_dataset_fails_unnamed_missing_ones_do_not(runner, toy_data):
    assert runner.invoke(app, ["verify", "mnist"]).exit_code == 2
    result = runner.invoke(app, ["verify", "mnsit"])
    assert result.exit_code == 2 and result.stderr == "error: unknown dataset 'mnsit'; did you mean mnist?\n"


def test_fetch_downloads_into_the_cache(runner, toy_data, serve):
    (toy_data / "yeast" / "yeast.data").unlink()
    serve(YEAST_ROW.encode())
    result = runner.invoke(app, ["fetch", "yeast", "digits"])
    assert result.exit_code == 0, result.output
    assert (locate.cache_dir() / "yeast" / "yeast.data").read_text() == YEAST_ROW
    assert "digits: built in, nothing to fetch" in result.output
    (locate.cache_dir() / "yeast" / "yeast.data").unlink()


def test_fetch_without_network_is_one_line_and_exit_code_2(runner, toy_data, unreachable):
    result = runner.invoke(app, ["fetch", "satimage2"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")


def test_fetch_of_a_dataset_that_cannot_be_downloaded_says_where_to_get_it(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(tmp_path))
    result = runner.invoke(app, ["fetch", "ann_thyroid"])
    assert result.exit_code == 2
    assert "missing ann-train.data, ann-test.data; searched" in result.stderr and "MANIFEST" in result.stderr
