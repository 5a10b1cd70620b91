"""Every parser on a tiny file written here in the real format."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io
from numpy.testing import assert_array_equal

from kpca_bench.datasets.formats import (
    read_delimited,
    read_idx,
    read_image_folder,
    read_mask_box,
    read_mat,
    to_codes,
    to_float,
)
from kpca_bench.errors import DataError


@pytest.mark.parametrize("compress", [True, False])
def test_read_idx_images_and_labels(tmp_path, write_idx, compress):
    images = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    labels = np.array([7, 1], dtype=np.uint8)
    write_idx(tmp_path / "images", images, compress=compress)
    write_idx(tmp_path / "labels", labels, compress=compress)
    assert_array_equal(read_idx(tmp_path / "images"), images)
    assert_array_equal(read_idx(tmp_path / "labels"), labels)


def test_read_idx_other_dtypes_are_big_endian(tmp_path, write_idx):
    values = np.array([[1.5, -2.0]], dtype=">f4")
    write_idx(tmp_path / "floats.gz", values)
    assert_array_equal(read_idx(tmp_path / "floats.gz"), [[1.5, -2.0]])


def test_read_idx_rejects_bad_magic_and_truncation(tmp_path, write_idx):
    (tmp_path / "bad").write_bytes(b"\x01\x02\x03\x04rest")
    with pytest.raises(DataError, match="not an IDX file"):
        read_idx(tmp_path / "bad")
    write_idx(tmp_path / "ok", np.zeros((2, 2), dtype=np.uint8), compress=False)
    (tmp_path / "short").write_bytes((tmp_path / "ok").read_bytes()[:-1])
    with pytest.raises(DataError, match="bytes"):
        read_idx(tmp_path / "short")


def test_read_mat(tmp_path):
    X = np.arange(6.0).reshape(3, 2)
    scipy.io.savemat(tmp_path / "data.mat", {"X": X, "y": np.array([[0], [1], [0]])})
    got_X, got_y = read_mat(tmp_path / "data.mat", "X", "y")
    assert_array_equal(got_X, X)
    assert_array_equal(got_y.ravel(), [0, 1, 0])
    with pytest.raises(DataError, match="no variable Z"):
        read_mat(tmp_path / "data.mat", "Z")


def test_read_mat_rejects_a_non_mat_file(tmp_path):
    (tmp_path / "page.mat").write_text("<html>not a mat file</html>")
    with pytest.raises(DataError, match="not a readable MATLAB"):
        read_mat(tmp_path / "page.mat", "X")


def test_read_image_folder_resizes_greys_and_skips_deeper_folders(tmp_path, write_png):
    red = np.zeros((8, 8, 3))
    red[..., 0] = 255
    write_png(tmp_path / "apple" / "apple1" / "apple1-000-000.png", red)
    write_png(tmp_path / "apple" / "apple1" / "maps" / "apple1-000-000-map.png", red)
    write_png(tmp_path / "tomato" / "tomato1" / "tomato1-000-000.png", np.full((8, 8, 3), 100))
    X, y, paths = read_image_folder(tmp_path, ["apple", "tomato"], pattern="*/*.png", size=4, grayscale=True)
    assert X.shape == (2, 16)
    assert_array_equal(y, ["apple", "tomato"])
    assert paths == ["apple/apple1/apple1-000-000.png", "tomato/tomato1/tomato1-000-000.png"]
    assert np.allclose(X[0], round(255 * 0.299)) and np.allclose(X[1], 100)  # ITU-R 601 luma of pure red
    X_rgb, _, _ = read_image_folder(tmp_path, ["apple"], pattern="*/*.png", size=None, grayscale=False)
    assert X_rgb.shape == (1, 8 * 8 * 3)


def test_read_image_folder_crops_each_image_to_its_box(tmp_path, write_png):
    image = np.arange(8 * 8 * 3).reshape(8, 8, 3) % 256
    mask = np.zeros((8, 8, 3))
    mask[1:3, 2:7] = 128  # any non-zero pixel is the object's
    write_png(tmp_path / "apple" / "apple1" / "apple1-000-000.png", image)
    write_png(tmp_path / "mask.png", mask)
    assert read_mask_box(tmp_path / "mask.png") == (2, 1, 7, 3)
    X, _, _ = read_image_folder(
        tmp_path,
        ["apple"],
        pattern="*/*.png",
        size=None,
        grayscale=False,
        box=lambda path: read_mask_box(tmp_path / "mask.png"),
    )
    assert_array_equal(X[0], image[1:3, 2:7].ravel())


def test_read_image_folder_reports_an_empty_class(tmp_path):
    (tmp_path / "apple").mkdir()
    with pytest.raises(DataError, match="no images"):
        read_image_folder(tmp_path, ["apple"], pattern="*/*.png", size=4, grayscale=True)


def test_read_delimited_handles_uci_separators_and_missing(tmp_path):
    text = "1, 2,?,x\r\n\n3 ,4, 5,y\r\n"  # comma+blank, CRLF, blank line, '?'
    (tmp_path / "t.data").write_text(text)
    rows = read_delimited(tmp_path / "t.data")
    assert_array_equal(rows, [["1", "2", "?", "x"], ["3", "4", "5", "y"]])
    numbers = to_float(rows[:, :3], tmp_path / "t.data")
    assert np.isnan(numbers[0, 2]) and numbers[1, 2] == 5


def test_read_delimited_trailing_separator_header_and_blanks(tmp_path):
    (tmp_path / "a.data").write_text('"h 1";"h 2"\n0.5;7;\n  0.25   8\n')
    assert_array_equal(read_delimited(tmp_path / "a.data", header_lines=1), [["0.5", "7"], ["0.25", "8"]])


def test_read_delimited_rejects_ragged_rows(tmp_path):
    (tmp_path / "r.data").write_text("1,2,3\n1,2\n")
    with pytest.raises(DataError, match="data row 2"):
        read_delimited(tmp_path / "r.data")


def test_to_float_names_the_file_on_text(tmp_path):
    with pytest.raises(DataError, match="non-numeric"):
        to_float(np.array([["1", "abc"]]), tmp_path / "f.data")


def test_to_codes_sorted_categories_and_missing():
    codes, categories = to_codes(np.array([["b", "x"], ["a", "?"], ["b", "x"]]))
    assert categories == (("a", "b"), ("x",))
    assert_array_equal(codes[:, 0], [1, 0, 1])
    assert codes[0, 1] == 0 and np.isnan(codes[1, 1])
