"""One task of a run: build, fit and evaluate its cell (or its fit group's cells) and return their records.

Whatever a cell raises becomes its ``failed`` record; its warnings are counted in it, and a fit that
stopped on its iteration limit or met an overflow is flagged (``not_converged``, ``degenerate``). It runs
in a worker process, joblib's or a Dask cluster's, as well as in the caller's.
"""

from __future__ import annotations

import json
import time
import warnings
from collections import Counter

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from kpca_bench.protocols import PROTOCOLS, Method, MethodConfig
from kpca_bench.protocols.base import FitShare, iteration_limit, with_flags
from kpca_bench.experiment.config import Config
from kpca_bench.experiment.execution import cell_device_fields, on_execution_device
from kpca_bench.experiment.memory import peak_memory
from kpca_bench.experiment.planning import Cell
from kpca_bench.experiment.store import failed_record


def build_method(entry: MethodConfig, setting: dict, random_state: int, fit_share: FitShare | None = None) -> Method:
    """The method a protocol evaluates: the entry's estimator built for one setting, with its label and score
    (and the fit it shares with its fit group, if any)."""
    spec = entry.spec()
    return Method(
        label=entry.label,
        name=entry.name,
        subspace=spec.subspace,
        score=entry.score,
        estimator=spec.build(setting, random_state=random_state),
        fit_share=fit_share,
    )


def cell_fields(cell: Cell, config: Config) -> dict:
    """The fields of a cell's record that name it: what ran, on which trial, with which seeds."""
    entry = config.methods[cell.method_index]
    return {
        "key": cell.key,
        "experiment": config.name,
        "trial": cell.trial,
        "split_seed": cell.split_seed,
        "method": entry.setting_label(cell.setting),
        "method_name": entry.name,
        "entry": entry.label,
        "params": as_stored(cell.setting),
        "score": entry.score,
        "random_state": cell.random_state,
        **entry.spec().provenance(),
    }


def as_stored(value):
    """``value`` as JSON keeps it: objects (an estimator given as a parameter) by their ``str()``, as in cell keys."""
    return json.loads(json.dumps(value, default=str))


def run_task(cells: tuple[Cell, ...], config: Config, split, blas_threads: int = 1) -> list[dict]:
    """The records of one task: one cell, or the cells of a fit group in config order, the first to fit
    sharing its fit with the others (:class:`~kpca_bench.protocols.base.FitShare`). Each of those says so
    in ``fit_shared_with`` (the key of the cell that fitted); its ``fit_time`` is that of the one fit (the
    model's cost, as the fitting cell's record gives it), its ``wall_time`` only what it took itself."""
    share = FitShare() if len(cells) > 1 else None
    records, fitter = [], None
    for cell in cells:
        record = run_cell(cell, config, split, blas_threads, share)
        if fitter is not None:
            record["fit_shared_with"] = fitter["key"]
            if "fit_time" in record:  # a fitting cell that failed after its fit has no fit_time of its own
                assert share is not None, "only a shared fit has a fitter"
                record["fit_time"] = fitter.get("fit_time", share.fit_seconds)
        elif share is not None and share.done:
            fitter = record
        records.append(record)
    return records


def run_cell(cell: Cell, config: Config, split, blas_threads: int = 1, fit_share: FitShare | None = None) -> dict:
    """Build, fit and evaluate one cell; whatever it raises comes back as a ``failed`` record.

    ``blas_threads`` caps the BLAS / OpenMP threads of this cell so that
    parallel cells share the cores instead of fighting over them. The config's
    ``execution.max_memory_mb`` becomes scikit-learn's ``working_memory`` for the
    cell, here rather than in the caller so that it holds on a Dask worker too.
    The record carries that budget and the peak memory of the process running
    the cell (:mod:`kpca_bench.experiment.memory`).
    """
    entry = config.methods[cell.method_index]
    start = time.perf_counter()
    budget = {} if config.execution.max_memory_mb is None else {"working_memory": config.execution.max_memory_mb}
    with (
        threadpool_limits(limits=blas_threads),
        sklearn.config_context(**budget),
        peak_memory() as peak,
        on_execution_device(config.execution),
        warnings.catch_warnings(record=True) as caught,
    ):
        # Every warning of the cell is counted in its record rather than printed among the progress lines
        # (kpca_bench.experiment.runner.warning_summary reports them once, at the end of the run).
        warnings.simplefilter("always")
        max_memory_mb = sklearn.get_config()["working_memory"]
        device = {"device": "cpu"}
        try:
            method = build_method(entry, cell.setting, cell.random_state, fit_share)
            device = cell_device_fields(method.estimator, config.execution.device)
            result = PROTOCOLS[config.protocol].evaluate(method, split, config.options)
        except Exception as error:  # noqa: BLE001 - any failure of a cell is recorded, as benchopt's FailedRun
            result = failed_record(cell.key, error)
    wall_time = time.perf_counter() - start  # before cell_fields, whose provenance look-ups are not the cell's work
    return {
        **cell_fields(cell, config),
        "wall_time": wall_time,
        "max_memory_mb": max_memory_mb,
        "peak_memory_mb": peak.mib,
        **device,
        **warning_fields(caught),
        **flag_iteration_limit(flag_overflow(result, split, caught), caught),
    }


def flag_iteration_limit(result: dict, caught: list) -> dict:
    """A finished ``result`` flagged ``not_converged`` if a ``ConvergenceWarning`` of the cell says its fit stopped
    on an iteration limit (:func:`~kpca_bench.protocols.base.iteration_limit`)."""
    if result.get("status") != "ok":
        return result
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    return with_flags(result, iteration_limit(messages, result.get("n_iter")))


def flag_overflow(result: dict, split, caught: list) -> dict:
    """``result`` with any overflow added to its ``degenerate`` flag: in the split's features, or numpy's
    RuntimeWarning of one during the cell (the one sign common to every detector's computation)."""
    overflow = input_overflow(split) or next(
        (
            " ".join(str(w.message).split())
            for w in caught
            if issubclass(w.category, RuntimeWarning) and str(w.message).startswith("overflow")
        ),
        None,
    )
    return with_flags(result, {"degenerate": overflow} if overflow else {})


def input_overflow(split) -> str | None:
    """Why squared distances between the rows of the split's features (``X_train``, ``X_test``) can overflow
    float64, or None: a feature as large as sqrt(max / (4 n_features)) makes them (LOF's, KPCA's) infinite."""
    arrays = [
        X
        for X in (getattr(split, "X_train", None), getattr(split, "X_test", None))
        if isinstance(X, np.ndarray) and X.ndim == 2 and X.size and np.issubdtype(X.dtype, np.floating)
    ]
    if not arrays:
        return None
    largest = max(max(float(np.max(X)), -float(np.min(X))) for X in arrays)  # no copy of X as np.abs makes
    if largest <= np.sqrt(np.finfo(np.float64).max / (4 * arrays[0].shape[1])):
        return None
    return f"overflow: features as large as {largest:.3g} make squared distances overflow"


def warning_fields(caught: list) -> dict:
    """``warnings``: count per warning category, ``warning_messages``: the first message of each (none: no fields)."""
    if not caught:
        return {}
    counts = Counter(w.category.__name__ for w in caught)
    first: dict[str, str] = {}
    for w in caught:
        first.setdefault(w.category.__name__, " ".join(str(w.message).split())[:200])
    return {"warnings": dict(counts), "warning_messages": first}
