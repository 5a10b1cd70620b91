"""Every loader on tiny files written here in the dataset's distributed format.

The breast_cancer_wisconsin loader's noise option (Shen & Asgharzadeh, "Novelty Detection").
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io
from numpy.testing import assert_array_equal

from kpca_bench.datasets import CATEGORICAL, NUMERIC, images, odds, uci
from kpca_bench.errors import DataError


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return {name: path}


# --- Internet Ads: UCI ad.data, 3 continuous + 1,555 binary columns, label "ad." / "nonad." ---


def ad_row(height, width, ratio, local, hot: list[int], label: str) -> str:
    binary = np.zeros(1554, dtype=int)
    binary[hot] = 1
    return ",".join([f"{height:>6}", f"{width:>6}", f"{ratio:>11}", str(local), *map(str, binary)]) + f",{label}"


def write_ad_data(tmp_path):
    rows = [
        ad_row(125, 125, "1.0", 1, [0, 5], "ad."),
        ad_row("?", "?", "?", 1, [1], "ad."),  # the continuous features missing together
        ad_row(57, 468, "8.2105", 1, [], "nonad."),
        ad_row(33, 230, "6.9696", "?", [1553], "nonad."),  # 'local' missing
        ad_row(60, 468, "7.8", 0, [2, 3], "nonad."),
    ]
    return write(tmp_path, "ad.data", "\n".join(rows) + "\n")


def test_internet_ads_drops_incomplete_rows_by_default(tmp_path):
    dataset = uci.load_internet_ads(files=write_ad_data(tmp_path))
    assert dataset.X.shape == (3, 1558)
    assert dataset.class_counts() == {"ad.": 1, "nonad.": 2}
    assert_array_equal(dataset.X[0, :3], [125, 125, 1.0])
    assert dataset.X[0, 4] == 1 and dataset.X[0, 9] == 1 and dataset.X[0].sum() == 125 + 125 + 1 + 1 + 2
    assert set(dataset.feature_kinds) == {NUMERIC}
    assert "2 rows with missing values dropped" in dataset.provenance.notes


def test_internet_ads_can_keep_missing_as_nan(tmp_path):
    dataset = uci.load_internet_ads(files=write_ad_data(tmp_path), missing="nan")
    assert dataset.X.shape == (5, 1558)
    assert np.isnan(dataset.X[1, :3]).all() and np.isnan(dataset.X[3, 3])
    with pytest.raises(DataError, match="missing='impute'"):
        uci.load_internet_ads(files=write_ad_data(tmp_path), missing="impute")


# --- UCI text tables ---


def test_breast_cancer_wisconsin_drops_question_marks_and_the_id(tmp_path):
    files = write(
        tmp_path,
        "breast-cancer-wisconsin.data",
        "1000025,5,1,1,1,2,1,3,1,1,2\n1057013,8,4,5,1,2,?,7,3,1,4\n1017122,8,10,10,8,7,10,9,7,1,4\n",
    )
    dataset = uci.load_breast_cancer_wisconsin(files=files)
    assert dataset.X.shape == (2, 9)
    assert_array_equal(dataset.y, [2, 4])
    assert dataset.X[0, 0] == 5  # the sample id is not a feature
    assert uci.load_breast_cancer_wisconsin(files=files, missing="nan").X.shape == (3, 9)


def test_australian_numeric_by_default_categorical_on_request(tmp_path):
    files = write(
        tmp_path,
        "australian.dat",
        "1 22.08 11.46 2 4 4 1.585 0 0 0 1 2 100 1213 0\n0 22.67 7 2 8 4 0.165 0 0 0 0 2 160 1 1\n",
    )
    numeric = uci.load_australian(files=files)
    assert numeric.X.shape == (2, 14) and numeric.categories is None
    categorical = uci.load_australian(files=files, categorical=True)
    assert [j for j, kind in enumerate(categorical.feature_kinds) if kind == CATEGORICAL] == [0, 3, 4, 5, 7, 8, 10, 11]
    assert categorical.categories[4] == ("4", "8")


def test_climate_skips_header_study_and_run(tmp_path):
    header = "Study Run " + " ".join(f"p{i}" for i in range(18)) + " outcome\n"

    def row(run, outcome):
        return f"    1  {run}  " + "  ".join(f"0.{i + 1}" for i in range(18)) + f"  {outcome}"

    files = write(tmp_path, "pop_failures.dat", header + row(1, 0) + "\n" + row(2, 1))  # no final newline
    dataset = uci.load_climate_model_crashes(files=files)
    assert dataset.X.shape == (2, 18)
    assert dataset.X[0, 0] == 0.1 and dataset.X[0, 17] == 0.18
    assert_array_equal(dataset.y, [0, 1])
    with_ids = uci.load_climate_model_crashes(files=files, columns="all")  # Wang & Tanaka's 20 features
    assert with_ids.X.shape == (2, 20)
    assert_array_equal(with_ids.X[:, :2], [[1, 1], [1, 2]])
    assert_array_equal(with_ids.X[:, 2:], dataset.X)
    with pytest.raises(DataError, match="columns='study'"):
        uci.load_climate_model_crashes(files=files, columns="study")


@pytest.mark.parametrize("part, rows", [("all", 3), ("train", 2), ("test", 1)])
def test_spectf_parts(tmp_path, part, rows):
    files = {**write(tmp_path, "SPECTF.train", "1,59,52\r\n0,72,62\r\n"), **write(tmp_path, "SPECTF.test", "1, 67, 68")}
    dataset = uci.load_spectf(files=files, part=part)
    assert dataset.X.shape == (rows, 2)


def test_spect_is_categorical_and_rejects_an_unknown_part(tmp_path):
    def line(label, bits):
        return ",".join([label, *bits])

    files = {
        **write(tmp_path, "SPECT.train", line("1", "0" * 21 + "1") + "\r\n"),
        **write(tmp_path, "SPECT.test", line("0", "1" * 22)),
    }
    dataset = uci.load_spect(files=files)
    assert dataset.X.shape == (2, 22) and set(dataset.feature_kinds) == {CATEGORICAL}
    assert dataset.categories[0] == ("0", "1")
    with pytest.raises(DataError, match="part='valid'"):
        uci.load_spect(files=files, part="valid")


def test_ann_thyroid_reads_trailing_commas_and_blank_separated_originals(tmp_path):
    values = ["0.73"] + ["0"] * 15 + ["0.0006", "0.015", "0.12", "0.082", "0.146"]
    comma = write(tmp_path, "ann-train.data", ",".join(values + ["3"]) + ",\n")
    blank = write(tmp_path, "ann-test.data", " ".join(values + ["1"]) + "  \n")
    dataset = uci.load_ann_thyroid(files={**comma, **blank}, part="all")
    assert dataset.X.shape == (2, 21)
    assert_array_equal(dataset.X[0], dataset.X[1])
    assert_array_equal(dataset.y, [3, 1])


def test_wine_quality_reads_the_semicolon_csv(tmp_path):
    header = ";".join(f'"feature {i}"' for i in range(11)) + ';"quality"\n'
    files = write(tmp_path, "winequality-red.csv", header + ";".join(["7.4"] * 11) + ";5\n")
    dataset = uci.load_wine_quality_red(files=files)
    assert dataset.X.shape == (1, 11) and dataset.y.tolist() == [5]


def test_yeast_drops_the_sequence_name(tmp_path):
    files = write(tmp_path, "yeast.data", "ADT1_YEAST  0.58  0.61  0.47  0.13  0.50  0.00  0.48  0.22  MIT\n")
    dataset = uci.load_yeast(files=files)
    assert dataset.X.shape == (1, 8) and dataset.y.tolist() == ["MIT"]


def test_balance_scale_features_are_categorical(tmp_path):
    files = write(tmp_path, "balance-scale.data", "B,1,1,1,1\nR,1,1,1,2\nL,5,5,5,4\n")
    dataset = uci.load_balance_scale(files=files)
    assert dataset.categories[3] == ("1", "2", "4")
    assert_array_equal(dataset.X[:, 3], [0, 1, 2])
    assert dataset.one_hot().X.shape == (3, 2 + 2 + 2 + 3)


def test_kr_vs_kp_skips_the_trailing_blank_lines(tmp_path):
    files = write(
        tmp_path,
        "kr-vs-kp.data",
        ",".join(["f"] * 35 + ["n", "won"]) + "\n" + ",".join(["t"] * 35 + ["l", "nowin"]) + "\n\n\n",
    )
    dataset = uci.load_kr_vs_kp(files=files)
    assert dataset.X.shape == (2, 36) and dataset.class_counts() == {"nowin": 1, "won": 1}


def test_tic_tac_toe_and_its_one_hot(tmp_path):
    files = write(tmp_path, "tic-tac-toe.data", "x,x,x,x,o,o,x,o,o,positive\no,x,x,b,o,x,o,b,o,negative\n")
    dataset = uci.load_tic_tac_toe(files=files)
    assert dataset.X.shape == (2, 9) and dataset.categories[3] == ("b", "x")
    encoded = dataset.one_hot()
    assert encoded.X.sum(axis=1).tolist() == [9, 9] and encoded.categories is None


def test_ionosphere_and_letter_labels_are_strings(tmp_path):
    iono = uci.load_ionosphere(files=write(tmp_path, "ionosphere.data", ",".join(["1", "0"] + ["0.5"] * 32 + ["g"])))
    assert iono.X.shape == (1, 34) and iono.y.tolist() == ["g"]
    letter = uci.load_letter_recognition(
        files=write(tmp_path, "letter-recognition.data", "T,2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8\n")
    )
    assert letter.X.shape == (1, 16) and letter.y.tolist() == ["T"]


def test_synthetic_control_labels_come_from_row_blocks(tmp_path):
    rows = "\n".join(" ".join(str(i + t / 10) for t in range(60)) for i in range(12))
    dataset = uci.load_synthetic_control(files=write(tmp_path, "synthetic_control.data", rows))
    assert dataset.X.shape == (12, 60)
    assert dataset.y[:2].tolist() == ["normal", "normal"] and dataset.y[-1] == "downward_shift"


def test_a_question_mark_where_the_registered_copy_has_none_is_an_error(tmp_path):
    with pytest.raises(DataError, match="missing"):
        uci.load_yeast(files=write(tmp_path, "yeast.data", "A  0.5  ?  0.4  0.1  0.5  0  0.4  0.2  MIT\n"))


# --- IDX, .mat and image-folder datasets ---


def write_mnist_layout(tmp_path, write_idx):
    files = {}
    for part, n, first_label in [("train", 3, 0), ("t10k", 2, 7)]:
        images_path, labels_path = tmp_path / f"{part}-images-idx3-ubyte.gz", tmp_path / f"{part}-labels-idx1-ubyte.gz"
        write_idx(images_path, np.full((n, 28, 28), first_label, dtype=np.uint8))
        write_idx(labels_path, np.arange(first_label, first_label + n, dtype=np.uint8))
        files.update({images_path.name: images_path, labels_path.name: labels_path})
    return files


@pytest.mark.parametrize("split, labels", [("all", [0, 1, 2, 7, 8]), ("train", [0, 1, 2]), ("test", [7, 8])])
def test_mnist_splits(tmp_path, write_idx, split, labels):
    dataset = images.load_mnist(files=write_mnist_layout(tmp_path, write_idx), split=split)
    assert dataset.X.shape == (len(labels), 784) and dataset.X.dtype == np.float64
    assert dataset.y.tolist() == labels
    assert dataset.X[-1, 0] == (0 if split == "train" else 7)  # test images are filled with 7, train with 0


def test_fashion_mnist_rejects_an_unknown_split_and_mismatched_counts(tmp_path, write_idx):
    files = write_mnist_layout(tmp_path, write_idx)
    with pytest.raises(DataError, match="split='validation'"):
        images.load_fashion_mnist(files=files, split="validation")
    write_idx(files["t10k-labels-idx1-ubyte.gz"], np.zeros(3, dtype=np.uint8))
    with pytest.raises(DataError, match="2 images but"):
        images.load_fashion_mnist(files=files, split="test")


def test_satimage2_mat(tmp_path):
    path = tmp_path / "satimage-2.mat"
    scipy.io.savemat(path, {"X": np.arange(72.0).reshape(2, 36), "y": np.array([[0.0], [1.0]])})
    dataset = odds.load_satimage2(files={"satimage-2.mat": path})
    assert dataset.X.shape == (2, 36) and dataset.y.tolist() == [0, 1]


def write_eth80(tmp_path, write_png):
    for category, value in [("apple", 200), ("tomato", 50)]:
        for obj in (1, 2):
            write_png(
                tmp_path / category / f"{category}{obj}" / f"{category}{obj}-000-000.png", np.full((16, 16, 3), value)
            )
            write_png(
                tmp_path / category / f"{category}{obj}" / "maps" / f"{category}{obj}-000-000-map.png",
                np.zeros((16, 16, 3)),
            )
    listing = tmp_path / "SHA256SUMS"
    listing.write_text("")
    return {"SHA256SUMS": listing}


def test_eth80_defaults_are_32x32_grayscale_without_masks(tmp_path, write_png):
    dataset = images.load_eth80(files=write_eth80(tmp_path, write_png))
    assert dataset.X.shape == (4, 32 * 32)
    assert dataset.class_counts() == {"apple": 2, "tomato": 2}
    assert np.allclose(dataset.X[dataset.y == "apple"], 200)
    assert "32x32 grayscale" in dataset.provenance.notes


def test_eth80_options(tmp_path, write_png):
    files = write_eth80(tmp_path, write_png)
    assert images.load_eth80(files=files, size=None, grayscale=False).X.shape == (4, 16 * 16 * 3)
    assert images.load_eth80(files=files, categories="apple", size=8).X.shape == (2, 64)
    with pytest.raises(DataError, match="categories='banana'"):
        images.load_eth80(files=files, categories=["banana"])
    with pytest.raises(DataError, match="size=0"):
        images.load_eth80(files=files, size=0)


def test_eth80_close_crop_keeps_the_segmentation_maps_box(tmp_path, write_png):
    # a 16x16 view: a 4x8 object (rows 2-5, columns 4-11) of value 200 on a background of 20
    view = np.full((16, 16, 3), 20)
    view[2:6, 4:12] = 200
    view[2:6, 4:8, 0] = 250  # the object's left half redder, so the colour reading differs from grey
    mask = np.zeros((16, 16, 3))
    mask[2:6, 4:12] = 255
    for category in ("apple", "tomato"):
        write_png(tmp_path / category / f"{category}1" / f"{category}1-000-000.png", view)
        write_png(tmp_path / category / f"{category}1" / "maps" / f"{category}1-000-000-map.png", mask)
    (tmp_path / "SHA256SUMS").write_text("")
    files = {"SHA256SUMS": tmp_path / "SHA256SUMS"}
    whole = images.load_eth80(files=files, size=None, grayscale=False)
    close = images.load_eth80(files=files, size=None, grayscale=False, crop="close")
    assert close.X.shape == (2, 4 * 8 * 3)
    assert_array_equal(close.X[0].reshape(4, 8, 3), view[2:6, 4:12])
    assert whole.X.shape == (2, 16 * 16 * 3)
    resized = images.load_eth80(files=files, size=4, grayscale=True, crop="close").X[0].reshape(4, 4)
    assert np.all(resized > 20)  # the box is stretched to the square: no background is left
    assert "cropped close" in close.provenance.notes
    with pytest.raises(DataError, match="crop='tight'"):
        images.load_eth80(files=files, crop="tight")


def test_eth80_close_crop_reports_a_missing_or_empty_map(tmp_path, write_png):
    files = write_eth80(tmp_path, write_png)  # its maps are all zero
    with pytest.raises(DataError, match="mask is empty"):
        images.load_eth80(files=files, crop="close")
    (tmp_path / "apple" / "apple1" / "maps" / "apple1-000-000-map.png").unlink()
    with pytest.raises(DataError, match="mask not found"):
        images.load_eth80(files=files, crop="close")


ROWS = (
    "\n".join(
        f"{1000 + i},{i % 10 + 1},{(3 * i) % 10 + 1},1,{i % 3 + 1},2,{i % 7 + 1},3,1,1,{2 if i % 3 else 4}"
        for i in range(40)
    )
    + "\n1057013,8,4,5,1,2,?,7,3,1,4\n"
)


@pytest.fixture
def files(tmp_path):
    path = tmp_path / "breast-cancer-wisconsin.data"
    path.write_text(ROWS)
    return {path.name: path}


def test_no_noise_by_default(files):
    plain = uci.load_breast_cancer_wisconsin(files=files)
    assert_array_equal(plain.X, np.round(plain.X))
    assert_array_equal(uci.load_breast_cancer_wisconsin(files=files, noise=0.0).X, plain.X)


def test_noise_is_uniform_within_the_given_share_of_each_feature_std(files):
    plain = uci.load_breast_cancer_wisconsin(files=files)
    noisy = uci.load_breast_cancer_wisconsin(files=files, noise=0.05, noise_seed=3)
    jitter = (noisy.X - plain.X) / np.where(plain.X.std(axis=0, ddof=1) > 0, plain.X.std(axis=0, ddof=1), 1)
    assert noisy.X.shape == plain.X.shape == (40, 9)
    assert_array_equal(noisy.y, plain.y)
    assert np.all(np.abs(jitter) <= 0.05)
    varying = plain.X.std(axis=0) > 0
    assert np.all(np.abs(jitter[:, varying]).max(axis=0) > 0.03)  # it spans the interval, not a tiny corner
    assert not np.any(noisy.X[:, ~varying] - plain.X[:, ~varying])  # a constant column has no spread to scale
    assert "noise" in noisy.provenance.notes


def test_noise_is_reproducible_by_seed(files):
    first = uci.load_breast_cancer_wisconsin(files=files, noise=0.05, noise_seed=1).X
    assert_array_equal(first, uci.load_breast_cancer_wisconsin(files=files, noise=0.05, noise_seed=1).X)
    assert not np.array_equal(first, uci.load_breast_cancer_wisconsin(files=files, noise=0.05, noise_seed=2).X)


def test_negative_noise_is_a_clear_error(files):
    with pytest.raises(DataError, match="noise must be >= 0"):
        uci.load_breast_cancer_wisconsin(files=files, noise=-0.05)


def test_eth80_maps_adds_each_categorys_segmentation_maps_as_its_rows(tmp_path, write_png):
    files = write_eth80(tmp_path, write_png)  # views 200 (apple) / 50 (tomato), maps all zero
    dataset = images.load_eth80(files=files, size=8, maps=True)
    assert dataset.class_counts() == {"apple": 4, "tomato": 4}
    apples = dataset.X[dataset.y == "apple"]
    assert sorted(apples.mean(axis=1).tolist()) == [0, 0, 200, 200]
    assert "segmentation maps read as rows" in dataset.provenance.notes
    with pytest.raises(DataError, match="maps: true and crop: close"):
        images.load_eth80(files=files, maps=True, crop="close")
