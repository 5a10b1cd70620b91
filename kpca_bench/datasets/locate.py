"""Where dataset files live, and how a missing one arrives.

A file ``F`` of dataset ``D`` is looked for as ``<dir>/D/F`` (or ``<dir>/C/F`` for a
file kept in a collection's shared folder ``C``, such as ``adbench_classical``) in
each data directory in turn: those listed in ``KPCA_BENCH_DATA`` (separated like
``PATH``), then the per-user cache (``KPCA_BENCH_CACHE``, else
``$XDG_CACHE_HOME/kpca-bench``, else ``~/.cache/kpca-bench``). Downloads go to
the cache only, through a temporary file that is renamed into place once its
checksum is verified, so a file in a data directory is always complete.

The download is urllib's rather than pooch's: pooch verifies only hashlib's digests, and some originals are
known only by the id git gives their blob (:mod:`.checksums`), which needs the size before the content.
"""

from __future__ import annotations

import os
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from kpca_bench.datasets.checksums import Hasher, matches, split_digest
from kpca_bench.errors import DataError

DOWNLOAD_TIMEOUT_S = 60
_BLOCK = 1 << 20


@dataclass(frozen=True)
class DataFile:
    """A file a dataset is read from.

    Attributes
    ----------
    path : path relative to the dataset's folder, "/"-separated.
    checksums : accepted digests, ``"sha256:<hex>"`` (or ``md5``, ``git-sha1``);
        the file must match one of them.
    url : the canonical place to download it from, or None when it cannot be
        downloaded as one file.
    lists_members : the file is a ``sha256sum`` listing of further files in the
        dataset's folder; ``datasets verify`` checks each of them.
    folder : the folder it lives in when that is not the dataset's own: the
        shared folder of a collection whose datasets are one file each.
    """

    path: str
    checksums: tuple[str, ...]
    url: str | None = None
    lists_members: bool = False
    folder: str | None = None

    def folder_of(self, dataset: str) -> str:
        """The folder, under each data directory, that holds this file of ``dataset``."""
        return self.folder or dataset


def data_dirs() -> list[Path]:
    """The directories searched for data files, in order (the cache last)."""
    listed = os.environ.get("KPCA_BENCH_DATA", "")
    return [Path(entry).expanduser() for entry in listed.split(os.pathsep) if entry] + [cache_dir()]


def cache_dir() -> Path:
    """The per-user cache downloads are stored in."""
    if os.environ.get("KPCA_BENCH_CACHE"):
        return Path(os.environ["KPCA_BENCH_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "kpca-bench"


def find(dataset: str, file: DataFile) -> Path | None:
    """The first copy of ``file`` in the data directories, or None."""
    for directory in data_dirs():
        candidate = directory / file.folder_of(dataset) / file.path
        if candidate.is_file():
            return candidate
    return None


def searched(folder: str) -> str:
    """The places a file of data folder ``folder`` is looked for, as one comma-separated string."""
    return ", ".join(str(directory / folder) for directory in data_dirs())


def _open_url(url: str):
    """The network, in one place (tests replace it)."""
    return urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S)  # noqa: S310 - fixed https URLs from the registry


def download(dataset: str, file: DataFile) -> Path:
    """Download ``file`` into the cache, verify it, and return its path."""
    if file.url is None:
        raise DataError(
            f"dataset {dataset!r}: {file.path} cannot be downloaded automatically; "
            f"put it in one of: {searched(file.folder_of(dataset))}"
        )
    target = cache_dir() / file.folder_of(dataset) / file.path
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            digests = _copy_and_hash(file, out)
        if file.checksums and not matches(digests, file.checksums):
            raise DataError(
                f"dataset {dataset!r}: the download of {file.path} from {file.url} has sha256 "
                f"{digests['sha256']}, expected {' or '.join(file.checksums)}; not stored"
            )
        os.replace(temporary, target)
    except OSError as err:
        raise DataError(
            f"dataset {dataset!r}: could not download {file.url} ({err}); "
            f"put {file.path} in one of: {searched(file.folder_of(dataset))}"
        ) from err
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return target


def _copy_and_hash(file: DataFile, out) -> dict[str, str]:
    assert file.url is not None, "download checks that the file has a url"
    with _open_url(file.url) as response:
        size = response.headers.get("Content-Length")
        algorithms = [split_digest(known)[0] for known in file.checksums]
        if size is None:  # a git blob id needs the size up front
            return _hash_buffered(response.read(), algorithms, out)
        hasher = Hasher(algorithms, size=int(size))
        for block in iter(lambda: response.read(_BLOCK), b""):
            hasher.update(block)
            out.write(block)
        return hasher.hexdigests()


def _hash_buffered(content: bytes, algorithms, out) -> dict[str, str]:
    hasher = Hasher(algorithms, size=len(content))
    hasher.update(content)
    out.write(content)
    return hasher.hexdigests()
