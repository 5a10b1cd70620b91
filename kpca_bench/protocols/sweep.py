"""The novelty sweep protocol (Li et al., section IV.B): AUROC for every model parameter of a cell at once.

Splits exactly as the novelty protocol. A cell is (split, method entry, kernel
parameter); the kernel parameter is the entry's ``grid`` (e.g. ``sigma`` or the
Hamming ``gamma``). The *model* parameter is swept inside the cell:

* kernel PCA (reconstruction error, eqs. 9-11, or Mahalanobis distance, eq. 13):
  one eigendecomposition with every component, then cumulative sums over the
  components give the score for each subspace dimension ``p = 1 .. P``. ``P`` is
  the number of components with a numerically positive eigenvalue (at most
  ``N_train - 1``, the rank of the centered kernel); a larger ``p`` adds no
  direction, so it is not a distinct model and is not reported.
* the one-class SVM (``ocsvm_kernel``): kernels built once, one fit per ``nu`` of the protocol option ``nu``
  (default 0.01 .. 0.99 step 0.01, the grid of Li et al.).

Options (``protocol: {name: novelty_sweep, nu: ..., p_range: all, ...}``), each
default today's behaviour; the others are readings of the paper that its text
leaves open, run as variants (``reproductions/<paper>/configs/variants/``):

* ``nu``: a list or ``{start, stop, step}``.
* ``p_range``: ``rank`` (default, our choice) stops ``p`` at the numerical rank of
  the centered kernel; ``all`` takes every component with a positive computed
  eigenvalue, i.e. ``p = 1 .. N_tr`` as section IV.B writes it, read literally.
* ``re_norm``: ``centred`` (default, eq. 10) uses ``||phi~(x)||^2`` in the
  reconstruction error; ``uncentred`` uses ``k(x, x)``, eq. 10 with its centring
  terms dropped (a diagnostic: a reading that fits some of the paper's numbers,
  not one its text gives).
* ``ocsvm_auroc``: ``scores`` (default) ranks test points by the one-class SVM's
  decision value; ``predictions`` by its hard +1 / -1 prediction (a diagnostic
  likewise: AUROC from a two-level score, as a ROC of ``predict`` would give).
* ``statistics``: which AUROCs the tables' minimum and percentiles (and best) are
  taken over. ``settings`` (default) follows section IV.B.2's text: the AUROCs of
  all combinations of kernel and model parameter form one distribution.
  ``kernel_max`` takes per kernel parameter the best AUROC over the model
  parameter, the values Figs. 4-11 plot and box-plot ("Figure 4b is the Box plot
  of the AUCs in Figure 4a"): a reading in which the tables summarise the
  figures. The best is the same under both; cells compute the same either way,
  only the report's statistics (:mod:`kpca_bench.report.sweep`) differ, so the
  option is report-only (:data:`REPORT_ONLY`): it does not enter the cell keys.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata
from sklearn import config_context
from sklearn.base import clone
from sklearn.metrics import average_precision_score

from kpca_bench.devices import to_numpy
from kpca_bench.methods.baselines import KernelOneClassSVM
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.protocols.base import (
    DEFAULT_SCORE,
    NON_FINITE_SCORES,
    Method,
    MethodConfig,
    ThresholdConfig,
    constant_scores,
)
from kpca_bench.protocols.novelty import Novelty, Split, fitted_attributes, split_sizes
from kpca_bench.validation import Problems, declared, is_number

DEFAULT_NU = tuple(round(0.01 * i, 2) for i in range(1, 100))
# Stored AUROCs are rounded: a test set of a few hundred points resolves AUROC to about 1e-5.
AUROC_DECIMALS = 6
RECORDS = ("auroc", "auprc", "best_model_param", "n_model_params", "auroc_by_model_param", "model_param")


P_RANGES = ("rank", "all")
RE_NORMS = ("centred", "uncentred")
OCSVM_AUROCS = ("scores", "predictions")
STATISTICS_OVER = ("settings", "kernel_max")
CHOICES = {"p_range": P_RANGES, "re_norm": RE_NORMS, "ocsvm_auroc": OCSVM_AUROCS, "statistics": STATISTICS_OVER}
# Options read by the report only: a variant that sets them reuses its headline's cells.
REPORT_ONLY = ("statistics",)


@dataclass(frozen=True)
class Options:
    """``nu``: the one-class SVM's values swept inside a cell; the readings of the module docstring."""

    nu: tuple[float, ...] = declared(DEFAULT_NU, doc="the one-class SVM's nu values swept inside a cell")
    p_range: str = declared(
        "rank",
        choices=P_RANGES,
        doc="the subspace dimensions p: up to the kernel's numerical rank, or every positive eigenvalue",
    )
    re_norm: str = declared("centred", choices=RE_NORMS, doc="the norm in the reconstruction error (eq. 10)")
    ocsvm_auroc: str = declared(
        "scores", choices=OCSVM_AUROCS, doc="rank test points by the one-class SVM's decision values or predictions"
    )
    statistics: str = declared(
        "settings",
        choices=STATISTICS_OVER,
        doc="the AUROCs the tables summarise: of every setting, or each kernel parameter's best (report only)",
    )


