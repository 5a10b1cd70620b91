"""The registry and load_dataset: lookup, checksums, offline errors and (faked) downloads."""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace

import pytest

from kpca_bench.datasets import DATASETS, checksums, load_dataset, locate
from kpca_bench.datasets.locate import DataFile
from kpca_bench.errors import DataError

ISSUE_NAMES = {
    "mnist",
    "fashion_mnist",
    "satimage2",
    "eth80",
    "internet_ads",
    "australian",
    "breast_cancer_wisconsin",
    "climate_model_crashes",
    "spectf",
    "spect",
    "ann_thyroid",
    "wine_quality_red",
    "yeast",
    "balance_scale",
    "kr_vs_kp",
    "tic_tac_toe",
    "ionosphere",
    "letter_recognition",
    "synthetic_control",
    "gaussian_mixture",
    "parabola",
    "li_artificial_2d",
    "half_moons",
    "digits",
}
YEAST_ROW = "ADT1_YEAST  0.58  0.61  0.47  0.13  0.50  0.00  0.48  0.22  MIT\n"


def test_every_dataset_of_the_issue_is_registered_and_described():
    papers = [spec for spec in DATASETS.values() if spec.collection == "papers"]
    assert {spec.name for spec in papers} == ISSUE_NAMES
    assert {spec.name for spec in DATASETS.values() if spec.collection == "user"} == {"file", "openml"}
    for spec in papers:
        assert spec.description and spec.shape and spec.n_classes, spec.name
        for file in spec.files:
            assert file.checksums, (spec.name, file.path)
            assert all(checksums.split_digest(known)[0] in {"sha256", "md5", "git-sha1"} for known in file.checksums)
        if spec.files:
            assert spec.homepage, spec.name


def test_unknown_name_and_option_are_data_errors_with_the_fix():
    with pytest.raises(DataError, match="did you mean mnist"):
        load_dataset("mnsit")
    with pytest.raises(DataError, match=r"unknown option colour; accepted options: categories \(default"):
        load_dataset("eth80", colour=True)
    with pytest.raises(DataError, match="accepted options: n_per_source"):
        load_dataset("gaussian_mixture", n_samples=3)
    with pytest.raises(DataError, match=r"option maps='yes' must be true or false"):
        load_dataset("eth80", maps="yes")


@pytest.fixture
def toy_yeast(tmp_path, monkeypatch):
    """The yeast spec pointed at a one-row file in a fresh data directory, with that file's sha256."""
    data_dir = tmp_path / "data"
    (data_dir / "yeast").mkdir(parents=True)
    path = data_dir / "yeast" / "yeast.data"
    path.write_text(YEAST_ROW)
    sha256 = hashlib.sha256(YEAST_ROW.encode()).hexdigest()
    spec = replace(
        DATASETS["yeast"], files=(DataFile("yeast.data", (f"sha256:{sha256}",), "https://example.invalid/y"),)
    )
    monkeypatch.setitem(DATASETS, "yeast", spec)
    monkeypatch.setenv("KPCA_BENCH_DATA", f"{tmp_path / 'elsewhere'}{os.pathsep}{data_dir}")
    return path, sha256


def test_load_finds_files_in_any_data_dir_and_records_provenance(toy_yeast):
    path, sha256 = toy_yeast
    dataset = load_dataset("yeast", offline=True)
    assert dataset.X.shape == (1, 8)
    assert [(r.path, r.sha256) for r in dataset.provenance.files] == [(str(path), sha256)]
    assert "Yeast" in dataset.provenance.source


def test_missing_file_offline_is_one_line_naming_files_dirs_and_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(DataError) as err:
        load_dataset("mnist", offline=True)
    message = str(err.value)
    assert "\n" not in message
    assert "'mnist'" in message and "train-images-idx3-ubyte.gz" in message and "t10k-labels-idx1-ubyte.gz" in message
    assert str(tmp_path / "nowhere" / "mnist") in message and str(locate.cache_dir() / "mnist") in message
    assert "without --offline" in message and "https://" in message


def test_a_corrupted_file_is_reported_not_used(toy_yeast):
    path, sha256 = toy_yeast
    path.write_text(YEAST_ROW.replace("MIT", "NUC"))
    with pytest.raises(DataError) as err:
        load_dataset("yeast", offline=True)
    message = str(err.value)
    assert str(path) in message and sha256 in message and hashlib.sha256(path.read_bytes()).hexdigest() in message


def test_verification_is_cached_per_file_version(tmp_path, monkeypatch):
    path = tmp_path / "f"
    path.write_bytes(b"one")
    hashed = []
    real_hasher = checksums.Hasher
    monkeypatch.setattr(checksums, "Hasher", lambda *a, **k: hashed.append(1) or real_hasher(*a, **k))
    first = checksums.file_digests(path)
    assert checksums.file_digests(path) == first and len(hashed) == 1
    path.write_bytes(b"two!")
    assert checksums.file_digests(path)["sha256"] == hashlib.sha256(b"two!").hexdigest() and len(hashed) == 2


def test_git_blob_id_is_the_sha1_of_the_git_header_and_content(tmp_path):
    content = b"hello\n"  # `git hash-object` of this content is ce0136250...
    (tmp_path / "f").write_bytes(content)
    digests = checksums.file_digests(tmp_path / "f", ["git-sha1"])
    assert digests["git-sha1"] == "ce013625030ba8dba906f756967f9e9ca394464a"


