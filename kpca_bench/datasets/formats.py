"""Parsers for the file formats the datasets are distributed in.

Each parser reads one format into plain arrays and knows nothing about any
particular dataset: IDX (MNIST-style, optionally gzipped), MATLAB ``.mat``,
folders of images, and UCI-style delimited text.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import scipy.io

from kpca_bench.errors import DataError

MISSING = "?"

_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_GZIP_MAGIC = b"\x1f\x8b"
# UCI files are separated by commas, blanks, tabs or semicolons, sometimes with
# a trailing separator and CRLF line ends; none of the values contain these.
_SEPARATORS = re.compile(r"[,;\s]+")
_SEPARATOR_CHARS = ",; \t\r\n"


def read_idx(path: Path) -> np.ndarray:
    """An IDX file (LeCun's MNIST format), gzipped or not, as an array of its stored shape."""
    raw = path.read_bytes()
    if raw[:2] == _GZIP_MAGIC:
        raw = gzip.decompress(raw)
    if len(raw) < 4 or raw[:2] != b"\0\0" or raw[2] not in _IDX_DTYPES:
        raise DataError(f"{path}: not an IDX file (bad magic number {raw[:4].hex()})")
    dtype, ndim = np.dtype(_IDX_DTYPES[raw[2]]), raw[3]
    shape = tuple(np.frombuffer(raw, dtype=">u4", count=ndim, offset=4).tolist())
    offset = 4 + 4 * ndim
    expected = offset + dtype.itemsize * int(np.prod(shape))
    if len(raw) != expected:
        raise DataError(f"{path}: IDX header says {shape} ({expected} bytes) but the file has {len(raw)} bytes")
    return np.frombuffer(raw, dtype=dtype, offset=offset).reshape(shape)


def read_mat(path: Path, *keys: str) -> list[np.ndarray]:
    """Arrays stored under ``keys`` in a MATLAB (v4-v7.2) ``.mat`` file."""
    try:
        content = scipy.io.loadmat(path)
    except Exception as err:  # noqa: BLE001 - scipy raises ValueError, IndexError, MatReadError... on a non-.mat file
        raise DataError(f"{path}: not a readable MATLAB .mat file ({err})") from err
    missing = [key for key in keys if key not in content]
    if missing:
        raise DataError(f"{path}: no variable {', '.join(missing)} (has {', '.join(k for k in content if not k.startswith('__'))})")
    return [content[key] for key in keys]


def read_image(path: Path, *, size: int | None, grayscale: bool) -> np.ndarray:
    """One image as a flat float64 vector of pixel values in 0..255.

    ``size`` resizes to ``size`` x ``size`` (area averaging, which does not
    alias when shrinking); None keeps the stored size.
    """
    from PIL import Image  # PIL comes with matplotlib; imported here so it costs nothing elsewhere

    with Image.open(path) as image:
        image = image.convert("L" if grayscale else "RGB")
        if size is not None:
            image = image.resize((size, size), Image.Resampling.BOX)
        return np.asarray(image, dtype=np.float64).ravel()


def read_image_folder(root: Path, classes, *, pattern: str, size: int | None, grayscale: bool):
    """Images under ``root/<class>/`` matching ``pattern``, in sorted path order.

    Returns ``(X, y, paths)``: one flattened image per row, its class folder name,
    and its path relative to ``root``.
    """
    rows, labels, paths = [], [], []
    for label in classes:
        found = sorted((root / label).glob(pattern))
        if not found:
            raise DataError(f"{root / label}: no images matching {pattern}")
        for path in found:
            rows.append(read_image(path, size=size, grayscale=grayscale))
            labels.append(label)
            paths.append(path.relative_to(root).as_posix())
    shapes = {row.shape for row in rows}
    if len(shapes) != 1:
        raise DataError(f"{root}: images of different sizes {sorted(shapes)}; pass a size to resize them")
    return np.vstack(rows), np.array(labels), paths


def read_delimited(path: Path, *, header_lines: int = 0) -> np.ndarray:
    """A UCI-style text table as a 2-D array of strings (missing values stay ``"?"``).

    Blank lines are skipped; every other line must have the same number of fields.
    """
    lines = path.read_text().splitlines()[header_lines:]
    stripped = (line.strip(_SEPARATOR_CHARS) for line in lines)
    rows = [_SEPARATORS.split(line) for line in stripped if line]
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        first_odd = next(i for i, row in enumerate(rows) if len(row) != len(rows[0]))
        raise DataError(f"{path}: rows have {sorted(widths)} fields (the first differing is data row {first_odd + 1})")
    if not rows:
        raise DataError(f"{path}: no data rows")
    return np.array(rows, dtype=str)


def to_float(fields: np.ndarray, path: Path) -> np.ndarray:
    """Numeric fields as float64, with ``"?"`` as NaN."""
    fields = np.where(fields == MISSING, "nan", fields)
    try:
        return fields.astype(np.float64)
    except ValueError as err:
        raise DataError(f"{path}: non-numeric value where a number was expected ({err})") from err


def to_codes(fields: np.ndarray) -> tuple[np.ndarray, tuple[tuple[str, ...], ...]]:
    """Categorical fields as integer codes (float64) per column, with each column's sorted categories.

    A ``"?"`` becomes NaN and is not a category.
    """
    codes = np.empty(fields.shape, dtype=np.float64)
    categories = []
    for j in range(fields.shape[1]):
        column = fields[:, j]
        present = column != MISSING
        names, inverse = np.unique(column[present], return_inverse=True)
        codes[:, j] = np.nan
        codes[present, j] = inverse
        categories.append(tuple(names.tolist()))
    return codes, tuple(categories)
