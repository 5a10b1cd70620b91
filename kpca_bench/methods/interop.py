"""kpca-bench among other tools: PyOD's sign and contract, scikit-learn scorers for outlier labels,
ADBench's customised-model hook, and detectors of any package named by import path.

Two sign conventions meet here, and this module is the only place besides
:class:`~kpca_bench.methods.detector.KernelSubspaceDetector` that knows them:

* scikit-learn (and every kpca-bench estimator): ``score_samples`` /
  ``decision_function`` higher = more *normal*, ``predict`` in {+1 inlier, -1 outlier};
* PyOD: ``decision_function`` and ``decision_scores_`` higher = more *anomalous*,
  ``labels_`` and ``predict`` in {0 inlier, 1 outlier}, ``threshold_`` from ``contamination``.

A scikit-learn-style detector dropped into a PyOD loop gives AUROC near 1 minus the
true one; :class:`PyODAdapter` turns any of them into a PyOD detector.

Nothing here imports PyOD (it takes over a second to import): the adapter
implements PyOD's ``BaseDetector`` contract itself, and the tests check it
against PyOD's own methods when PyOD is installed (``pip install "kpca-bench[pyod]"``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from numbers import Real

import numpy as np
from scipy.special import erf
from sklearn.base import BaseEstimator, clone
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.utils.validation import check_is_fitted, validate_data

from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.param_validation import fit_context, HasMethods, NumberInterval, StrOptions

HIGHER_IS = ("normal", "outlier")


# ---------------------------------------------------------------------------------------------------------------
# One named place for the sign of a detector's scores.


def is_pyod_detector(estimator) -> bool:
    """Whether ``estimator`` follows PyOD's sign: an instance of a class from the ``pyod`` package, or our adapter."""
    return isinstance(estimator, PyODAdapter) or is_pyod_detector_class(type(estimator))


def is_pyod_detector_class(klass: type) -> bool:
    """Whether ``klass`` is or derives from a class of the ``pyod`` package."""
    return any(base.__module__.split(".")[0] == "pyod" for base in klass.__mro__)


def outlier_scores(estimator, X) -> np.ndarray:
    """Scores of X from a fitted detector, higher = more anomalous, whichever convention it follows.

    PyOD detectors: ``decision_function``. scikit-learn-style ones: minus
    ``score_samples`` (or minus ``decision_function`` if it has no ``score_samples``).
    """
    if is_pyod_detector(estimator):
        return np.asarray(estimator.decision_function(X), dtype=float)
    if hasattr(estimator, "score_samples"):
        return -np.asarray(estimator.score_samples(X), dtype=float)
    return -np.asarray(estimator.decision_function(X), dtype=float)


# ---------------------------------------------------------------------------------------------------------------
# PyOD


