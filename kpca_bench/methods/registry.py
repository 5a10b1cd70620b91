"""The one list of methods a config can name.

Adding a method is one module in ``kpca_bench/methods/`` plus one entry here.
A *subspace* method is a kernel-PCA variant (it exposes ``dual_coef_`` and
``project``); a protocol that detects outliers scores it in its subspace with a
:class:`~kpca_bench.methods.detector.KernelSubspaceDetector`. Any other method is
already an outlier detector with scikit-learn's ``score_samples`` (higher = more
normal).

A config may also name any importable detector class, ``"package.module:Class"``
(:func:`method_spec`): its spec is built from the import path, so the runner and
the protocols treat it as any other method that is not a kernel-PCA variant.
"""

from __future__ import annotations

import difflib
import inspect
import re
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Protocol, cast

from sklearn.ensemble import IsolationForest
from sklearn.neighbors import LocalOutlierFactor
from sklearn.svm import OneClassSVM

from kpca_bench.param_validation import InvalidParameterError, validate_parameter_constraints
from kpca_bench.errors import ConfigError
from kpca_bench.methods.baselines import KernelOneClassSVM, KNNDetector, PCADetector
from kpca_bench.methods.interop import HIGHER_IS, SignedDetector, import_class, known_sign, package_version
from kpca_bench.methods.kpca import KernelPCA
from kpca_bench.methods.l1_kpca import L1KernelPCA
from kpca_bench.methods.nystrom import NystromKernelPCA
from kpca_bench.methods.sparse_admm import L1SparseKernelPCA
from kpca_bench.methods.sparse_admm_l21 import L21SparseKernelPCA
from kpca_bench.methods.sparse_enet import NaiveThresholdKPCA, SparseKernelPCA


class _ParamNamed(Protocol):
    """A scikit-learn estimator class, which names its constructor's parameters."""

    def _get_param_names(self) -> list[str]: ...


