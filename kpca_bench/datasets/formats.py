"""Parsers for the file formats the datasets are distributed in.

Each parser reads one format into plain arrays and knows nothing about any
particular dataset: IDX (MNIST-style, optionally gzipped), MATLAB ``.mat`` (v4 to
v7.3), NumPy ``.npz``, folders of images, and UCI-style delimited text.
"""

from __future__ import annotations

import gzip
import re
import zipfile
from pathlib import Path

import numpy as np
import scipy.io

from kpca_bench.errors import DataError

MISSING = "?"

_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_GZIP_MAGIC = b"\x1f\x8b"
# MATLAB v7.3 files are HDF5 files with a 512-byte MATLAB header in front of the HDF5 signature.
_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
NPY_MAGIC = b"\x93NUMPY"
_MAT73_OFFSET = 512
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


class MissingKeys(DataError):
    """A file lacks arrays asked for by name; ``missing`` and ``present`` list the names."""

    def __init__(self, path: Path, missing: list[str], present: list[str]):
        self.missing, self.present = missing, present
        super().__init__(f"{path}: no variable {', '.join(missing)} (has {', '.join(present) or 'none'})")


def _pick(path: Path, content, keys: tuple[str, ...]) -> list[np.ndarray]:
    present = [key for key in content if not key.startswith("__")]
    missing = [key for key in keys if key not in present]
    if missing:
        raise MissingKeys(path, missing, present)
    return [np.asarray(content[key]) for key in keys]


def is_mat73(path: Path) -> bool:
    """Whether ``path`` is a MATLAB v7.3 (HDF5) file."""
    with path.open("rb") as stream:
        stream.seek(_MAT73_OFFSET)
        return stream.read(len(_HDF5_SIGNATURE)) == _HDF5_SIGNATURE


def read_mat(path: Path, *keys: str) -> list[np.ndarray]:
    """Arrays stored under ``keys`` in a MATLAB ``.mat`` file: v4 to v7.2 by scipy, v7.3 (HDF5) by h5py."""
    if is_mat73(path):
        return _read_mat73(path, keys)
    try:
        content = scipy.io.loadmat(path)
    except Exception as err:  # noqa: BLE001 - scipy raises ValueError, IndexError, MatReadError... on a non-.mat file
        raise DataError(f"{path}: not a readable MATLAB .mat file ({err})") from err
    return _pick(path, content, keys)


def _read_mat73(path: Path, keys: tuple[str, ...]) -> list[np.ndarray]:
    """A v7.3 file's arrays; HDF5 stores MATLAB's column-major arrays transposed, so each is transposed back."""
    try:
        import h5py  # optional: only v7.3 files need it
    except ImportError:
        raise DataError(
            f"{path}: a MATLAB v7.3 (HDF5) file needs h5py; pip install 'kpca-bench[hdf5]' "
            "(or save it with -v7 in MATLAB)"
        ) from None
    with h5py.File(path, "r") as content:
        arrays = {key: content[key] for key in content if isinstance(content[key], h5py.Dataset)}
        return [array.T for array in _pick(path, arrays, keys)]


def read_npz(path: Path, *keys: str) -> list[np.ndarray]:
    """Arrays stored under ``keys`` in a NumPy ``.npz`` archive (no pickled objects)."""
    if not zipfile.is_zipfile(path):
        with path.open("rb") as stream:
            if stream.read(len(NPY_MAGIC)) == NPY_MAGIC:
                raise DataError(f"{path}: a single .npy array, not an .npz archive of named arrays")
        # numpy would try it as a pickle and say so, which misleads about a damaged file
        raise DataError(f"{path}: not a readable NumPy .npz file (no zip header); save it with numpy.savez")
    try:
        content = np.load(path, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile) as err:
        raise DataError(f"{path}: not a readable NumPy .npz file ({err})") from err
    if not isinstance(content, np.lib.npyio.NpzFile):
        raise DataError(f"{path}: a single .npy array, not an .npz archive of named arrays")
    with content:
        present = list(content.files)
        missing = [key for key in keys if key not in present]
        if missing:
            raise MissingKeys(path, missing, present)
        return [content[key] for key in keys]


def read_image(path: Path, *, size: int | None, grayscale: bool, box=None) -> np.ndarray:
    """One image as a flat float64 vector of pixel values in 0..255.

    ``box`` (left, upper, right, lower) crops it first; None keeps the whole
    image. ``size`` then resizes to ``size`` x ``size`` (area averaging, which
    does not alias when shrinking); None keeps the (cropped) size.
    """
    from PIL import Image  # PIL comes with matplotlib; imported here so it costs nothing elsewhere

    with Image.open(path) as image:
        image = image.convert("L" if grayscale else "RGB")
        if box is not None:
            image = image.crop(box)
        if size is not None:
            image = image.resize((size, size), Image.Resampling.BOX)
        return np.asarray(image, dtype=np.float64).ravel()


def read_mask_box(path: Path) -> tuple[int, int, int, int]:
    """The bounding box (left, upper, right, lower) of a mask image's non-zero pixels."""
    from PIL import Image

    if not path.is_file():
        raise DataError(f"{path}: mask not found")
    with Image.open(path) as mask:
        box = mask.convert("L").getbbox()
    if box is None:
        raise DataError(f"{path}: the mask is empty, there is no object to crop to")
    return box


def read_image_folder(root: Path, classes, *, pattern: str, size: int | None, grayscale: bool, box=None):
    """Images under ``root/<class>/`` matching ``pattern``, in sorted path order.

    ``box``: None, or a function from an image's path to the box
    :func:`read_image` crops it to. Returns ``(X, y, paths)``: one flattened image per row, its class folder name,
    and its path relative to ``root``.
    """
    rows, labels, paths = [], [], []
    for label in classes:
        found = sorted((root / label).glob(pattern))
        if not found:
            raise DataError(f"{root / label}: no images matching {pattern}")
        for path in found:
            rows.append(read_image(path, size=size, grayscale=grayscale, box=None if box is None else box(path)))
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
