"""Das, Golatkar & Awate (2018), section V: the report pieces the generic report has no place for.

* :func:`threshold_rule_f1` -- F1 of one fit per trial and method under every
  threshold rule, the evidence for the rule the configs use (the paper does not
  state its rule);
* :func:`das_box_plot` -- the F1 box plot as the paper draws it: SKPCA, KPCA and
  naive thresholding, with Wang & Tanaka's method set apart and marked, since
  the paper leaves its spread out ("very sensitive to the chosen data subset");
* :func:`write_table1` -- Table I (MNIST: per-trial F1 and sparsity of SKPCA and
  Wang & Tanaka at fixed parameters) beside the paper's, from ``trials.csv``;
* :func:`write_das_report` -- ``results/das_report.md``: AUROC and sparsity,
  paper beside ours, from each run's ``summary.csv`` and
  ``results/reference/papers.yaml``. Only the block between the markers is
  rewritten; the prose around it (findings, causes of deviations) is kept.

Everything reads finished runs; nothing here re-runs a method, except
:func:`threshold_rule_f1`, which is an experiment of its own.

    python -m kpca_bench.papers.das.report [--results results] [--evidence mnist satimage2 ...]
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from kpca_bench.run.config import THRESHOLD_RULES, Config, ThresholdConfig, load_config
from kpca_bench.methods.registry import METHODS
from kpca_bench.metrics import choose_threshold, detection_metrics
from kpca_bench.protocols import PROTOCOLS
from kpca_bench.report.plots import save_figure, plt
from kpca_bench.report.reference import load_references, reference_values
from kpca_bench.run.store import write_atomic
from kpca_bench.run.runner import load_checked_dataset, plan_cells

PAPER = "Das et al."
CONFIGS = {"mnist": "MNIST", "fashion_mnist": "Fashion-MNIST", "satimage2": "Satimage-2", "eth80": "ETH-80",
           "internet_ads": "Internet Ads"}
METHOD_LABELS = ("SKPCA", "KPCA", "Wang-Tanaka", "Naive thresholding")
MARKED = "Wang-Tanaka"
# The paper's trial-to-trial std of SKPCA sparsity (%); papers.yaml holds the means ("check" compares means only).
PAPER_SPARSITY_STD = {"MNIST": 0.13, "Fashion-MNIST": 0.24, "Satimage-2": 0.33, "ETH-80": 0.70, "Internet Ads": 0.29}
START, END = "<!-- das-report:generated:start -->", "<!-- das-report:generated:end -->"

# Table I of the paper: per trial, SKPCA F1 / sparsity (%), Wang & Tanaka F1 / sparsity (%).
TABLE1 = [(0.961, 3.5, 0.928, 3.75), (0.946, 3.25, 0.912, 92.0), (0.942, 3.25, 0.874, 10.5),
          (0.955, 3.25, 0.621, 100.0), (0.907, 3.5, 0.889, 10.5), (0.942, 3.5, 0.936, 80.5),
          (0.916, 3.5, 0.687, 88.25), (0.928, 3.5, 0.936, 100.0), (0.961, 3.25, 0.874, 11.25),
          (0.948, 3.5, 0.846, 10.75)]


def threshold_rule_f1(config: Config, labels=("SKPCA", "KPCA"), trials: int = 3,
                      rules=("train_quantile", "test_prior", "test_oracle"), offline: bool = True) -> pd.DataFrame:
    """F1 of each method entry in ``labels`` under each threshold rule, one fit per trial.

    Uses the config's own splits and seeds (the runner's), so trial ``t`` here
    is trial ``t`` of the run. Returns one row per (method, trial, rule) with
    the F1 and the AUROC (which no rule changes).
    """
    dataset = load_checked_dataset(config, offline)
    protocol = PROTOCOLS[config.protocol]
    rows = []
    for cell in plan_cells(config.with_overrides(trials=trials)):
        method = config.methods[cell.method_index]
        if method.label not in labels or len(method.settings()) != 1:
            continue
        split = protocol.split(dataset, config, cell.split_seed)
        detector = METHODS[method.name].build(cell.setting, score=method.score, random_state=cell.random_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence notes of capped solvers; the run records them
            detector.fit(split.X_train)
        train, test = -detector.score_samples(split.X_train), -detector.score_samples(split.X_test)
        for rule in rules:
            cut = choose_threshold(ThresholdConfig(rule=rule, quantile=config.threshold.quantile), train, test,
                                   split.is_outlier)
            metrics = detection_metrics(split.is_outlier, test, cut)
            rows.append({"experiment": config.name, "method": method.label, "trial": cell.trial, "rule": rule,
                         "f1": metrics["f1"], "auroc": metrics["auroc"]})
    return pd.DataFrame(rows)


def das_box_plot(trials: pd.DataFrame, *, title: str, threshold: str, path) -> None:
    """F1 over trials: SKPCA, KPCA, naive thresholding; Wang & Tanaka hatched and marked apart."""
    methods = [m for m in ("SKPCA", "KPCA", "Naive thresholding", MARKED) if (trials["method"] == m).any()]
    data = [trials.loc[trials["method"] == m, "f1"].dropna().to_numpy() for m in methods]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    boxes = ax.boxplot(data, tick_labels=[m if m != MARKED else f"{m}*" for m in methods], patch_artist=True)
    for method, box in zip(methods, boxes["boxes"]):
        box.set(facecolor="white" if method != MARKED else "0.9", hatch="" if method != MARKED else "//")
    rng = np.random.default_rng(0)
    for position, values in enumerate(data, start=1):
        ax.plot(position + rng.uniform(-0.08, 0.08, len(values)), values, "o", ms=3, alpha=0.6, color="tab:blue")
    if MARKED in methods:
        ax.axvline(len(methods) - 0.5, color="grey", linestyle=":")
        ax.set_xlabel("* not in the paper's box plot: its parameters \"are very sensitive to the chosen data "
                      "subset\" (section V)", fontsize=8)
    ax.set_ylabel("F1 (outliers positive)")
    ax.set_title(f"{title}: F1 over {max(len(d) for d in data)} trials\nthreshold: {threshold}", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


def write_table1(directory) -> Path:
    """``table1.md`` in an MNIST run's folder: per-trial F1 and sparsity of SKPCA and Wang-Tanaka, paper beside."""
    directory = Path(directory)
    trials = pd.read_csv(directory / "trials.csv")
    ours = {m: trials[(trials["method"] == m) & (trials["status"] == "ok")].set_index("trial")
            for m in ("SKPCA", "Wang-Tanaka")}
    lines = ["# Table I: MNIST, fixed parameters, paper vs ours", "",
             "SKPCA: L1-ratio 0.7; Wang & Tanaka: rho 0.02, lambda 0.001, lambda_1k 0.01, eps_abs 0.01, "
             "eps_rel 1e-4. Sparsity = % non-zero dual coefficients per component. Our trial t is the "
             "run's split t (the paper's splits are unknown, so rows pair trials by number only). "
             f"F1 threshold: {trials['threshold_rule'].iloc[0]}.", "",
             "| trial | SKPCA F1 paper | ours | SKPCA sparsity % paper | ours | Wang F1 paper | ours | "
             "Wang sparsity % paper | ours |", "|" + "---|" * 9]

    def cell(method, trial, column, digits):
        frame = ours[method]
        return f"{frame.loc[trial, column]:.{digits}f}" if trial in frame.index else "–"

    for trial, (f1_s, sp_s, f1_w, sp_w) in enumerate(TABLE1):
        lines.append(f"| {trial + 1} | {f1_s:.3f} | {cell('SKPCA', trial, 'f1', 3)} | {sp_s:.2f} | "
                     f"{cell('SKPCA', trial, 'sparsity', 2)} | {f1_w:.3f} | {cell('Wang-Tanaka', trial, 'f1', 3)} | "
                     f"{sp_w:.2f} | {cell('Wang-Tanaka', trial, 'sparsity', 2)} |")
    paper = np.array(TABLE1)
    stats = [f"{paper[:, i].mean():.3f} ± {paper[:, i].std(ddof=1):.3f}" for i in range(4)]
    mine = [f"{ours[m][c].mean():.3f} ± {ours[m][c].std(ddof=1):.3f}" if len(ours[m]) else "–"
            for m, c in (("SKPCA", "f1"), ("SKPCA", "sparsity"), ("Wang-Tanaka", "f1"), ("Wang-Tanaka", "sparsity"))]
    lines.append(f"| mean ± std | {stats[0]} | {mine[0]} | {stats[1]} | {mine[1]} | {stats[2]} | {mine[2]} | "
                 f"{stats[3]} | {mine[3]} |")
    path = directory / "table1.md"
    write_atomic(path, "\n".join(lines) + "\n")
    return path