@dataclass(frozen=True)
class MethodSpec:
    """A method a config can name.

    Attributes
    ----------
    name : registry key used in configs and result tables.
    estimator : the estimator class.
    subspace : whether it is a kernel-PCA variant scored in its subspace.
    summary : one line for ``--help`` and docs.
    reference : the paper (and equation) it implements.
    sparsity_param : the parameter that controls sparsity, if any.
    defaults : keyword arguments applied before the config's ``params``.
    kernel_method : it builds a kernel over its training rows (memory and time grow with their
        square or more), so the runner schedules its cells before the cheap ones.
    class_path : ``"package.module:Class"`` for a detector named by import path, else None.
    higher_is : what that class's scores mean, ``normal`` (scikit-learn) or ``outlier`` (PyOD).
    seed_only_starts_solver_when : the parameter values (each name to the values allowed; the class's
        defaults and ``defaults`` applied first) with which its fit uses ``random_state`` only for the start
        vector of an eigensolver that converges to machine precision from any start (:data:`EXACT_SOLVERS`):
        fits with two seeds then differ only in the eigenvectors' last bits, which a well-conditioned fit
        keeps there and an ill-conditioned one can amplify (SKPCA's elastic net, docs/design.md). None: the
        seed changes the model (random landmarks or restarts). The runner lets the cells of such a setting
        that differ only in their score share one fit: one model, scored two ways.
    """

    name: str
    estimator: type
    subspace: bool
    summary: str
    reference: str
    sparsity_param: str | None = None
    defaults: dict = field(default_factory=dict)
    kernel_method: bool = False
    class_path: str | None = None
    higher_is: str = "normal"
    seed_only_starts_solver_when: dict | None = None

    def param_names(self) -> list[str]:
        if self.class_path is None:
            # A registered method (class_path None) is a scikit-learn estimator class.
            return sorted(cast(_ParamNamed, self.estimator)._get_param_names())
        # Any class: its constructor's named arguments (PyOD's _get_param_names is not a classmethod).
        return sorted(
            name
            for name, p in inspect.signature(self.estimator).parameters.items()
            if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        )

    def build(self, params: dict, *, random_state: int | None = None):
        """The unfitted estimator of one parameter setting (``random_state`` where it takes one).

        A class named by import path whose scores are not scikit-learn's ``score_samples``
        (higher = more normal) comes wrapped in :class:`~kpca_bench.methods.interop.SignedDetector`.
        """
        kwargs = {**self.defaults, **params}
        if "random_state" in self.param_names():
            kwargs["random_state"] = random_state
        estimator = self.estimator(**kwargs)
        if self.class_path is not None and (self.higher_is != "normal" or not hasattr(estimator, "score_samples")):
            return SignedDetector(estimator, higher_is=self.higher_is)
        return estimator

    def seed_only_starts_solver(self, params: dict) -> bool:
        """Whether the fit of the setting ``params`` uses its seed only to start an eigensolver that converges to
        machine precision (:attr:`seed_only_starts_solver_when`)."""
        if self.seed_only_starts_solver_when is None:
            return False
        defaults = {name: p.default for name, p in inspect.signature(self.estimator).parameters.items()}
        values = {**defaults, **self.defaults, **params}
        return all(values.get(name) in allowed for name, allowed in self.seed_only_starts_solver_when.items())

    def provenance(self) -> dict:
        """What a record says of a class named by import path: the path and its package's version."""
        if self.class_path is None:
            return {}
        return {"method_class": self.class_path, "method_package": package_version(self.estimator)}

    def parameter_problems(self, params: dict) -> list[tuple[str, str]]:
        """``(name, message)`` for every value in a setting that the estimator's declaration rejects.

        Checks ``{**defaults, **params}`` against the estimator class's
        ``_parameter_constraints`` one parameter at a time, without building or
        fitting anything. Names the class does not declare are skipped, and so
        are constraints that combine parameters or depend on the data (those
        are checked in fit). A message reads ``must be a float in the range
        (0.0, 1.0], got 1.5``: one line, to follow ``<file>: methods[i].params.nu: ``.
        """
        constraints = getattr(self.estimator, "_parameter_constraints", {})
        problems = []
        for name, value in {**self.defaults, **params}.items():
            if name not in constraints:
                continue
            try:
                validate_parameter_constraints(
                    {name: constraints[name]}, {name: value}, caller_name=self.estimator.__name__
                )
            except InvalidParameterError as error:
                problems.append((name, _requirement(str(error))))
        return problems


# scikit-learn's message: "The 'nu' parameter of OneClassSVM must be <what>. Got <value> instead."
_SKLEARN_MESSAGE = re.compile(r"The '[^']*' parameter of \S+ (?P<must>must be .*)\. Got (?P<got>.*) instead\.", re.S)


def _requirement(message: str) -> str:
    """scikit-learn's parameter error as ``must be <what>, got <value>`` on one line."""
    match = _SKLEARN_MESSAGE.fullmatch(message)
    if match:
        message = f"{match['must']}, got {match['got']}"
    return " ".join(message.split())


# The eigensolvers whose result depends on their start vector only through rounding: LAPACK's eigh uses none,
# ARPACK (scipy's eigsh, tol=0) iterates to machine precision; the block solver stops at a residual of
# 1e-8 lambda_1 ("auto" may pick it), where the eigenvectors still depend on its random start.
EXACT_SOLVERS = ("eigh", "arpack")

