"""The Das et al. configs load at both profiles; a Das-style config runs end to end through the CLI on digits."""

from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from kpca_bench.cli import app
from kpca_bench.run.config import load_config
from kpca_bench.run.store import ResultStore

CONFIGS = Path(__file__).parents[1] / "configs"
DAS = ["mnist", "fashion_mnist", "satimage2", "eth80", "internet_ads"]
PAPER = {  # section V: components, L1-ratio, Wang & Tanaka's (rho, lambda, lambda_1k), train, test in + out
    "mnist": (15, 0.7, (0.02, 0.001, 0.01), 3000, 3000, 3000),
    "fashion_mnist": (15, 0.3, (0.05, 0.002, 0.006), 3000, 3000, 3000),
    "satimage2": (7, 0.6, (0.07, 0.003, 0.016), 400, 500, 71),
    "eth80": (15, 0.3, (0.1, 0.006, 0.012), 300, 110, 111),  # 410 apples: one test apple short of 111
    "internet_ads": (24, 0.4, (0.008, 0.009, 0.019), 600, 380, 380),
}


@pytest.mark.parametrize("name", DAS)
def test_config_loads_with_the_papers_settings(name):
    config = load_config(CONFIGS / f"{name}.yaml")
    k, l1_ratio, (rho, lam, lam1), train, test_in, test_out = PAPER[name]
    d = config.dataset
    assert (d.train_inliers, d.test_inliers, d.test_outliers) == (train, test_in, test_out)
    assert config.trials == 10 and config.reference.paper == "Das et al."
    main = {m.label: m for m in config.methods if m.trials is None}
    assert set(main) == {"SKPCA", "KPCA", "Naive thresholding", "Wang-Tanaka"}
    assert {m.params["n_components"] for m in config.methods} == {k}
    assert main["SKPCA"].params["l1_ratio"] == main["Naive thresholding"].params["match_l1_ratio"] == l1_ratio
    wang = main["Wang-Tanaka"].params
    assert (wang["rho"], wang["lam"], wang["lam1"], wang["eps_abs"], wang["eps_rel"]) == (rho, lam, lam1, 0.01, 1e-4)
    assert all(m.params.get("gamma") == "mean_pairwise" for m in config.methods)
    sweeps = [m for m in config.methods if m.trials == 1]
    assert {m.name for m in sweeps} == {"skpca_enet", "naive_threshold", "skpca_l1"}
    # A sweep point equal to a main setting would share that cell's key (and its label).
    main_settings = [(m.name, s) for m in main.values() for s in m.settings()]
    assert not any((m.name, s) in main_settings for m in sweeps for s in m.settings())


@pytest.mark.parametrize("name", DAS)
def test_quick_profile_is_small_and_has_no_sweeps(name):
    config = load_config(CONFIGS / f"{name}.yaml", "quick")
    assert config.trials == 2 and config.dataset.train_inliers <= 300
    assert [m.label for m in config.methods] == ["SKPCA", "KPCA", "Naive thresholding", "Wang-Tanaka"]


def tiny_config(path: Path) -> Path:
    """MNIST's config shrunk to scikit-learn's digits: same methods, sweeps on one trial."""
    raw = yaml.safe_load((CONFIGS / "mnist.yaml").read_text())
    raw.pop("profiles")
    raw["dataset"] = {"name": "digits", "inliers": [0], "outliers": list(range(1, 10)), "train_inliers": 60,
                      "test_inliers": 40, "test_outliers": 40}
    raw["trials"] = 2
    for method in raw["methods"]:
        method["params"]["n_components"] = 5
        if method["name"] == "skpca_l1":
            method["params"].update(eps_abs=1e-4, lam=0.001, rho=0.02, max_outer_iter=20)
        if method["name"] == "naive_threshold" and "grid" in method:
            method["grid"] = {"n_nonzero": [3, 10, 30]}
        if method["name"] == "skpca_l1" and "grid" in method:
            method["grid"] = {"lam1": [0.0001, 0.001]}
        if method["name"] == "skpca_enet" and "grid" in method:
            method["grid"] = {"l1_ratio": [0.15, 0.45]}
    path.write_text(yaml.safe_dump(raw))
    return path


def test_das_style_run_end_to_end(tmp_path):
    config = tiny_config(tmp_path / "mnist.yaml")
    out = tmp_path / "results"
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--quiet", "--offline"])
    assert result.exit_code == 0, result.output + result.stderr
    directory = out / "mnist"
    trials = pd.read_csv(directory / "trials.csv")
    assert set(trials["status"]) == {"ok"} and len(trials) == 4 * 2 + 2 + 3 + 2
    for name in ["f1_box.png", "roc.png", "f1_vs_sparsity.png", "summary.csv"]:
        assert (directory / name).stat().st_size > 0, name
    # Naive thresholding kept SKPCA's average non-zeros of the same trial: the same sparsity up to rounding.
    by_trial = trials.set_index(["method", "trial"])["sparsity"]
    for trial in (0, 1):
        assert abs(by_trial["Naive thresholding", trial] - by_trial["SKPCA", trial]) <= 100 * 0.5 / 60
    assert (trials.loc[trials["method"] == "KPCA", "sparsity"] == 100).all()
    # What `kpca-bench analyse das` reads for its threshold-rule table (tests/test_papers_das.py).
    records = ResultStore(directory).load().values()
    assert all(set(r["f1_by_rule"]) == {"train_quantile", "test_prior", "test_oracle"} for r in records)
