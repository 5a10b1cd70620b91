"""A user's own data file as a dataset: ``dataset: {name: file, options: {path: ..., ...}}``.

The format comes from the extension, or from ``format:``:

* ``csv``, ``tsv``, ``txt`` (blank-separated): pandas, with a header row;
  ``label`` names the label column (default: the last one), ``drop`` columns to
  ignore, ``na_values`` extra strings that mean "missing", ``sep`` another
  separator.
* ``parquet``: pandas with pyarrow (the ``parquet`` extra); ``label`` and ``drop`` as above.
* ``arff``: scipy's reader; ``label`` and ``drop`` as above.
* ``npz``: the arrays named by ``X`` and ``y`` (default ``X`` and ``y``).
* ``npy``: ``path`` is the features array; ``y`` the labels array file beside it (default ``y.npy``).
* ``mat``: MATLAB, the variables named by ``X`` and ``y`` (ODDS files have ``X`` and ``y``);
  v7.3 (HDF5) files need h5py (the ``hdf5`` extra).

For the arrays formats ``drop`` lists column indices. Columns, labels and
missing values then follow :mod:`kpca_bench.datasets.tabular`, with two checks
first: two columns of one name are an error, and so is a column of a text table
(csv, tsv, txt, parquet) that holds numbers and text both, naming the column, the
first such row and its value, unless ``categorical`` lists the column: its values
are then coded as categories. Every problem is one :class:`DataError` line
starting with the file and naming the option.
"""

from __future__ import annotations

import csv
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

from kpca_bench.datasets.base import Dataset, FileRecord
from kpca_bench.datasets.checksums import file_digests
from kpca_bench.datasets.formats import NPY_MAGIC, MissingKeys, read_mat, read_npz
from kpca_bench.datasets.tabular import table_dataset
from kpca_bench.errors import DataError

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".txt": "txt",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arff": "arff",
    ".npz": "npz",
    ".npy": "npy",
    ".mat": "mat",
}
_SEPARATORS = {"csv": ",", "tsv": "\t", "txt": r"\s+"}
TABLES = ("csv", "tsv", "txt", "parquet", "arff")
# Tables whose columns carry no declared type: one text value makes a column of numbers text.
TEXT_TABLES = ("csv", "tsv", "txt", "parquet")
# A load still running after this many seconds says so once (said_if_slow).
SLOW_LOAD_S = 3.0


def file_format(path: Path, format: str | None) -> str:
    """The format named by ``format``, else by the file's extension."""
    accepted = sorted(set(FORMATS.values()))
    if format is not None:
        if format not in accepted:
            raise DataError(
                f"{path}: dataset.options.format: unknown format {format!r}; accepted: {', '.join(accepted)}"
            )
        return format
    if path.suffix.lower() not in FORMATS:
        raise DataError(
            f"{path}: dataset.options.format: unknown extension {path.suffix or '(none)'!r}; name the "
            f"format with format: (one of {', '.join(accepted)})"
        )
    return FORMATS[path.suffix.lower()]


def read_table(path: Path, fmt: str, *, na_values, sep: str | None) -> pd.DataFrame:
    """A table file as a DataFrame of its columns, header row first; two columns of one name are an error."""
    try:
        if fmt == "parquet":
            return _read_parquet(path)
        if fmt == "arff":
            return _read_arff(path)
        header = _header(path, sep or _SEPARATORS[fmt])
        _check_unique_columns(path, header)
        if len(header) == 1:
            raise DataError(
                f"{path}: dataset.options.sep: the header {header[0]!r} is one column when split at "
                f"{sep or _SEPARATORS[fmt]!r}; give the file's separator with sep: (features and a "
                "label are two columns at least)"
            )
        return pd.read_csv(path, sep=sep or _SEPARATORS[fmt], na_values=na_values, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
    except DataError:
        raise
    except Exception as err:  # noqa: BLE001 - pandas and its engines raise many types on a malformed file
        raise DataError(
            f"{path}: dataset.options.format: not a readable {fmt} file "
            f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}); save it as "
            f"{fmt}, or name its format in dataset.options.format"
        ) from None


def _header(path: Path, sep: str) -> list:
    """A text table's column names as the file spells them (pandas renames a repeated ``a`` to ``a.1``).

    A one-character separator is split by the csv module, in time linear in the line (pandas would build a
    one-row DataFrame of every column, seconds for 100,000 of them); a pattern (blanks) by pandas.
    """
    if len(sep) == 1:
        with path.open(encoding="utf-8-sig", newline="") as stream:
            return next(csv.reader(stream, delimiter=sep, skipinitialspace=True), [])
    header = pd.read_csv(path, sep=sep, header=None, nrows=1, skipinitialspace=True)
    return header.iloc[0].tolist() if len(header) else []


