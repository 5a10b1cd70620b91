"""Figures from trial records: titles stay inside the figure."""

import pandas as pd

from kpca_bench.report import plots


def test_a_long_title_is_wrapped_to_the_figure_width(tmp_path, monkeypatch):
    titled = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path: titled.append(fig))
    trials = pd.DataFrame({"method": ["KPCA"] * 3, "f1": [0.9, 0.95, 0.97]})
    plots.f1_box_plot(trials, ["KPCA"], title="sas_novelty_quantile_all_rows_scaling: breast_cancer_wisconsin",
                      threshold="fixed outlier-score cut 0.0834", path=tmp_path / "f1_box.png")
    fig = titled[0]
    fig.tight_layout()
    renderer = fig.canvas.get_renderer()
    title = fig.axes[0].title.get_window_extent(renderer)
    assert title.x0 >= 0 and title.x1 <= fig.bbox.width