def parse_options(raw: dict, threshold: ThresholdConfig, problems: Problems) -> Options:
    choices = {}
    for key, accepted in CHOICES.items():
        value = raw.get(key, accepted[0])
        if value not in accepted:
            problems.add(key, f"must be one of {', '.join(accepted)}, got {value!r}")
            value = accepted[0]
        choices[key] = value
    nus = raw.get("nu", DEFAULT_NU)
    if not isinstance(nus, (list, tuple)) or not nus or not all(is_number(v) and 0 < v <= 1 for v in nus):
        problems.add("nu", f"must be a list of numbers in (0, 1] or a range {{start, stop, step}}, got {nus!r}")
        return Options(**choices)
    return Options(nu=tuple(nus), **choices)


def reconstruction_errors_by_p(scores: np.ndarray, sq_norms: np.ndarray, variances: np.ndarray) -> np.ndarray:
    """Eqs. 9-11 for every ``p`` at once: column ``p - 1`` is ``||phi~||^2 - sum_{j <= p} y_j^2``."""
    return sq_norms[:, np.newaxis] - np.cumsum(scores**2, axis=1)


def mahalanobis_by_p(scores: np.ndarray, sq_norms: np.ndarray, variances: np.ndarray) -> np.ndarray:
    """Eq. 13 for every ``p`` at once: column ``p - 1`` is ``sum_{j <= p} y_j^2 / var_j`` (``var_j = gamma_j / N``)."""
    return np.cumsum(scores**2 / variances, axis=1)


SCORES_BY_P = {"reconstruction_error": reconstruction_errors_by_p, "mahalanobis": mahalanobis_by_p}