def _check_unique_columns(path: Path, names: list) -> None:
    # An empty name (NaN as pandas reads it) is no name: pandas calls each "Unnamed: i", so two are no repeat.
    repeated = sorted(str(name) for name, count in Counter(names).items() if count > 1 and name == name and name != "")
    if repeated:
        raise DataError(
            f"{path}: dataset.options.path: column names {', '.join(map(repr, repeated))} are given "
            "more than once; rename them so that each column has its own name"
        )


def _read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow.parquet

    # pyarrow refuses a repeated name only when reading, with a scanner error that reads as a bug
    _check_unique_columns(path, pyarrow.parquet.read_schema(path).names)
    return pd.read_parquet(path)


def _read_arff(path: Path) -> pd.DataFrame:
    from scipy.io import arff

    try:
        data, _ = arff.loadarff(path)
    except StopIteration:  # scipy's reader ran out of lines before @data
        raise DataError(
            f"{path}: dataset.options.format: not an ARFF file: no @relation, @attribute and @data header lines"
        ) from None
    frame = pd.DataFrame(data)
    # scipy gives nominal values as bytes, and "?" (missing) as b"?".
    for name in frame.columns:
        if frame[name].dtype == object:
            frame[name] = frame[name].str.decode("utf-8").replace("?", np.nan)
    return frame


def split_label(frame: pd.DataFrame, path: Path, *, label, drop) -> tuple[pd.DataFrame, pd.Series]:
    """Features and the label column; the label defaults to the last column, ``drop`` columns are left out."""
    columns = list(frame.columns)
    if not columns:
        raise DataError(f"{path}: dataset.options.path: the file is empty; give a file with a header row and data rows")
    listed = ", ".join(map(str, columns))
    if label is None:
        label = columns[-1]
    elif label not in columns:
        raise DataError(f"{path}: dataset.options.label: no column {label!r}; columns: {listed}")
    unknown = [column for column in drop if column not in columns]
    if unknown:
        raise DataError(f"{path}: dataset.options.drop: no column {', '.join(map(repr, unknown))}; columns: {listed}")
    features = frame.drop(columns=[label, *[c for c in drop if c != label]])
    return features, frame[label]


def mixed_column(column: pd.Series) -> tuple[int, object] | None:
    """The position and value of the first text value of a column that also holds numbers, or None."""
    if not (pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)):
        return None
    present = column.notna().to_numpy()
    numbers = pd.to_numeric(column, errors="coerce").notna().to_numpy()
    text = present & ~numbers
    if not numbers.any() or not text.any():
        return None
    first = int(np.argmax(text))
    return first, column.iloc[first]


def coded_columns(features: pd.DataFrame, path: Path, fmt: str, categorical) -> pd.DataFrame:
    """``features`` with the ``categorical`` columns marked as categories; in a text table, a column mixing
    numbers and text that is not listed is an error naming the column, its first text value and that row."""
    if not isinstance(categorical, (list, tuple)):
        raise DataError(f"{path}: dataset.options.categorical: must be a list of columns, got {categorical!r}")
    unknown = [column for column in categorical if column not in features.columns]
    if unknown:
        raise DataError(
            f"{path}: dataset.options.categorical: no feature column {', '.join(map(repr, unknown))}; "
            f"feature columns: {', '.join(map(str, features.columns))}"
        )
    if fmt in TEXT_TABLES:
        # Only a column of text (object or string) can mix numbers and text: a wide table of numbers costs nothing.
        texts = features.columns[[not is_numeric_dtype(kind) for kind in features.dtypes]]
        for name in texts.difference(categorical, sort=False):
            found = mixed_column(features[name])
            if found is not None:
                row, value = found
                raise DataError(
                    f"{path}: column {name!r} holds numbers but data row {row + 1} has {value!r}; "
                    f"correct it, mark it missing (dataset.options.na_values: [{value!r}]) or code "
                    f"the column as categories (dataset.options.categorical: [{name!r}])"
                )
    return features.astype({name: "category" for name in categorical}) if categorical else features


