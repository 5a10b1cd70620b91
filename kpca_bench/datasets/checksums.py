"""File digests, and checking a file against the digests the registry knows.

A known digest is written ``"<algorithm>:<hex>"``; the algorithms are those of
:mod:`hashlib` plus ``git-sha1`` (the id git gives a blob: sha1 of
``b"blob <size>\\0" + content``), which is all that is known of some originals.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from kpca_bench.errors import DataError

_BLOCK = 1 << 20
GIT_SHA1 = "git-sha1"

# (path, mtime_ns, size) -> {algorithm: hex}: a file already hashed in this process
# is not read again unless it changed.
_computed: dict[tuple[str, int, int], dict[str, str]] = {}


class Hasher:
    """Incremental digests of one stream of bytes for several algorithms at once."""

    def __init__(self, algorithms, size: int | None = None):
        self._hashes = {}
        for algorithm in set(algorithms) | {"sha256"}:
            if algorithm == GIT_SHA1:
                if size is None:
                    raise ValueError("git-sha1 needs the size of the content in advance")
                digest = hashlib.sha1(usedforsecurity=False)
                digest.update(b"blob %d\0" % size)
            else:
                digest = hashlib.new(algorithm, usedforsecurity=False)
            self._hashes[algorithm] = digest

    def update(self, block: bytes) -> None:
        for digest in self._hashes.values():
            digest.update(block)

    def hexdigests(self) -> dict[str, str]:
        return {algorithm: digest.hexdigest() for algorithm, digest in self._hashes.items()}


def split_digest(known: str) -> tuple[str, str]:
    algorithm, _, value = known.partition(":")
    return algorithm, value.lower()


def file_digests(path: Path, algorithms=("sha256",)) -> dict[str, str]:
    """Digests of a file (always including sha256), computed once per file version."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    cached = _computed.get(key, {})
    if set(algorithms) | {"sha256"} <= cached.keys():
        return cached
    hasher = Hasher(algorithms, size=stat.st_size)
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(_BLOCK), b""):
            hasher.update(block)
    _computed[key] = {**cached, **hasher.hexdigests()}
    return _computed[key]


def matches(digests: dict[str, str], known: tuple[str, ...]) -> bool:
    """Whether any known digest agrees with the computed ones."""
    return any(digests.get(algorithm) == value for algorithm, value in map(split_digest, known))


def check_file(path: Path, known: tuple[str, ...], dataset: str) -> str:
    """The sha256 of ``path``; raise :class:`DataError` if it matches none of ``known``.

    An empty ``known`` accepts any content (nothing to check against).
    """
    digests = file_digests(path, [split_digest(k)[0] for k in known])
    if known and not matches(digests, known):
        expected = " or ".join(known)
        actual = ", ".join(f"{a}:{digests[a]}" for a, _ in map(split_digest, known))
        raise DataError(
            f"dataset {dataset!r}: file {path} is corrupted or a different version: expected {expected}, "
            f"got {actual}; delete it and fetch it again (kpca-bench datasets fetch {dataset})"
        )
    return digests["sha256"]


def read_sha256sums(path: Path) -> dict[str, str]:
    """A ``sha256sum``-format listing: relative path -> sha256."""
    listing = {}
    for line in path.read_text().splitlines():
        if line.strip():
            value, name = line.split(maxsplit=1)
            listing[name.lstrip("*").removeprefix("./")] = value.lower()
    return listing


def check_members(listing_path: Path) -> list[str]:
    """Problems with the files a ``SHA256SUMS`` listing names (paths relative to its folder)."""
    problems = []
    for name, expected in read_sha256sums(listing_path).items():
        member = listing_path.parent / name
        if not member.is_file():
            problems.append(f"{member}: missing")
        elif file_digests(member)["sha256"] != expected:
            problems.append(f"{member}: sha256 differs from {listing_path.name}")
    return problems
