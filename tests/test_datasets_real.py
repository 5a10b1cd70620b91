"""Every file-based loader on the real files (KPCA_BENCH_DATA), against the shared datasets' MANIFEST.

Skipped where the data is absent, unless KPCA_BENCH_REQUIRE_DATA=1 (.ci/run), where that fails.
"""

from __future__ import annotations

import pytest

from kpca_bench.datasets import DATASETS, load_dataset

# name -> (options, shape, class counts), numbers from ../shared/datasets/MANIFEST.md
MNIST_COUNTS = {
    d: tr + te
    for d, (tr, te) in enumerate(
        zip(
            [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949],
            [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009],
        )
    )
}
MANIFEST = {
    "mnist": ({}, (70000, 784), MNIST_COUNTS),
    "fashion_mnist": ({"split": "test"}, (10000, 784), {d: 1000 for d in range(10)}),
    "satimage2": ({}, (5803, 36), {0: 5732, 1: 71}),
    "eth80": ({}, (820, 32 * 32), {"apple": 410, "tomato": 410}),
    "australian": ({}, (690, 14), {0: 383, 1: 307}),
    # 699 rows, 16 with '?' (all in Bare Nuclei), dropped by default
    "breast_cancer_wisconsin": ({"missing": "nan"}, (699, 9), {2: 458, 4: 241}),
    "climate_model_crashes": ({}, (540, 18), {1: 494, 0: 46}),
    "spectf": ({}, (267, 44), {1: 212, 0: 55}),
    "spect": ({}, (267, 22), {1: 212, 0: 55}),
    "ann_thyroid": ({}, (3772, 21), {1: 93, 2: 191, 3: 3488}),
    "wine_quality_red": ({}, (1599, 11), {3: 10, 4: 53, 5: 681, 6: 638, 7: 199, 8: 18}),
    "yeast": (
        {},
        (1484, 8),
        {
            "CYT": 463,
            "NUC": 429,
            "MIT": 244,
            "ME3": 163,
            "ME2": 51,
            "ME1": 44,
            "EXC": 35,
            "VAC": 30,
            "POX": 20,
            "ERL": 5,
        },
    ),
    "balance_scale": ({}, (625, 4), {"L": 288, "R": 288, "B": 49}),
    "kr_vs_kp": ({}, (3196, 36), {"won": 1669, "nowin": 1527}),
    "tic_tac_toe": ({}, (958, 9), {"positive": 626, "negative": 332}),
    "ionosphere": ({}, (351, 34), {"g": 225, "b": 126}),
    "letter_recognition": ({}, (20000, 16), None),  # 26 classes of 734-813, checked below
    "synthetic_control": (
        {},
        (600, 60),
        {
            name: 100
            for name in ["normal", "cyclic", "increasing_trend", "decreasing_trend", "upward_shift", "downward_shift"]
        },
    ),
}
PRESENT_HERE = [
    name for name, spec in DATASETS.items() if spec.files and spec.collection == "papers" and name != "internet_ads"
]  # ADBench: test_datasets_adbench


def test_the_manifest_table_covers_every_shared_dataset():
    assert sorted(MANIFEST) == sorted(PRESENT_HERE)


@pytest.mark.real_data
@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name == "eth80" else name for name in sorted(MANIFEST)]
)  # eth80: most of this sweep's time
def test_real_files_match_the_manifest(real_data_dir, monkeypatch, name):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(real_data_dir))
    options, shape, counts = MANIFEST[name]
    dataset = load_dataset(name, offline=True, **options)
    assert dataset.X.shape == shape
    if counts is None:
        assert len(dataset.class_names) == 26 and 734 <= min(dataset.class_counts().values())
        assert max(dataset.class_counts().values()) <= 813 and dataset.class_counts()["A"] == 789
    else:
        assert dataset.class_counts() == counts
    assert all(record.path.startswith(str(real_data_dir)) for record in dataset.provenance.files)
    if not options:  # the registry's advertised shape is the default-options shape
        assert (DATASETS[name].shape, DATASETS[name].n_classes) == (shape, len(dataset.class_names))


@pytest.mark.slow  # loads every real dataset
@pytest.mark.real_data
def test_real_defaults_that_differ_from_the_raw_files(real_data_dir, monkeypatch):
    monkeypatch.setenv("KPCA_BENCH_DATA", str(real_data_dir))
    cancer = load_dataset("breast_cancer_wisconsin", offline=True)
    assert cancer.X.shape == (683, 9) and cancer.class_counts() == {2: 444, 4: 239}
    assert load_dataset("ann_thyroid", offline=True, part="test").class_counts() == {1: 73, 2: 177, 3: 3178}
    assert load_dataset("spectf", offline=True, part="train").class_counts() == {1: 40, 0: 40}
    assert load_dataset("spect", offline=True, part="test").X.shape == (187, 22)
    assert load_dataset("fashion_mnist", offline=True, split="train").X.shape == (60000, 784)
    assert load_dataset("eth80", offline=True, size=16, grayscale=False).X.shape == (820, 16 * 16 * 3)
    assert load_dataset("eth80", offline=True, size=16, crop="close").X.shape == (
        820,
        16 * 16,
    )  # every view has its map
