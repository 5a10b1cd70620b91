"""A dataset from OpenML, through openml-python and its cache: ``dataset: {name: openml, options: {data_id: N}}``.

openml-python keeps what it downloads under its cache root, in
``<root>/org/openml/www/datasets/<id>/``: ``description.xml`` (the dataset's
description, with its name, version and default target), the data as
``dataset.arff`` or ``dataset_<id>.pq``, and a pickle of the parsed table. The
root is ``$KPCA_BENCH_CACHE/openml`` when ``KPCA_BENCH_CACHE`` is set, else
openml-python's own setting (``OPENML_CACHE_DIR`` or its config file). A
dataset counts as cached when its description and a data file are there; only
then is it read, without the network. Otherwise it is downloaded (openml-python
``get_dataset``), unless ``offline``, which is an error naming the id and the
command that fetches it. The columns follow :mod:`kpca_bench.datasets.tabular`:
OpenML's nominal columns are categorical features.

References
----------
J. Vanschoren, J. N. van Rijn, B. Bischl, L. Torgo. OpenML: networked science in
machine learning. SIGKDD Explorations 15(2), 2013. M. Feurer et al.
OpenML-Python: an extensible Python API for OpenML. JMLR 22(100), 2021.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import replace
from pathlib import Path

from kpca_bench.datasets.base import Dataset, FileRecord
from kpca_bench.datasets.checksums import file_digests
from kpca_bench.datasets.tabular import table_dataset
from kpca_bench.errors import DataError

FETCH_PREFIX = "openml:"


@contextlib.contextmanager
def cache_root():
    """openml-python's cache root for the duration: ``$KPCA_BENCH_CACHE/openml`` if set, else its own."""
    import openml  # imported here: it takes a second, and only OpenML datasets need it

    ours = os.environ.get("KPCA_BENCH_CACHE")
    if not ours:
        yield openml
        return
    previous = openml.config.get_config_as_dict()["cachedir"]
    openml.config.set_root_cache_directory(Path(ours).expanduser() / "openml")
    try:
        yield openml
    finally:
        openml.config.set_root_cache_directory(previous)


def dataset_dir(openml, data_id: int) -> Path:
    """Where openml-python caches data id ``data_id`` (for the configured server)."""
    return Path(openml.config.get_cache_directory()) / "datasets" / str(data_id)


def is_cached(openml, data_id: int) -> bool:
    directory = dataset_dir(openml, data_id)
    return (directory / "description.xml").is_file() and (
        (directory / "dataset.arff").is_file() or (directory / f"dataset_{data_id}.pq").is_file()
    )


def cached_id(openml, name: str, version: int | None) -> int | None:
    """The id of a cached dataset with this name (and version; the highest cached one if None)."""
    found = {}
    for description in Path(openml.config.get_cache_directory()).glob("datasets/*/description.xml"):
        text = description.read_text(encoding="utf8")
        id_, name_, version_ = (re.search(rf"<oml:{key}>(.*?)</oml:{key}>", text) for key in ("id", "name", "version"))
        if id_ and name_ and version_ and name_.group(1) == name:
            found[int(version_.group(1))] = int(id_.group(1))
    if version is not None:
        return found.get(version)
    return found[max(found)] if found else None


def fetch_command(data_id) -> str:
    return f"kpca-bench datasets fetch {FETCH_PREFIX}{data_id}"


def download(openml, data_id) -> None:
    """The network, in one place (tests replace it): openml-python fetches the description and the data."""
    try:
        openml.datasets.get_dataset(
            data_id, download_data=True, download_qualities=False, download_features_meta_data=False
        )
    except Exception as err:  # noqa: BLE001 - openml raises server, connection and hash errors of many types
        raise DataError(
            f"openml data id {data_id}: could not download it ({type(err).__name__}: {err}); "
            f"retry where OpenML is reachable with: {fetch_command(data_id)}"
        ) from None


