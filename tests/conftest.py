"""Shared fixtures. No test may touch the network or the user's real cache."""

from __future__ import annotations

import gzip
import io
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from kpca_bench.datasets import locate, openml_data


@pytest.fixture(scope="session")
def _isolated_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("kpca-bench-cache")


@pytest.fixture(autouse=True)
def _no_network_no_user_cache(monkeypatch, _isolated_cache):
    """Downloads fail loudly and the per-user cache is a temporary folder, in every test."""

    def refuse(url):
        raise AssertionError(f"a test tried to download {url}")

    def refuse_openml(openml, data_id):
        raise AssertionError(f"a test tried to download OpenML data id {data_id}")

    monkeypatch.setattr(locate, "_open_url", refuse)
    monkeypatch.setattr(openml_data, "download", refuse_openml)
    monkeypatch.setenv("KPCA_BENCH_CACHE", str(_isolated_cache))


@pytest.fixture
def real_data_dir() -> Path:
    """The first folder in KPCA_BENCH_DATA holding the real datasets.

    Skips when it is unset or missing, unless KPCA_BENCH_REQUIRE_DATA=1
    (as in .ci/run), where that is a failure instead.
    """
    entries = [Path(e) for e in os.environ.get("KPCA_BENCH_DATA", "").split(os.pathsep) if e]
    existing = [entry for entry in entries if entry.is_dir()]
    if existing:
        return existing[0]
    reason = (
        f"KPCA_BENCH_DATA={os.environ.get('KPCA_BENCH_DATA', '')!r} names no existing folder; "
        "set it to the shared datasets folder (e.g. ../shared/datasets) to run the real-data tests"
    )
    if os.environ.get("KPCA_BENCH_REQUIRE_DATA") == "1":
        pytest.fail(f"real data required (KPCA_BENCH_REQUIRE_DATA=1) but {reason}")
    pytest.skip(reason)


@pytest.fixture
def write_idx():
    """Write an array as an IDX file (LeCun's format: 0, 0, type code, ndim, big-endian dims and data)."""
    codes = {np.dtype("uint8"): 0x08, np.dtype(">i4"): 0x0C, np.dtype(">f4"): 0x0D}

    def write(path: Path, array: np.ndarray, *, compress: bool = True) -> None:
        content = struct.pack(">BBBB", 0, 0, codes[array.dtype], array.ndim)
        content += struct.pack(f">{array.ndim}I", *array.shape) + array.tobytes()
        path.write_bytes(gzip.compress(content, mtime=0) if compress else content)

    return write


@pytest.fixture
def write_png():
    """Write an RGB array as a PNG, creating its folder."""
    from PIL import Image

    def write(path: Path, rgb: np.ndarray) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(rgb.astype(np.uint8), "RGB").save(path)

    return write


OPENML_DESCRIPTION = """<oml:data_set_description xmlns:oml="http://openml.org/openml">
  <oml:id>{data_id}</oml:id>
  <oml:name>{name}</oml:name>
  <oml:version>{version}</oml:version>
  <oml:format>ARFF</oml:format>
  <oml:url>https://api.openml.org/data/v1/download/{data_id}/{name}.arff</oml:url>
  <oml:default_target_attribute>{target}</oml:default_target_attribute>
  <oml:status>active</oml:status>
</oml:data_set_description>
"""


@pytest.fixture
def openml_cache(_isolated_cache):
    """``write(data_id, arff_text, name=, version=, target=)``: a dataset in openml-python's cache layout
    (``<root>/org/openml/www/datasets/<id>/description.xml`` and ``dataset.arff``) under
    ``$KPCA_BENCH_CACHE/openml``, the root the OpenML loader uses. Returns the dataset's folder."""
    created = []

    def write(data_id: int, arff: str, *, name: str = "tiny", version: int = 1, target: str = "class") -> Path:
        folder = _isolated_cache / "openml" / "org" / "openml" / "www" / "datasets" / str(data_id)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "description.xml").write_text(
            OPENML_DESCRIPTION.format(data_id=data_id, name=name, version=version, target=target)
        )
        (folder / "dataset.arff").write_text(arff)
        created.append(folder)
        return folder

    yield write
    for folder in created:
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()


class _FakeResponse(io.BytesIO):
    def __init__(self, content: bytes, with_length: bool):
        super().__init__(content)
        self.headers = {"Content-Length": str(len(content))} if with_length else {}


@pytest.fixture
def serve(monkeypatch):
    """Replace the network: ``serve(content)`` makes every download return ``content``; returns the URLs asked for."""
    requested: list[str] = []

    def install(content: bytes, *, with_length: bool = True) -> list[str]:
        def respond(url):
            requested.append(url)
            return _FakeResponse(content, with_length)

        monkeypatch.setattr(locate, "_open_url", respond)
        return requested

    return install


@pytest.fixture
def unreachable(monkeypatch):
    """Replace the network by one that is down (as on a machine without internet)."""

    def refuse(url):
        raise OSError("Network is unreachable")

    monkeypatch.setattr(locate, "_open_url", refuse)


@pytest.fixture
def as_journal():
    """A finished run's folder made what a run killed before compacting its records leaves: every record in the
    journal (records.jsonl), no table (records.parquet); the function returns the journal's path."""
    import json

    from kpca_bench.experiment.store import ResultStore

    def convert(folder) -> Path:
        store = ResultStore(folder)
        records = store.load()
        store.path.write_text("".join(json.dumps(r, sort_keys=True, allow_nan=True) + "\n" for r in records.values()))
        store.table_path.unlink(missing_ok=True)
        return store.path

    return convert