class PyODAdapter(BaseEstimator):
    """Any kpca-bench (or scikit-learn-style) outlier detector as a PyOD detector.

    Follows PyOD's ``BaseDetector`` contract (``pyod/models/base.py``): after
    ``fit``, ``decision_scores_`` are the training points' outlier scores
    (higher = more anomalous), ``threshold_`` is their ``100 * (1 - contamination)``
    percentile and ``labels_`` flags the points above it with 1 (``_process_decision_scores``);
    ``decision_function`` scores new points the same way, ``predict`` returns 0 / 1,
    and ``predict_proba`` the ``[normal, outlier]`` probabilities by PyOD's
    ``linear`` (min-max over the training scores) or ``unify`` (Gaussian) rule.

    Parameters
    ----------
    detector : estimator with ``fit`` and ``score_samples``, default=None
        Cloned in fit. A kernel-PCA variant (anything with ``project``) is scored in its
        subspace by :class:`KernelSubspaceDetector` (reconstruction error). None:
        ``KernelSubspaceDetector()``, exact kernel PCA with 10 components.
    contamination : float in (0, 0.5], default=0.1
        PyOD's default: the share of training points ``labels_`` flags.

    Attributes
    ----------
    detector_ : the fitted detector (scikit-learn's sign).
    decision_scores_ : ndarray of shape (n_samples,)
    threshold_ : float
    labels_ : ndarray of int, shape (n_samples,)
    n_features_in_ : int

    Not a scikit-learn ``OutlierMixin``, as PyOD's detectors are not: its ``predict``
    returns 0 / 1 where scikit-learn's outlier detectors return +1 / -1.

    Examples
    --------
    >>> from kpca_bench.methods.interop import PyODAdapter
    >>> from kpca_bench.methods import KernelPCA
    >>> clf = PyODAdapter(KernelPCA(n_components=15), contamination=0.1).fit(X_train)   # doctest: +SKIP
    >>> clf.decision_function(X_test)   # higher = more anomalous, as PyOD's          # doctest: +SKIP
    """

    _parameter_constraints: dict = {
        "detector": [HasMethods(["fit"]), None],
        "contamination": [NumberInterval(Real, 0, 0.5, closed="right")],
    }

    def __init__(self, detector=None, *, contamination=0.1):
        self.detector = detector
        self.contamination = contamination

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the detector on X (y is ignored, as in PyOD) and set PyOD's fitted attributes.

        Sets ``detector_``, then ``decision_scores_`` (the training points' outlier scores),
        ``threshold_`` and ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X = validate_data(self, X, dtype=np.float64)
        detector = KernelSubspaceDetector() if self.detector is None else self.detector
        if hasattr(detector, "project"):
            detector = KernelSubspaceDetector(detector)
        self.detector_ = clone(detector).fit(X)
        self.decision_scores_ = self.decision_function(X)
        self._classes = 2  # PyOD's: predict_proba has an [inlier, outlier] column pair
        self._process_decision_scores()
        return self

    def _process_decision_scores(self):
        """PyOD's one place that turns scores into decisions: ``threshold_``, ``labels_``, ``_mu``, ``_sigma``."""
        self.threshold_ = float(np.percentile(self.decision_scores_, 100 * (1 - self.contamination)))
        self.labels_ = (self.decision_scores_ > self.threshold_).astype(int)
        self._mu = float(np.mean(self.decision_scores_))
        self._sigma = float(np.std(self.decision_scores_))
        return self

    def decision_function(self, X):
        """Outlier scores of X: higher = more anomalous (PyOD's sign; minus the detector's ``score_samples``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.

        Returns
        -------
        outlier_scores : ndarray of shape (n_samples,)
            The higher, the more anomalous: minus the detector's ``score_samples`` (or minus its
            ``decision_function`` if it has no ``score_samples``; a PyOD detector's own
            ``decision_function`` as it is), see :func:`outlier_scores`.
        """
        check_is_fitted(self, "detector_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return outlier_scores(self.detector_, X)

    def score_samples(self, X):
        """scikit-learn's sign (higher = more normal), for scikit-learn's tools.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``-decision_function(X)``: the higher, the more normal.
        """
        return -self.decision_function(X)

    def predict(self, X, return_confidence=False):
        """1 for an outlier (score above ``threshold_``), 0 for an inlier, as PyOD's ``predict``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to label.
        return_confidence : bool, default=False
            Also return :meth:`predict_confidence` of X.

        Returns
        -------
        labels : ndarray of int of shape (n_samples,)
            1 where ``decision_function(X) > threshold_`` (outlier), 0 elsewhere (inlier). Note
            the PyOD convention: not scikit-learn's +1 / -1.
        confidence : ndarray of shape (n_samples,)
            Only when ``return_confidence`` is True: ``(labels, confidence)`` is returned.
        """
        check_is_fitted(self, "threshold_")
        labels = (self.decision_function(X) > self.threshold_).astype(int)
        return (labels, self.predict_confidence(X)) if return_confidence else labels

    def predict_proba(self, X, method="linear", return_confidence=False):
        """``[P(normal), P(outlier)]`` per row, by PyOD's ``linear`` or ``unify`` conversion.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score.
        method : {"linear", "unify"}, default="linear"
            ``"linear"``: the outlier score min-max scaled by the training scores'
            (``decision_scores_``) range; ``"unify"``: ``erf((score - mean) / (std sqrt(2)))`` with
            the training scores' mean and standard deviation. Either clipped to [0, 1].
        return_confidence : bool, default=False
            Also return :meth:`predict_confidence` of X.

        Returns
        -------
        probs : ndarray of shape (n_samples, 2)
            Column 0 ``P(normal)``, column 1 ``P(outlier)``; each row sums to 1.
        confidence : ndarray of shape (n_samples,)
            Only when ``return_confidence`` is True: ``(probs, confidence)`` is returned.
        """
        check_is_fitted(self, "threshold_")
        scores = self.decision_function(X)
        if method == "linear":
            low, high = self.decision_scores_.min(), self.decision_scores_.max()
            outlier = np.clip((scores - low) / (high - low if high > low else 1.0), 0, 1)
        elif method == "unify":
            outlier = np.clip(erf((scores - self._mu) / (self._sigma * np.sqrt(2))), 0, 1)
        else:
            raise ValueError(f"method must be 'linear' or 'unify', got {method!r}")
        probs = np.column_stack([1 - outlier, outlier])
        return (probs, self.predict_confidence(X)) if return_confidence else probs

    def predict_confidence(self, X):
        """PyOD's confidence in each prediction (Perini et al. 2020), in [0, 1].

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points whose predictions to rate.

        Returns
        -------
        confidence : ndarray of shape (n_samples,)
            For a point :meth:`predict` labels 1 (outlier), ``1 - binom.cdf(n - int(n * contamination), n, p)``
            with ``p = (1 + r) / (2 + n)``, r the number of the n training scores at or below its score
            (ExCeeD); for a point labelled 0, one minus that. Near 1: a label that slightly different
            training sets would keep.
        """
        from scipy.stats import binom

        check_is_fitted(self, "threshold_")
        n = len(self.decision_scores_)
        ranks = np.searchsorted(np.sort(self.decision_scores_), self.decision_function(X), side="right")
        posterior = (1 + ranks) / (2 + n)
        confidence = 1 - binom.cdf(n - int(n * self.contamination), n, posterior)
        prediction = self.decision_function(X) > self.threshold_
        return np.where(prediction, confidence, 1 - confidence)

    def fit_predict(self, X, y=None):
        """``labels_`` of X after fitting on it (0 / 1, PyOD's sign).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        labels : ndarray of int of shape (n_samples,)
            ``labels_``: 1 for the training points above ``threshold_`` (outliers), 0 for the others.
        """
        return self.fit(X).labels_


# ---------------------------------------------------------------------------------------------------------------
# ADBench


def adbench_model(detector=None, *, contamination: float = 0.1):
    """A class for ADBench's customised-model hook: ``RunPipeline(...).run(clf=adbench_model(...))``.

    ADBench (``adbench/run.py``) builds ``clf(seed=seed, model_name=name)``, calls
    ``fit(X_train, y_train)`` and then ``predict_score(X_test)``, which must be
    higher for more anomalous points; the unsupervised setting ignores the labels.
    ``detector`` is any kpca-bench or scikit-learn-style detector, or a
    kernel-PCA variant; its ``random_state`` (if any) is set to ADBench's seed.
    """

    class KpcaBenchModel:
        def __init__(self, seed: int, model_name: str | None = None):
            self.seed = seed
            self.model_name = model_name

        def fit(self, X_train, y_train=None):
            model = PyODAdapter(detector, contamination=contamination)
            if model.detector is not None and "random_state" in model.detector.get_params():
                model.detector = clone(model.detector).set_params(random_state=self.seed)
            self.model = model.fit(X_train)
            return self

        def predict_score(self, X):
            return self.model.decision_function(X)

    return KpcaBenchModel


# ---------------------------------------------------------------------------------------------------------------
# scikit-learn scorers for outlier labels


@dataclass(frozen=True)
class OutlierScorer:
    """A scikit-learn scorer, ``scorer(estimator, X, y)``, of a ranking metric on outlier labels.

    ``y`` marks outliers with ``outlier_label``: 1 (PyOD, ADBench, kpca-bench's
    datasets: ``y = 1`` is the outlier class) or -1 (scikit-learn's ``predict``
    convention); every other value is an inlier. The estimator's scores are
    turned into outlier scores (higher = more anomalous) by :func:`outlier_scores`,
    whichever sign convention it follows, so GridSearchCV's "higher is better" holds.
    ``scoring="roc_auc"`` does not: it ranks by ``decision_function`` (higher =
    more normal) against y = 1, which gives 1 - AUROC and picks the worst setting.
    """

    metric: str = "roc_auc"
    outlier_label: int = 1

    def __post_init__(self):
        if self.metric not in OUTLIER_METRICS:
            raise ValueError(f"metric must be one of {', '.join(OUTLIER_METRICS)}, got {self.metric!r}")
        if self.outlier_label not in (1, -1):
            raise ValueError(f"outlier_label must be 1 or -1, got {self.outlier_label!r}")

    def __call__(self, estimator, X, y) -> float:
        is_outlier = np.asarray(y) == self.outlier_label
        return float(OUTLIER_METRICS[self.metric](is_outlier, outlier_scores(estimator, X)))


OUTLIER_METRICS = {"roc_auc": roc_auc_score, "average_precision": average_precision_score}


def outlier_roc_auc_scorer(outlier_label=1) -> OutlierScorer:
    """AUROC of the outlier scores against ``y == outlier_label`` (1 or -1)."""
    return OutlierScorer("roc_auc", outlier_label)


def outlier_average_precision_scorer(outlier_label=1) -> OutlierScorer:
    """Average precision (area under the precision-recall curve) with the outliers as the positive class."""
    return OutlierScorer("average_precision", outlier_label)


# ---------------------------------------------------------------------------------------------------------------
# Any detector by import path


class SignedDetector(BaseEstimator):
    """A detector of another package seen with scikit-learn's sign (``score_samples`` higher = more normal).

    What a config's ``name: "package.module:Class"`` entry runs: ``estimator``
    is built from the entry's parameters; ``higher_is`` says what its scores
    mean (``outlier`` for PyOD's ``decision_function``), and the scores are those
    of ``score_samples`` if it has one, else of ``decision_function``.

    It gives scores, not labels: the protocol sets each score's threshold, so it has no ``predict`` and
    is not a scikit-learn ``OutlierMixin`` (whose ``fit_predict`` would call one).
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "higher_is": [StrOptions(set(HIGHER_IS))],
    }

    def __init__(self, estimator, *, higher_is="normal"):
        self.estimator = estimator
        self.higher_is = higher_is

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit a clone of ``estimator`` on X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, passed to the estimator's ``fit`` as it is (not checked here).
        y : Ignored
            Not used (not passed on to the estimator), present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        # safe=False: a class of another package need not be a scikit-learn estimator (deep-copied then).
        self.estimator_ = clone(self.estimator, safe=False).fit(X)
        return self

    def score_samples(self, X):
        """The estimator's scores with scikit-learn's sign: higher means more normal.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to score, passed to the estimator as it is.

        Returns
        -------
        scores : ndarray of float of shape (n_samples,)
            The fitted estimator's ``score_samples`` (or ``decision_function`` if it has no
            ``score_samples``), negated when ``higher_is="outlier"``: the higher, the more normal.
        """
        check_is_fitted(self, "estimator_")
        method = "score_samples" if hasattr(self.estimator_, "score_samples") else "decision_function"
        scores = np.asarray(getattr(self.estimator_, method)(X), dtype=float)
        return -scores if self.higher_is == "outlier" else scores


@contextmanager
def importable_from(folders: Iterable[str]) -> Iterator[None]:
    """Modules in ``folders`` importable within the block, before the installed ones (as pytest makes its
    rootdir's): the folders go first on ``sys.path`` and are taken off again after it, so that a library caller's
    path is left as it was (a module imported in the block stays imported)."""
    saved = list(sys.path)
    first = list(dict.fromkeys(folders))
    sys.path[:] = first + [entry for entry in saved if entry not in first]
    try:
        yield
    finally:
        sys.path[:] = saved


def import_class(path: str, folders: tuple[str, ...] = ()):
    """The class named ``"package.module:Class"``, its module looked for in ``folders`` (a config's folder) first,
    then on ``sys.path``; ImportError / AttributeError name what is missing."""
    module_name, _, class_name = path.partition(":")
    with importable_from(folders):
        module = importlib.import_module(module_name)
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise AttributeError(f"module {module_name} has no attribute {class_name!r}") from None


PACKAGE_SIGNS = {"sklearn": "normal", "pyod": "outlier", "kpca_bench": "normal"}


# scikit-learn's generic bases (BaseEstimator, the mixins, their helpers) say nothing of a detector's sign.
GENERIC_BASES = ("sklearn.base", "sklearn.utils")


def known_sign(klass) -> str | None:
    """``normal`` for scikit-learn's detectors, ``outlier`` for PyOD's, each also for a class derived from one
    (the nearest such class in the method resolution order decides; scikit-learn's ``BaseEstimator`` and mixins
    do not), None when no base is from either package."""
    packages = (
        base.__module__.split(".")[0] for base in klass.__mro__ if not base.__module__.startswith(GENERIC_BASES)
    )
    return next((PACKAGE_SIGNS[package] for package in packages if package in PACKAGE_SIGNS), None)


def package_version(klass) -> str:
    """``distribution version`` of the package defining ``klass`` (``scikit-learn 1.9.1``), or its module name."""
    return _top_package_version(klass.__module__.split(".")[0])


@lru_cache(maxsize=None)
def _top_package_version(top: str) -> str:
    # Cached: packages_distributions() scans every installed distribution (~0.3 s), and each cell asks.
    from importlib import metadata

    for distribution in metadata.packages_distributions().get(top, []):
        try:
            return f"{distribution} {metadata.version(distribution)}"
        except metadata.PackageNotFoundError:
            continue
    version = getattr(importlib.import_module(top), "__version__", None)
    return f"{top} {version}" if version else top