@pytest.mark.parametrize("with_length", [True, False])
def test_download_verifies_then_renames_into_the_cache(toy_yeast, serve, with_length):
    path, _ = toy_yeast
    path.unlink()
    urls = serve(YEAST_ROW.encode(), with_length=with_length)
    dataset = load_dataset("yeast")
    stored = locate.cache_dir() / "yeast" / "yeast.data"
    assert urls == ["https://example.invalid/y"] and stored.read_text() == YEAST_ROW
    assert dataset.provenance.files[0].path == str(stored)
    assert [p.name for p in stored.parent.iterdir()] == ["yeast.data"]
    stored.unlink()


def test_a_bad_download_is_not_stored(toy_yeast, serve):
    path, _ = toy_yeast
    path.unlink()
    serve(b"an error page")
    with pytest.raises(DataError, match="not stored"):
        load_dataset("yeast")
    assert list((locate.cache_dir() / "yeast").iterdir()) == []


def test_a_failed_connection_names_the_manual_fix(toy_yeast, unreachable):
    path, _ = toy_yeast
    path.unlink()
    with pytest.raises(DataError, match="could not download .*Network is unreachable.*put yeast.data in one of"):
        load_dataset("yeast")


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("KPCA_BENCH_CACHE", str(tmp_path / "c"))
    assert locate.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("KPCA_BENCH_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert locate.cache_dir() == tmp_path / "xdg" / "kpca-bench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert locate.cache_dir() == tmp_path / "home" / ".cache" / "kpca-bench"


def test_internet_ads_loads_unchanged_from_a_data_dir_by_git_blob_id(tmp_path, monkeypatch):
    """What a user with ad.data does: put it in a data dir; the loader verifies it by its git blob id."""
    content = (
        "125,125,1.0,1,"
        + ",".join(["0"] * 1554)
        + ",ad.\n"
        + "  ?,  ?,   ?,1,"
        + ",".join(["1"] * 1554)
        + ",nonad.\n"
        + "57,468,8.2105,1,"
        + ",".join(["0"] * 1554)
        + ",nonad.\n"
    ).encode()
    (tmp_path / "internet_ads").mkdir()
    (tmp_path / "internet_ads" / "ad.data").write_bytes(content)
    blob_id = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
    spec = DATASETS["internet_ads"]
    monkeypatch.setitem(
        DATASETS, "internet_ads", replace(spec, files=(replace(spec.files[0], checksums=(f"git-sha1:{blob_id}",)),))
    )
    monkeypatch.setenv("KPCA_BENCH_DATA", str(tmp_path))
    dataset = load_dataset("internet_ads", offline=True)
    assert dataset.X.shape == (2, 1558) and dataset.class_counts() == {"ad.": 1, "nonad.": 1}
    assert dataset.provenance.files[0].sha256 == hashlib.sha256(content).hexdigest()


def test_the_registered_ad_data_checksum_rejects_another_file(tmp_path, monkeypatch):
    (tmp_path / "internet_ads").mkdir()
    (tmp_path / "internet_ads" / "ad.data").write_text("1,2,3," + ",".join(["0"] * 1555) + ",ad.\n")
    monkeypatch.setenv("KPCA_BENCH_DATA", str(tmp_path))
    with pytest.raises(DataError, match="git-sha1:4e776d192fd4418aa0724854673811cb71075ac8"):
        load_dataset("internet_ads", offline=True)


def test_checksum_listing_members(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.png").write_bytes(b"x")
    (tmp_path / "a" / "y.png").write_bytes(b"y")
    sums = tmp_path / "SHA256SUMS"
    sums.write_text(
        f"{hashlib.sha256(b'x').hexdigest()}  ./a/x.png\n{hashlib.sha256(b'?').hexdigest()}  ./a/y.png\n"
        f"{hashlib.sha256(b'z').hexdigest()}  ./a/z.png\n"
    )
    problems = checksums.check_members(sums)
    assert problems == [
        f"{tmp_path / 'a' / 'y.png'}: sha256 differs from SHA256SUMS",
        f"{tmp_path / 'a' / 'z.png'}: missing",
    ]


def test_one_hot_leaves_numeric_columns_and_expands_categorical(tmp_path):
    (tmp_path / "australian").mkdir()
    line = "1 22.08 11.46 2 4 4 1.585 0 0 0 1 2 100 1213 0\n"
    (tmp_path / "australian" / "australian.dat").write_text(line)
    spec = DATASETS["australian"]
    sha = hashlib.sha256(line.encode()).hexdigest()
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(DATASETS, "australian", replace(spec, files=(replace(spec.files[0], checksums=(f"sha256:{sha}",)),)))
        mp.setenv("KPCA_BENCH_DATA", str(tmp_path))
        dataset = load_dataset("australian", offline=True, categorical=True)
    encoded = dataset.one_hot()
    assert encoded.X.shape == (1, 14) and encoded.X[0, 1] == 22.08  # one category per column here
    assert set(encoded.feature_kinds) == {"numeric"} and "one-hot" in encoded.provenance.notes