def auroc_columns(is_outlier: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """AUROC of every column of outlier scores (higher = more abnormal), ties counted half.

    The Mann-Whitney form ``(sum of the outliers' ranks - n1 (n1 + 1) / 2) / (n1 n0)``
    with average ranks equals ``sklearn.metrics.roc_auc_score`` column by column.
    """
    n_out = int(is_outlier.sum())
    n_in = len(is_outlier) - n_out
    ranks = rankdata(scores, axis=0)
    return (ranks[is_outlier].sum(axis=0) - n_out * (n_out + 1) / 2) / (n_out * n_in)


def check_methods(options: Options, methods: tuple[MethodConfig, ...], problems: Problems) -> None:
    """Every entry has a model parameter this protocol sweeps, and sets no value for it."""
    for index, method in enumerate(methods):
        spec = method.spec()
        swept = "n_components" if spec.subspace else "nu"
        if spec.subspace and not issubclass(spec.estimator, KernelPCA):
            problems.add(
                f"methods[{index}].name",
                f"{method.name} has no nested components; the sweep over p needs exact kernel PCA (kpca)",
            )
        elif spec.subspace and method.score not in (None, *SCORES_BY_P):
            problems.add(
                f"methods[{index}].score",
                f"{method.score!r} cannot be swept over p; accepted: {', '.join(SCORES_BY_P)}",
            )
        elif not spec.subspace and not issubclass(spec.estimator, KernelOneClassSVM):
            problems.add(
                f"methods[{index}].name",
                f"the sweep knows the model parameter of kpca (n_components) and of "
                f"ocsvm_kernel (nu), not of {method.name}",
            )
        if swept in method.params or swept in method.grid:
            problems.add(
                f"methods[{index}]", f"{swept} is swept by the protocol novelty_sweep; remove it from params/grid"
            )


def _component_sweep(method: Method, split: Split, options: Options) -> tuple[dict, np.ndarray]:
    """Fit kernel PCA once with every component; outlier scores of the test points for ``p = 1 .. P``."""
    start = time.perf_counter()
    model = clone(method.estimator).set_params(n_components=split.X_train.shape[0] - 1)
    if options.p_range == "all":
        model.set_params(rank_cutoff="positive")
    with warnings.catch_warnings():
        # Components with a zero eigenvalue are expected here (rank < N - 1, e.g. duplicated
        # categorical rows); they are dropped below, which the record states as n_model_params.
        warnings.filterwarnings("ignore", message=".*have a zero eigenvalue.*")
        model.fit(split.X_train)
    fitted = time.perf_counter()
    # A model fitted on a device keeps its arrays there: the sweep's scores are computed on the host.
    variances = to_numpy(model.projection_variances_)
    rank = int(np.count_nonzero(variances > 0))
    projection = model.project(split.X_test)
    sq_norms = model.kernel_.diag(split.X_test) if options.re_norm == "uncentred" else projection.sq_norms
    by_p = SCORES_BY_P[method.score or DEFAULT_SCORE](
        to_numpy(projection.scores)[:, :rank], to_numpy(sq_norms), variances[:rank]
    )
    info = {
        "fit_time": fitted - start,
        "score_time": time.perf_counter() - fitted,
        "model_param": "n_components",
        **fitted_attributes(model),
    }
    return info, by_p


def _nu_sweep(
    method: Method, split: Split, nus: tuple[float, ...], auroc_from: str = "scores"
) -> tuple[dict, np.ndarray]:
    """One fit per ``nu`` on kernels built once; outlier scores, one column per ``nu``.

    ``auroc_from="scores"``: minus ``score_samples``; ``"predictions"``: 1 where the
    SVM predicts an outlier (decision value at or below 0, as libsvm's ``predict``), else 0.
    """
    start = time.perf_counter()
    model = clone(method.estimator).fit(split.X_train)
    K_train, K_test = model.kernel_(split.X_train), model.kernel_(split.X_test, split.X_train)
    fit_time = time.perf_counter() - start
    score_time = 0.0
    columns = []
    svm = clone(model.svm_)
    # The kernels were built from checked data and nu from the validated option: re-checking them on every
    # fit is most of the time of a fit at these sizes.
    with config_context(assume_finite=True, skip_parameter_validation=True):
        for nu in nus:
            start = time.perf_counter()
            svm.set_params(nu=nu).fit(K_train)
            fitted = time.perf_counter()
            # score_samples = sum_i dual_coef_i k(x, sv_i); computed from the public fitted attributes
            # because the estimator's own method re-validates K_test on each of the ~100 calls.
            similarity = K_test[:, svm.support_] @ svm.dual_coef_[0]
            columns.append(
                (similarity + svm.intercept_[0] <= 0).astype(float) if auroc_from == "predictions" else -similarity
            )
            fit_time += fitted - start
            score_time += time.perf_counter() - fitted
    info = {"fit_time": fit_time, "score_time": score_time, "model_param": "nu", **fitted_attributes(model)}
    return info, np.column_stack(columns)


def evaluate_sweep(method: Method, split: Split, options: Options) -> dict:
    """AUROC on the test mix for every model parameter of one (split, method, kernel parameter) cell.

    The record's ``auroc`` is the best over the model parameter (what Li et al.'s
    Figs. 4-11 plot against the kernel parameter) and ``auprc`` the average precision
    at that model parameter; ``auroc_by_model_param`` holds every AUROC, in the order
    of ``p = 1 .. n_model_params`` or of the ``nu`` option.
    """
    if method.subspace:
        info, scores = _component_sweep(method, split, options)
    else:
        info, scores = _nu_sweep(method, split, options.nu, options.ocsvm_auroc)
    info.update(split_sizes(split))
    if not np.all(np.isfinite(scores)):
        return {**info, **NON_FINITE_SCORES}
    auroc = auroc_columns(split.is_outlier, scores)
    best = int(np.argmax(auroc))
    return {
        **info,
        "auroc": float(auroc[best]),
        "auprc": float(average_precision_score(split.is_outlier, scores[:, best])),
        "best_model_param": best + 1 if info["model_param"] == "n_components" else options.nu[best],
        "n_model_params": len(auroc),
        "auroc_by_model_param": np.round(auroc, AUROC_DECIMALS).tolist(),
        "status": "ok",
        **constant_scores(scores),
    }


class NoveltySweep(Novelty):
    name = "novelty_sweep"
    description = "novelty splits; AUROC for every model parameter (p or nu) of each kernel parameter"
    options = Options
    records = RECORDS
    report_only_options = REPORT_ONLY
    parse_options = staticmethod(parse_options)
    check_methods = staticmethod(check_methods)
    evaluate = staticmethod(evaluate_sweep)
