"""Wang & Tanaka toy figures (section 4.1): the toy_components protocol end to end on a tiny sample."""

from __future__ import annotations


import numpy as np
import pandas as pd
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.methods import KernelPCA
from kpca_bench.report.components import projection_grid
from kpca_bench.experiment.config_parser import load_config
from kpca_bench.experiment.store import ResultStore

TINY = {
    "name": "tiny_toy",
    "dataset": {"name": "gaussian_mixture", "options": {"n_per_source": 6, "sd": 0.1, "random_state": 0}},
    "protocol": {"name": "toy_components", "grid_points": 12},
    "trials": 1,
    "methods": [
        {"name": "kpca", "label": "KPCA", "params": {"n_components": 3, "gamma": 10}},
        {
            "name": "skpca_l21",
            "label": "SKPCA-l2,1",
            "params": {"n_components": 3, "gamma": 10, "mu21": 0.01, "max_iter": 30, "max_outer_iter": 3},
        },
    ],
    "output": {"figures": []},
}


def test_toy_figure_from_the_cli(tmp_path):
    path = tmp_path / "tiny_toy.yaml"
    path.write_text(yaml.safe_dump(TINY))
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    directory = tmp_path / "tiny_toy"
    assert (directory / "components.png").stat().st_size > 0
    trials = pd.read_csv(directory / "trials.csv").set_index("method")
    assert trials.loc["KPCA", "sparsity"] == 100.0
    records = ResultStore(directory).records()
    l21 = next(r for r in records if r["method"] == "SKPCA-l2,1")
    A = np.array(l21["dual_coef"])
    assert l21["sample_sparsity"] == np.mean(~A.any(axis=1))
    assert len(set(l21["nonzero"])) == 1  # l2,1 keeps or drops whole rows


def test_projection_grid_is_the_estimators_transform():
    X = np.random.default_rng(0).normal(size=(20, 2))
    model = KernelPCA(3, gamma=2.0).fit(X)
    xx, yy, values = projection_grid(X, model.dual_coef_, 2.0, grid_points=5)
    expected = model.transform(np.column_stack([xx.ravel(), yy.ravel()]))
    np.testing.assert_allclose(values.reshape(3, -1).T, expected, atol=1e-12)


def test_paper_configs_parse():
    for name in ("wang_toy_gaussians", "wang_toy_parabola"):
        config = load_config(f"reproductions/wang/configs/{name}.yaml")
        assert config.protocol == "toy_components" and config.trials == 1