def read_arrays(path: Path, fmt: str, *, X: str, y: str) -> tuple[np.ndarray, np.ndarray, list[Path]]:
    """Features, labels and the files read, from an ``.npz``, ``.npy`` pair or ``.mat`` file."""
    if fmt == "npy":
        labels_path = path.parent / (y if Path(y).suffix else f"{y}.npy")  # the default y is y.npy
        if not labels_path.is_file():
            raise DataError(f"{path}: dataset.options.y: no labels file {labels_path}")
        return _load_npy(path, "path"), _load_npy(labels_path, "y"), [path, labels_path]
    try:
        features, labels = (read_npz if fmt == "npz" else read_mat)(path, X, y)
    except MissingKeys as err:
        key = "X" if X in err.missing else "y"
        what = "array" if fmt == "npz" else "variable"
        raise DataError(
            f"{path}: dataset.options.{key}: no {what} {(X if key == 'X' else y)!r} in the file; "
            f"it has: {', '.join(err.present) or 'none'}"
        ) from None
    return features, labels, [path]


def _load_npy(path: Path, option: str) -> np.ndarray:
    with path.open("rb") as stream:
        if stream.read(len(NPY_MAGIC)) != NPY_MAGIC:
            raise DataError(f"{path}: dataset.options.{option}: not a NumPy .npy file (no .npy header)")
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise DataError(f"{path}: dataset.options.{option}: not a readable NumPy .npy file ({err})") from None


def array_frame(features: np.ndarray, labels: np.ndarray, path: Path, *, drop) -> tuple[pd.DataFrame, pd.Series]:
    """Arrays as a table: columns numbered 0.., labels flattened; ``drop`` lists column indices to leave out."""
    labels = np.asarray(labels).ravel()
    features = np.asarray(features)
    if features.ndim != 2 or features.shape[0] != labels.shape[0]:
        raise DataError(
            f"{path}: dataset.options.X: features of shape {features.shape} do not match "
            f"{labels.shape[0]} labels; expected (rows, columns) with one label per row"
        )
    bad = [c for c in drop if not isinstance(c, int) or not 0 <= c < features.shape[1]]
    if bad:
        raise DataError(f"{path}: dataset.options.drop: {bad} are not column indices 0..{features.shape[1] - 1}")
    frame = pd.DataFrame(features).drop(columns=list(drop))
    return frame, pd.Series(labels)


def load_file(
    *,
    path,
    format: str | None = None,
    label=None,
    drop=(),
    na_values=None,
    sep: str | None = None,
    X: str = "X",
    y: str = "y",
    drop_na: bool = False,
    categorical=(),
) -> Dataset:
    """A dataset from the user's file ``path`` (already resolved against the config's folder).

    Parameters
    ----------
    path : the data file.
    format : one of :data:`FORMATS`' values; default from the extension.
    label : the label column of a table (default: the last column).
    drop : columns to leave out (names for tables, indices for arrays).
    na_values : extra strings meaning "missing" in a text table (pandas ``na_values``).
    sep : the separator of a text table (default by format: ``,``, tab, blanks).
    X, y : the arrays of an ``.npz`` or ``.mat`` file; for ``.npy``, ``y`` is the labels file.
    drop_na : drop rows with missing or infinite values instead of refusing them.
    categorical : feature columns to code as categories (names for tables, indices for arrays), also those
        that mix numbers and text, which are an error otherwise.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(
            f"{path}: dataset.options.path: no such file (a relative path is read from the "
            "config file's folder); fix the path"
        )
    fmt = file_format(path, format)
    with said_if_slow(f"reading {path} ({path.stat().st_size / 2**20:.0f} MiB as {fmt}) ..."):
        if fmt in TABLES:
            features, labels = split_label(
                read_table(path, fmt, na_values=na_values, sep=sep), path, label=label, drop=list(drop)
            )
            read = [path]
        else:
            arrays_X, arrays_y, read = read_arrays(path, fmt, X=X, y=y)
            features, labels = array_frame(arrays_X, arrays_y, path, drop=list(drop))
        features = coded_columns(features, path, fmt, categorical)
        dataset = table_dataset(
            features, labels, name=str(path), source=f"{path.name}, read as {fmt}", where=str(path), drop_na=drop_na
        )
        records = tuple(FileRecord(str(file), file_digests(file)["sha256"]) for file in read)
    return replace(dataset, provenance=replace(dataset.provenance, files=records))


@contextmanager
def said_if_slow(line: str, after_s: float = SLOW_LOAD_S) -> Iterator[None]:
    """Print ``line`` once on stderr if the block is still running ``after_s`` seconds after it started, so that a
    long load (a wide or long file) is not taken for a hang; nothing for a quick one."""
    timer = threading.Timer(after_s, lambda: print(line, file=sys.stderr, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
