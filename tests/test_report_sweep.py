"""Li et al.'s table statistics: over all settings (section IV.B.2's text) or over the per-kernel-parameter maxima
(the protocol option ``statistics: kernel_max``, the values Figs. 4-11 box-plot)."""

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose

from kpca_bench.report.sweep import statistics_frame


def _frame():
    # One split, two kernel parameters, three model parameters each.
    aurocs = [np.array([0.2, 0.9, 0.5]), np.array([0.1, 0.3, 0.4])]
    return pd.DataFrame(
        {
            "entry": "MD",
            "trial": 0,
            "kernel_param": [1.0, 2.0],
            "max_auroc": [a.max() for a in aurocs],
            "aurocs": aurocs,
        }
    )


def _stats(over):
    return statistics_frame(_frame(), over).set_index("statistic")


def test_settings_pool_every_kernel_and_model_parameter():
    stats = _stats("settings")
    pooled = [0.2, 0.9, 0.5, 0.1, 0.3, 0.4]
    assert_allclose(
        stats["auroc"].to_numpy(), [0.9, 0.1, np.percentile(pooled, 25), np.median(pooled), np.percentile(pooled, 75)]
    )
    assert (stats["n_settings"] == 6).all()


def test_kernel_max_takes_the_best_over_the_model_parameter_per_kernel_parameter():
    stats = _stats("kernel_max")
    assert_allclose(
        stats["auroc"].to_numpy(), [0.9, 0.4, np.percentile([0.9, 0.4], 25), 0.65, np.percentile([0.9, 0.4], 75)]
    )
    assert (stats["n_settings"] == 2).all()
    assert stats.loc["best", "auroc"] == _stats("settings").loc["best", "auroc"]


def test_a_statistic_reached_by_constant_score_cells_alone_is_flagged():
    # RE's best (0.5) comes only from its constant-score cell; its minimum from a cell that ranks
    frame = pd.DataFrame(
        {
            "entry": "RE",
            "trial": 0,
            "kernel_param": [1.0, 2.0],
            "max_auroc": [0.5, 0.4],
            "aurocs": [np.array([0.5, 0.5]), np.array([0.3, 0.4])],
            "constant": [True, False],
        }
    )
    stats = statistics_frame(frame).set_index("statistic")
    assert stats.loc["best", "constant_only"] and not stats.loc["min", "constant_only"]
    assert not stats.loc["median", "constant_only"] and (stats["constant_cells"] == 1).all()
    everything = statistics_frame(frame.assign(constant=True)).set_index("statistic")
    assert everything["constant_only"].all()


def test_the_sweep_tables_name_the_constant_score_cells(tmp_path):
    from kpca_bench.report.sweep import constant_lines

    frame = pd.DataFrame(
        {
            "entry": "RE",
            "trial": [0, 0, 1, 1],
            "kernel_param": [1.0, 2.0] * 2,
            "max_auroc": [0.5, 0.4] * 2,
            "aurocs": [np.array([0.5]), np.array([0.4])] * 2,
            "constant": [True, False] * 2,
        }
    )
    [line] = constant_lines(frame, statistics_frame(frame), ["RE"])
    assert "**RE: constant scores**" in line and "at 1-1 of 2 kernel parameter values" in line
    assert "its best comes from them alone in 2 of 2 splits" in line
    assert constant_lines(frame.assign(constant=False), statistics_frame(frame.assign(constant=False)), ["RE"]) == []