METHODS: dict[str, MethodSpec] = {
    spec.name: spec
    for spec in [
        MethodSpec(
            "kpca",
            KernelPCA,
            True,
            "Exact kernel PCA (top eigenpairs of the centered kernel)",
            "Hoffmann 2007; Schölkopf, Smola & Müller 1998",
            # dtype None computes NumPy data, all a run gives, in float64.
            seed_only_starts_solver_when={"eigen_solver": EXACT_SOLVERS, "dtype": ("float64", None)},
        ),
        MethodSpec(
            "skpca_enet",
            SparseKernelPCA,
            True,
            "Sparse kernel PCA by elastic net (alternating LARS-EN / generalized Procrustes)",
            "Das, Golatkar & Awate 2018, sec. III.A eqs. 10-12, Corollary 1",
            sparsity_param="l1_ratio",
            seed_only_starts_solver_when={"eigen_solver": EXACT_SOLVERS},
        ),
        MethodSpec(
            "naive_threshold",
            NaiveThresholdKPCA,
            True,
            "Exact KPCA keeping the n_nonzero largest-magnitude dual coefficients per component",
            "Das, Golatkar & Awate 2018, sec. V (after Zou, Hastie & Tibshirani 2006)",
            sparsity_param="n_nonzero",
            seed_only_starts_solver_when={"eigen_solver": EXACT_SOLVERS},
        ),
        MethodSpec(
            "skpca_l1",
            L1SparseKernelPCA,
            True,
            "Sparse kernel PCA with an l1 penalty by ADMM, one component at a time",
            "Wang & Tanaka 2019, section 3.1, eqs. 12-15, Algorithm 1",
            sparsity_param="lam1",
        ),
        MethodSpec(
            "skpca_l21",
            L21SparseKernelPCA,
            True,
            "Sample-selecting sparse kernel PCA with an l2,1 penalty by ADMM",
            "Wang & Tanaka 2019, section 3.2, eqs. 16-19, Algorithm 2",
            sparsity_param="mu21",
        ),
        MethodSpec(
            "nystrom_kpca",
            NystromKernelPCA,
            True,
            "Low-rank kernel PCA by the Nystrom method with k-means++ landmarks",
            "Shen & Asgharzadeh (SAS), seven computation steps; Zhang, Tsang & Kwok 2008",
        ),
        MethodSpec(
            "l1_kpca",
            L1KernelPCA,
            True,
            "L1-norm kernel PCA (sign fixed-point iteration, deflation, restarts)",
            "Kim & Klabjan 2020; Kwak 2008",
        ),
        MethodSpec(
            "ocsvm",
            OneClassSVM,
            False,
            "One-class SVM (scikit-learn); with an RBF kernel equivalent to SVDD",
            "Schölkopf et al. 2001; Tax & Duin 2004",
            kernel_method=True,
        ),
        MethodSpec(
            "ocsvm_kernel",
            KernelOneClassSVM,
            False,
            "One-class SVM (scikit-learn, precomputed) with any kpca-bench kernel: sigma widths, hamming",
            "Schölkopf et al. 2001; Li et al., section IV.B",
            kernel_method=True,
        ),
        MethodSpec(
            "isolation_forest", IsolationForest, False, "Isolation forest (scikit-learn)", "Liu, Ting & Zhou 2008"
        ),
        MethodSpec(
            "lof",
            LocalOutlierFactor,
            False,
            "Local outlier factor (scikit-learn), novelty mode",
            "Breunig et al. 2000",
            defaults={"novelty": True},
        ),
        MethodSpec(
            "knn",
            KNNDetector,
            False,
            "Distance to the k-th nearest training point (scikit-learn NearestNeighbors)",
            "Ramaswamy, Rastogi & Shim 2000",
        ),
        MethodSpec(
            "pca",
            PCADetector,
            False,
            "Linear PCA reconstruction error (scikit-learn PCA)",
            "Shyu et al. 2003; Hoffmann 2007",
        ),
    ]
}
# Every kernel-PCA variant builds a kernel over its training rows.
METHODS = {name: spec if not spec.subspace else replace(spec, kernel_method=True) for name, spec in METHODS.items()}


IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def is_import_path(name) -> bool:
    """Whether a method name is ``"package.module:Class"`` rather than a registry key."""
    return isinstance(name, str) and IMPORT_PATH.fullmatch(name) is not None


def method_spec(name: str, higher_is: str | None = None, folders: tuple[str, ...] = ()) -> MethodSpec:
    """The spec of a registered method, or of a detector class named by import path.

    For an import path, its module is looked for in ``folders`` (the config's folder) first, then on
    ``sys.path``; raises :class:`ConfigError` in one line if the class cannot be imported, lacks ``fit`` and
    ``score_samples`` / ``decision_function``, or belongs to a package whose sign is unknown and
    ``higher_is`` is not given.
    """
    if not is_import_path(name):
        return METHODS[name]
    return _import_path_spec(name, higher_is, tuple(folders))