def _summary(results: Path, name: str) -> pd.DataFrame | None:
    path = results / name / "summary.csv"
    return pd.read_csv(path).set_index("method") if path.exists() else None


def _fmt(value, digits=3) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:.{digits}f}"


def report_tables(results) -> str:
    """AUROC and SKPCA-sparsity tables, paper beside ours, for every Das config (Markdown)."""
    results = Path(results)
    entries = load_references(results)
    auroc = ["| dataset | " + " | ".join(f"{m} paper | ours" for m in METHOD_LABELS) + " | ours: order |",
             "|" + "---|" * (2 * len(METHOD_LABELS) + 2)]
    sparsity = ["| dataset | trials | SKPCA sparsity % paper | ours (mean ± std) | naive ours | Wang-Tanaka ours | "
                "SKPCA F1 ours | KPCA F1 ours |", "|" + "---|" * 8]
    for name, dataset in CONFIGS.items():
        refs = reference_values(entries, paper=PAPER, dataset=dataset)
        summary = _summary(results, name)

        def ours(method, column):
            return summary.loc[method, column] if summary is not None and method in summary.index else None

        cells = []
        for method in METHOD_LABELS:
            ref = refs.get((method, "auroc_mean"))
            cells.append(f"{_fmt(ref['value'] if ref else None)} | {_fmt(ours(method, 'auroc_mean'))}")
        order = "not run" if summary is None else " > ".join(
            sorted(METHOD_LABELS, key=lambda m: -(ours(m, "auroc_mean") or 0.0)))
        auroc.append(f"| {dataset} | " + " | ".join(cells) + f" | {order} |")
        ref = refs.get(("SKPCA", "sparsity_mean"))
        paper = "–" if ref is None else f"{ref['value']:.2f} ± {PAPER_SPARSITY_STD[dataset]:.2f}"
        mine = "not run" if ours("SKPCA", "sparsity_mean") is None else \
            f"{ours('SKPCA', 'sparsity_mean'):.2f} ± {ours('SKPCA', 'sparsity_std'):.2f}"
        trials = ours("SKPCA", "trials")
        sparsity.append(f"| {dataset} | {'–' if trials is None else int(trials)} | {paper} | {mine} | {_fmt(ours('Naive thresholding', 'sparsity_mean'), 2)} | "
                        f"{_fmt(ours(MARKED, 'sparsity_mean'), 2)} | {_fmt(ours('SKPCA', 'f1_mean'))} | "
                        f"{_fmt(ours('KPCA', 'f1_mean'))} |")
    return "\n".join(["## AUROC, mean over trials: paper vs ours", "", *auroc, "",
                      "## Sparsity (% non-zero dual coefficients per component), mean ± std over trials", "",
                      *sparsity, ""])


