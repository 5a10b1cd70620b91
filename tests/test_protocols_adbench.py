"""ADBench's unsupervised protocol: the split, the training-row cap (the same rows for every detector), the records."""

import numpy as np
import pytest

from kpca_bench.datasets import Dataset, Provenance
from kpca_bench.datasets.base import NUMERIC
from kpca_bench.errors import DataError
from kpca_bench.methods.registry import METHODS
from kpca_bench.protocols import PROTOCOLS, Method
from kpca_bench.protocols.adbench import Options, adbench_split, check_adbench, evaluate_adbench, parse_options
from kpca_bench.protocols.base import DatasetConfig, ThresholdConfig
from kpca_bench.validation import Problems

DATA = DatasetConfig(name="toy", inliers=(0,), outliers=(1,), scaling="minmax")


def toy(n_in=900, n_out=100, seed=0) -> Dataset:
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(size=(n_in, 3)), rng.normal(4, 1, size=(n_out, 3))]
    y = np.r_[np.zeros(n_in, int), np.ones(n_out, int)]
    return Dataset(name="toy", X=X, y=y, feature_kinds=(NUMERIC,) * 3, provenance=Provenance(source="test"))


def method(name: str, **params) -> Method:
    spec = METHODS[name]
    return Method(
        label=name,
        name=name,
        estimator=spec.build(params, random_state=0),
        subspace=spec.subspace,
        score="reconstruction_error" if spec.subspace else None,
    )


def test_stratified_70_30_split_scaled_on_the_training_part():
    split = adbench_split(toy(), DATA, Options(max_train=None), seed=1)
    assert len(split.X_train) == 700 and len(split.X_test) == 300
    assert split.train_is_outlier.sum() == 70 and split.is_outlier.sum() == 30
    assert split.X_train.min() == 0 and split.X_train.max() == 1
    assert split.capped is None


def test_subsample_cap_and_seeds():
    options = Options(subsample=500, max_train=None)
    a, b = adbench_split(toy(), DATA, options, 3), adbench_split(toy(), DATA, options, 3)
    assert len(a.X_train) + len(a.X_test) == 500
    np.testing.assert_array_equal(a.X_test, b.X_test)
    assert not np.array_equal(a.X_test, adbench_split(toy(), DATA, options, 4).X_test)


@pytest.mark.parametrize("max_train, n_train", [(200, 200), (None, 700)])
def test_every_detector_fits_the_same_rows_capped_or_not(max_train, n_train):
    options = Options(max_train=max_train)
    split = adbench_split(toy(), DATA, options, seed=0)
    if max_train:
        assert len(split.capped) == 200 and split.train_is_outlier[split.capped].sum() == 20
    kernel = evaluate_adbench(method("kpca", n_components=5, gamma="mean_pairwise"), split, options)
    forest = evaluate_adbench(method("isolation_forest", n_estimators=20), split, options)
    for record in (kernel, forest):
        assert (record["n_train"], record["n_train_rows"]) == (n_train, 700)
        assert record["train_capped"] == (max_train is not None)
        assert record["n_train_outliers"] == n_train // 10
        assert record["status"] == "ok" and record["auroc"] > 0.85 and 0.3 < record["auprc"] <= 1
        assert (record["n_test_inliers"], record["n_test_outliers"]) == (270, 30)


def test_clean_variant_fits_on_inliers_only():
    split = adbench_split(toy(), DATA, Options(train_on="inliers", max_train=None), seed=0)
    assert len(split.X_train) == 630 and not split.train_is_outlier.any()
    assert split.is_outlier.sum() == 30


@pytest.mark.parametrize(
    "raw, key",
    [
        ({"test_size": 1.5}, "test_size"),
        ({"max_train": 3}, "max_train"),
        ({"subsample": "all"}, "subsample"),
        ({"train_on": "clean"}, "train_on"),
    ],
)
def test_bad_options_are_reported(raw, key):
    problems = Problems()
    parse_options(raw, ThresholdConfig(), problems)
    assert [k for k, _ in problems.items] == [key]


def test_null_caps_are_accepted_and_described():
    options = parse_options({"subsample": None, "max_train": None}, ThresholdConfig(), Problems())
    assert (options.subsample, options.max_train) == (None, None)
    text = PROTOCOLS["adbench"].describe(DATA, Options())
    assert "70 / 30" in text and "every detector is fitted on all the training rows" in text
    assert "at most 10,000 rows" in text
    capped = PROTOCOLS["adbench"].describe(DATA, Options(max_train=2000))
    assert "every detector is fitted on the same stratified sample of at most 2,000 training rows" in capped


def test_too_few_outliers_is_a_data_error():
    with pytest.raises(DataError, match="at least 2 of each"):
        check_adbench(toy(n_out=1), DATA, Options())


@pytest.mark.parametrize("suite", ["adbench_classical", "adbench_classical_capped", "adbench_classical_pyod_defaults"])
def test_the_committed_suites_fit_every_detector_of_a_trial_on_the_same_rows(suite):
    """Every (dataset, trial) of the committed ADBench suites has one n_train across its detectors (and the capped
    suite at most 2,000)."""
    from pathlib import Path

    from kpca_bench.experiment.store import ResultStore

    members = sorted((Path(__file__).parents[1] / "results" / suite).glob("*/records.parquet"))
    assert len(members) == 36
    for path in members:
        sizes: dict[int, set[int]] = {}
        for record in ResultStore(path.parent).records():
            if record.get("status") == "ok":
                sizes.setdefault(record["trial"], set()).add(record["n_train"])
        assert len(sizes) == 5 and all(len(n) == 1 for n in sizes.values()), (path.parent.name, sizes)
        if suite.endswith("capped"):
            assert max(n for trial in sizes.values() for n in trial) <= 2000