@lru_cache(maxsize=None)
def _import_path_spec(path: str, higher_is: str | None, folders: tuple[str, ...]) -> MethodSpec:
    try:
        klass = import_class(path, folders)
    except (ImportError, AttributeError) as error:
        raise ConfigError(
            f"cannot import {path} ({type(error).__name__}: {error}){not_found_fix(path, error, folders)}"
        ) from None
    if not inspect.isclass(klass):
        raise ConfigError(f"{path} is not a class")
    return _class_spec(path, klass, higher_is or known_sign(klass))


def not_found_fix(path: str, error: Exception, folders: tuple[str, ...]) -> str:
    """Where the module of ``path`` was looked for and how to make it importable, when it is the module (or its
    package) that was not found; the closest name the module defines, when it lacks the class; empty for any other
    error (a module found that fails to import names its own)."""
    module, _, name = path.partition(":")
    if isinstance(error, AttributeError) and module in sys.modules:
        close = difflib.get_close_matches(name, [n for n in dir(sys.modules[module]) if not n.startswith("_")], n=1)
        return f"; did you mean '{module}:{close[0]}'?" if close else f"; name a class that {module} defines"
    if not isinstance(error, ModuleNotFoundError) or not (error.name and (module + ".").startswith(error.name + ".")):
        return ""
    top = module.split(".")[0]
    if not folders:
        return f"; searched the Python path (sys.path): install {top}, or add the folder of {top}.py to PYTHONPATH"
    return (
        f"; searched the config's folder {', '.join(folders)} and the Python path (sys.path): put {top}.py "
        f"(or the package {top}/) beside the config, or install it"
    )


def class_path(klass: type) -> str:
    """``"package.module:Class"`` of a class (its qualified name: ``Outer.Inner`` for a nested one)."""
    return f"{klass.__module__}:{klass.__qualname__}"


def estimator_spec(klass: type, higher_is: str | None = None) -> MethodSpec:
    """The spec of a detector class given as an object (``kpca_bench.run(methods=...)``), never imported by path.

    Its sign is ``higher_is`` if given, else that of its package or a base class's (:func:`known_sign`, as by
    import path), else scikit-learn's (higher = more normal) for a class with ``score_samples``;
    a class with only ``decision_function`` and no known sign is refused, as by import path.
    """
    sign = higher_is or known_sign(klass)
    if sign is None and hasattr(klass, "score_samples"):
        sign = "normal"
    if sign is None and hasattr(klass, "fit") and hasattr(klass, "decision_function"):
        raise ConfigError(
            f"the sign of {class_path(klass)}'s decision_function is not known: wrap the detector in "
            "kpca_bench.methods.interop.SignedDetector(detector, higher_is='outlier') (higher = more "
            "anomalous, as PyOD) or higher_is='normal'"
        )
    return _class_spec(class_path(klass), klass, sign)


def _class_spec(path: str, klass: type, sign: str | None) -> MethodSpec:
    """The spec of the detector class ``klass`` named ``path``, whose scores mean ``sign``; :class:`ConfigError`
    if it is no outlier detector or its sign is unknown."""
    missing = [] if hasattr(klass, "fit") else ["fit"]
    if not (hasattr(klass, "score_samples") or hasattr(klass, "decision_function")):
        missing.append("score_samples or decision_function")
    if missing:
        raise ConfigError(
            f"{path} is not an outlier detector: it has no {' and no '.join(missing)}; name a "
            "detector class (scikit-learn's or PyOD's outlier detectors, or your own with fit)"
        )
    if sign not in (*HIGHER_IS, None):
        raise ConfigError(f"higher_is must be one of {', '.join(HIGHER_IS)}, got {sign!r}")
    if sign is None:
        raise ConfigError(
            f"the sign of {path}'s scores is not known: add higher_is: outlier (higher = more "
            "anomalous, as PyOD) or higher_is: normal (as scikit-learn's score_samples)"
        )
    summary = (inspect.getdoc(klass) or klass.__name__).splitlines()[0]
    return MethodSpec(path, klass, False, summary, path, class_path=path, higher_is=sign)