def threshold_table(results) -> str:
    """Mean F1 per rule from every ``<run>/threshold_rules.csv`` (see :func:`threshold_rule_f1`)."""
    frames = [pd.read_csv(p) for p in sorted(Path(results).glob("*/threshold_rules.csv")) if p.parent.name in CONFIGS]
    if not frames:
        return ""
    table = pd.concat(frames).pivot_table(index=["experiment", "method"], columns="rule", values="f1",
                                          aggfunc=["mean", "count"])
    rules = [r for r in THRESHOLD_RULES if ("mean", r) in table.columns]
    lines = ["## F1 under each threshold rule (same fits, mean over the first trials)", "",
             "| experiment | method | trials | " + " | ".join(rules) + " |", "|" + "---|" * (3 + len(rules))]
    for (experiment, method), row in table.iterrows():
        lines.append(f"| {experiment} | {method} | {int(row[('count', rules[0])])} | "
                     + " | ".join(f"{row[('mean', r)]:.3f}" for r in rules) + " |")
    return "\n".join(lines) + "\n"


def write_das_report(results, path=None) -> Path:
    """Rewrite the generated block of ``results/das_report.md``, keeping the prose outside it."""
    results = Path(results)
    path = Path(path) if path else results / "das_report.md"
    block = f"{START}\n{report_tables(results)}\n{threshold_table(results)}{END}"
    text = path.read_text() if path.exists() else f"# Das, Golatkar & Awate (2018): reproduction report\n\n{START}\n{END}\n"
    text = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    write_atomic(path, text)
    return path


def finish_run(results, name: str) -> None:
    """Das figures and tables of one finished run: the marked box plot, and Table I for MNIST."""
    directory = Path(results) / name
    config = load_config(Path("configs") / f"{name}.yaml")
    trials = pd.read_csv(directory / "trials.csv")
    das_box_plot(trials[trials["status"] == "ok"], title=f"{config.name}: {config.dataset.name}",
                 threshold=config.threshold.describe(), path=directory / "f1_box_das.png")
    if name == "mnist":
        write_table1(directory)


def analyse(results_root: Path, config_dir: Path) -> list[Path]:
    """The marked box plots, Table I and ``das_report.md`` from the finished Das runs."""
    results = Path(results_root)
    for name in CONFIGS:
        if (results / name / "trials.csv").exists():
            finish_run(results, name)
    return [write_das_report(results)]