def resolve_id(openml, data_id, name, version, *, offline: bool) -> int:
    """The data id a config names, by ``data_id`` or by ``name`` (+ ``version``)."""
    if (data_id is None) == (name is None):
        raise DataError("dataset openml: give exactly one of dataset.options.data_id or dataset.options.name")
    if data_id is not None:
        if isinstance(data_id, bool) or not isinstance(data_id, int) or data_id < 1:
            raise DataError(f"dataset openml: dataset.options.data_id: must be a positive integer, got {data_id!r}")
        return data_id
    found = cached_id(openml, name, version)
    if found is not None or offline:
        if found is None:
            raise DataError(
                f"openml dataset {name!r} (version {version or 'any'}) is not in the OpenML cache "
                f"{openml.config.get_cache_directory()}; fetch it once without --offline"
            )
        return found
    try:
        return int(
            openml.datasets.get_dataset(
                name, version=version, download_data=False, download_qualities=False, download_features_meta_data=False
            ).dataset_id
        )
    except Exception as err:  # noqa: BLE001 - as in download
        raise DataError(
            f"dataset openml: dataset.options.name: no OpenML dataset {name!r} version "
            f"{version or 'any'} could be found ({type(err).__name__}: {err})"
        ) from None


def ensure_cached(openml, data_id: int, *, offline: bool) -> None:
    """Download data id ``data_id`` into the cache unless it is there; ``offline``: an error instead."""
    if is_cached(openml, data_id):
        return
    if offline:
        raise DataError(
            f"openml data id {data_id} is not in the OpenML cache {dataset_dir(openml, data_id)}; "
            f"fetch it with: {fetch_command(data_id)} (or run without --offline)"
        )
    download(openml, data_id)


@contextlib.contextmanager
def environment(name: str, value: str | None):
    """``os.environ[name] = value`` for the duration (None: unchanged)."""
    previous = os.environ.get(name)
    if value is not None:
        os.environ[name] = value
    try:
        yield
    finally:
        if value is not None:
            if previous is None:
                del os.environ[name]
            else:
                os.environ[name] = previous


def read_cached(openml, data_id: int):
    """openml-python's dataset read from the cache alone.

    With only the ARFF file cached, openml-python is told to skip the parquet file
    (its ``OPENML_SKIP_PARQUET``), which it would otherwise try to download.
    """
    arff_only = not (dataset_dir(openml, data_id) / f"dataset_{data_id}.pq").is_file()
    with environment("OPENML_SKIP_PARQUET", "true" if arff_only else None):
        return openml.datasets.get_dataset(
            data_id, download_data=True, download_qualities=False, download_features_meta_data=False
        )


def load_openml(
    *,
    data_id: int | None = None,
    name: str | None = None,
    version: int | None = None,
    target: str | None = None,
    drop_na: bool = False,
    offline: bool = False,
) -> Dataset:
    """An OpenML dataset, its label the default target or ``target``; the data file's sha256 in its provenance.

    Parameters
    ----------
    data_id : the OpenML data id; or ``name`` (with ``version``, default the highest).
    target : the label column (default: the dataset's default target).
    drop_na : drop rows with missing values instead of refusing them.
    offline : use the cache only.
    """
    with cache_root() as openml:
        data_id = resolve_id(openml, data_id, name, version, offline=offline)
        ensure_cached(openml, data_id, offline=offline)
        found = read_cached(openml, data_id)
        features, labels, data_file = table_of(found, target)
    where = f"openml data id {data_id}"
    dataset = table_dataset(
        features,
        labels,
        name=f"{FETCH_PREFIX}{data_id}",
        where=where,
        drop_na=drop_na,
        source=f"OpenML data id {data_id}: {found.name} version {found.version}",
    )
    record = FileRecord(str(data_file), file_digests(data_file)["sha256"])
    return replace(dataset, provenance=replace(dataset.provenance, files=(record,)))


def table_of(found, target: str | None):
    """Features, labels and the data file of an openml-python dataset, the label column checked."""
    frame, _, _, columns = found.get_data()
    label = target or found.default_target_attribute
    where = f"openml data id {found.dataset_id}"
    if label is None:
        raise DataError(
            f"{where}: dataset.options.target: the dataset has no default target; name one of: {', '.join(columns)}"
        )
    if label not in columns:
        raise DataError(f"{where}: dataset.options.target: no column {label!r}; columns: {', '.join(columns)}")
    data_file = Path(found.parquet_file or found.data_file)
    return frame.drop(columns=[label]), frame[label], data_file


def fetch(data_id: int) -> Path:
    """Download data id ``data_id`` into the cache (``kpca-bench datasets fetch openml:N``); its folder."""
    with cache_root() as openml:
        ensure_cached(openml, data_id, offline=False)
        return dataset_dir(openml, data_id)
