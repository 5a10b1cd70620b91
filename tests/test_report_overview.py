"""results/REPORT.md is built from configs, papers.yaml and the runs' summaries alone."""

import textwrap

import yaml

from kpca_bench.report.overview import write_overview

CONFIG = textwrap.dedent("""\
    name: tiny
    reference: {paper: Someone et al., dataset: Digits}
    dataset: {name: digits, inliers: [0], outliers: [1], train_inliers: 40, test_inliers: 20, test_outliers: 20}
    methods:
      - {name: kpca, label: KPCA, params: {n_components: 5}}
      - {name: ocsvm, label: OCSVM}
    """)


def entry(method, value):
    return {"paper": "Someone et al.", "source": "Table 1", "dataset": "Digits", "method": method,
            "metric": "auroc_mean", "value": value, "tolerance": 0.02, "reason": "test"}


def test_report_puts_paper_numbers_beside_ours_and_embeds_figures(tmp_path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "tiny.yaml").write_text(CONFIG)
    results = tmp_path / "results"
    (results / "reference").mkdir(parents=True)
    (results / "reference" / "papers.yaml").write_text(yaml.safe_dump([entry("KPCA", 0.90), entry("OCSVM", 0.80)]))
    (results / "tiny").mkdir()
    (results / "tiny" / "summary.csv").write_text("method,trials,auroc_mean,auroc_std\nKPCA,10,0.91,0.01\n")
    (results / "tiny" / "roc.png").write_bytes(b"png")
    (results / "das_report.md").write_text("analysis")

    report = write_overview(results, tmp_path / "configs").read_text()

    assert "## Someone et al." in report
    assert "1 of 1 compared numbers within tolerance; 1 not run here." in report
    assert "| `tiny` | KPCA | auroc_mean | 0.900 | 0.910 | +0.010 | 0.020 | yes |" in report
    assert "| `tiny` | OCSVM | auroc_mean | 0.800 | not run |" in report
    assert "![tiny: roc](tiny/roc.png)" in report
    assert "[das_report.md](das_report.md)" in report
