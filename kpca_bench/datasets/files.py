"""A dataset's files as a whole: present locally, checked, fetched when allowed.

This is where the rules of the issue meet: look in the data directories, and
only if a file is missing download it (never with ``offline``); a file whose
checksum is wrong is an error, never silently used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kpca_bench.datasets.base import FileRecord
from kpca_bench.datasets.checksums import check_file, check_members
from kpca_bench.datasets.locate import DataFile, download, find, searched
from kpca_bench.errors import DataError


@dataclass(frozen=True)
class FileStatus:
    """What ``datasets verify`` found for one file: "ok", "missing" or "corrupt", with details."""

    dataset: str
    file: str
    status: str
    path: Path | None = None
    detail: str = ""


def missing_message(dataset: str, missing: list[DataFile], homepage: str, *, offline: bool) -> str:
    """The one line telling a user which files are missing, where they were looked for and how to get them."""
    names = ", ".join(file.path for file in missing)
    folders = ", ".join(dict.fromkeys(searched(file.folder_of(dataset)) for file in missing))
    if offline:
        fix = f"run without --offline to download, or get them from {homepage}"
    else:
        fix = f"get them from {homepage}"
    return (
        f"dataset {dataset!r}: missing {names}; searched {folders}; "
        f"{fix} and put them in one of those folders (or a folder listed in KPCA_BENCH_DATA)"
    )


def ensure(dataset: str, files: tuple[DataFile, ...], homepage: str, *, offline: bool) -> dict[str, Path]:
    """Paths of all of a dataset's files, downloading missing ones unless ``offline``."""
    found = {file.path: find(dataset, file) for file in files}
    missing = [file for file in files if found[file.path] is None]
    if missing and (offline or any(file.url is None for file in missing)):
        raise DataError(missing_message(dataset, missing, homepage, offline=offline))
    for file in missing:
        found[file.path] = download(dataset, file)
    return {path: where for path, where in found.items() if where is not None}  # each found or downloaded by now


def checked_records(dataset: str, files: tuple[DataFile, ...], paths: dict[str, Path]) -> tuple[FileRecord, ...]:
    """Verify each file's checksum (raising :class:`DataError` on a mismatch) and record it."""
    return tuple(
        FileRecord(str(paths[file.path]), check_file(paths[file.path], file.checksums, dataset)) for file in files
    )


def verify(dataset: str, files: tuple[DataFile, ...]) -> list[FileStatus]:
    """Check every file of a dataset that is present, including the members of a checksum listing."""
    statuses = []
    for file in files:
        path = find(dataset, file)
        if path is None:
            where = searched(file.folder_of(dataset))
            statuses.append(FileStatus(dataset, file.path, "missing", detail=f"searched {where}"))
            continue
        try:
            check_file(path, file.checksums, dataset)
        except DataError as err:
            statuses.append(FileStatus(dataset, file.path, "corrupt", path, str(err)))
            continue
        problems = check_members(path) if file.lists_members else []
        if problems:
            detail = f"{len(problems)} listed file(s) bad, first: {problems[0]}"
            statuses.append(FileStatus(dataset, file.path, "corrupt", path, detail))
        else:
            statuses.append(FileStatus(dataset, file.path, "ok", path))
    return statuses


def present(dataset: str, files: tuple[DataFile, ...]) -> bool:
    """Whether every file is in a data directory (not verified: that is ``verify``)."""
    return all(find(dataset, file) is not None for file in files)
