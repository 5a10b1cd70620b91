"""Kim & Klabjan robustness experiment: the explained-variation formula, the corrupted splits, a run end to end."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from numpy.testing import assert_allclose
from sklearn.decomposition import PCA
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.datasets import load_dataset
from kpca_bench.errors import ConfigError
from kpca_bench.methods import KernelPCA
from kpca_bench.methods.l1_kpca import L1KernelPCA
from kpca_bench.protocols.robustness import check_robustness, explained_variation, robustness_split
from kpca_bench.experiment.config_parser import parse_config

CONFIGS = Path(__file__).parents[1] / "reproductions" / "kim" / "configs"


def parabola_in_10d(seed, n=100, n_corrupted=10):
    """A noisy parabola in the first two of 10 coordinates; the first rows corrupted by large noise."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, n)
    clean = np.zeros((n, 10))
    clean[:, 0], clean[:, 1] = x, x**2 + rng.normal(scale=0.05, size=n)
    radius = np.sqrt(np.mean(np.sum((clean - clean.mean(axis=0)) ** 2, axis=1)))
    noisy = clean.copy()
    noisy[:n_corrupted] += rng.normal(scale=10 * radius / np.sqrt(10), size=(n_corrupted, 10))
    return clean, noisy


def explicit_ratio(W, X_clean):
    """trace(W^T C W) / trace(C) for orthonormal columns W and the covariance C of X_clean."""
    C = np.cov(X_clean, rowvar=False, bias=True)
    return np.trace(W.T @ C @ W) / np.trace(C)


def test_linear_kernel_fitted_on_clean_data_gives_pca_explained_variance_ratio():
    clean, _ = parabola_in_10d(0)
    clean += np.random.default_rng(1).normal(scale=0.1, size=clean.shape)  # full rank
    model = KernelPCA(3, kernel="linear").fit(clean)
    assert_allclose(
        explained_variation(model, clean), PCA(n_components=3).fit(clean).explained_variance_ratio_.sum(), rtol=1e-10
    )


@pytest.mark.parametrize(
    "estimator", [KernelPCA(2, kernel="linear"), L1KernelPCA(2, kernel="linear", n_restarts=2, random_state=0)]
)
def test_linear_kernel_fitted_on_corrupted_data_matches_the_primal_formula(estimator):
    clean, noisy = parabola_in_10d(1)
    model = estimator.fit(noisy)
    W = (noisy - noisy.mean(axis=0)).T @ model.dual_coef_  # the components as vectors of R^10
    assert_allclose(W.T @ W, np.eye(2), atol=1e-10)
    assert_allclose(explained_variation(model, clean), explicit_ratio(W, clean), rtol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_l1_explains_more_clean_variation_than_l2_under_gross_corruption(seed):
    # 10% of the rows moved ~10 radii away; sigma = 10 puts them within the kernel's reach. Over
    # 20 seeds the smallest margin of L1 over L2 was 0.23, so 0.1 leaves room.
    clean, noisy = parabola_in_10d(seed)
    l1 = L1KernelPCA(3, sigma=10.0, n_restarts=2, random_state=seed).fit(noisy)
    l2 = KernelPCA(3, sigma=10.0).fit(noisy)
    assert explained_variation(l1, clean) > explained_variation(l2, clean) + 0.1


def tiny_config(**protocol):
    raw = {
        "name": "kim_robustness_tiny",
        "dataset": {"name": "parabola", "options": {"n_samples": 200, "noise": 0.05}, "train_inliers": 60},
        "protocol": {
            "name": "robustness",
            "corruption": [0, 0.1, 0.2],
            "noise_scale": 10,
            "ambient_dim": 5,
            **protocol,
        },
        "trials": 2,
        "methods": [
            {
                "name": "l1_kpca",
                "label": "L1",
                "params": {"n_components": 2, "n_restarts": 1},
                "grid": {"sigma": [0.5, 5.0]},
            },
            {"name": "kpca", "label": "L2", "params": {"n_components": 2}, "grid": {"sigma": [0.5, 5.0]}},
        ],
        "output": {"figures": []},
    }
    return raw


def test_split_embeds_the_sample_and_nests_the_corruptions():
    config = parse_config(tiny_config())
    dataset = load_dataset("parabola", n_samples=200, noise=0.05)
    split = robustness_split(dataset, config.dataset, config.options, seed=3)
    assert split.X_train.shape == (60, 5) and np.all(split.X_train[:, 2:] == 0)
    assert np.all(np.isin(split.X_train[:, :2], dataset.X))
    assert_allclose(split.corrupted(0.0), split.X_train)
    moved = [np.flatnonzero(np.any(split.corrupted(r) != split.X_train, axis=1)) for r in (0.1, 0.2)]
    assert len(moved[0]) == 6 and len(moved[1]) == 12 and set(moved[0]) <= set(moved[1])
    assert set(moved[1]) == set(np.flatnonzero(split.is_outlier))
    radius2 = np.mean(np.sum((split.X_train - split.X_train.mean(axis=0)) ** 2, axis=1))
    assert 50 < np.mean(np.sum(split.noise**2, axis=1)) / radius2 < 200  # c^2 = 100 in expectation
    assert_allclose(robustness_split(dataset, config.dataset, config.options, seed=3).noise, split.noise)


@pytest.mark.parametrize(
    "protocol, message",
    [
        ({"corruption": [0.1, 1.5]}, "protocol.corruption"),
        ({"ambient_dim": 1}, "protocol.ambient_dim"),
        ({"noise_scale": 0}, "protocol.noise_scale"),
    ],
)
def test_bad_options_are_config_errors(protocol, message):
    with pytest.raises(ConfigError, match=message):
        config = parse_config(tiny_config(**protocol))
        check_robustness(load_dataset("parabola", n_samples=200), config.dataset, config.options)


def test_run_end_to_end_writes_the_table_and_figure(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_config()))
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    directory = tmp_path / "kim_robustness_tiny"
    for name in ["robustness.md", "robustness.csv", "robustness_summary.csv", "explained_variation.png"]:
        assert (directory / name).stat().st_size > 0, name
    frame = pd.read_csv(directory / "robustness.csv")
    assert len(frame) == 2 * 2 * 2 * 3  # trials x entries x sigmas x corruption levels
    assert frame["explained_variation"].between(0, 1 + 1e-9).all()
    summary = pd.read_csv(directory / "robustness_summary.csv")
    assert set(summary["paired_trials"]) == {2}
    checked = pd.read_csv(directory / "summary.csv").set_index("method")
    first = frame[frame["method"] == checked.index[0]]
    for level in sorted(first["corruption"].unique()):
        column = f"explained_variation_r{100 * level:g}_mean"
        expected = first.loc[first["corruption"] == level, "explained_variation"].mean()
        assert checked.loc[checked.index[0], column] == pytest.approx(expected), column


def test_shipped_config_is_valid():
    config = parse_config(yaml.safe_load((CONFIGS / "kim_robustness.yaml").read_text()))
    assert config.protocol == "robustness"
    check_robustness(load_dataset(config.dataset.name, **config.dataset.options), config.dataset, config.options)
