"""Every public method of the public estimators documents its arguments and its return value (numpydoc).

A method the package defines (scikit-learn's inherited ones document themselves) needs a ``Parameters``
section naming each of its arguments, when it takes any beyond ``self``, and a ``Returns`` section.
"""

from __future__ import annotations

import inspect
import re

import pytest

from kpca_bench.methods.baselines import KernelOneClassSVM, KNNDetector, PCADetector
from kpca_bench.methods.detector import KernelSubspaceDetector
from kpca_bench.methods.interop import PyODAdapter, SignedDetector
from kpca_bench.methods.kpca import BaseKernelPCA, KernelPCA
from kpca_bench.methods.l1_kpca import L1KernelPCA
from kpca_bench.methods.nystrom import NystromKernelPCA
from kpca_bench.methods.sparse_admm import L1SparseKernelPCA
from kpca_bench.methods.sparse_admm_l21 import L21SparseKernelPCA
from kpca_bench.methods.sparse_enet import NaiveThresholdKPCA, SparseKernelPCA

ESTIMATORS = [
    KernelOneClassSVM,
    KNNDetector,
    PCADetector,
    KernelSubspaceDetector,
    PyODAdapter,
    SignedDetector,
    BaseKernelPCA,
    KernelPCA,
    L1KernelPCA,
    NystromKernelPCA,
    L1SparseKernelPCA,
    L21SparseKernelPCA,
    SparseKernelPCA,
    NaiveThresholdKPCA,
]


def section(doc: str, name: str) -> str | None:
    """The body of the numpydoc section ``name`` (a title line underlined by dashes), or None."""
    match = re.search(rf"^{name}\n-{{3,}}\n(.*?)(?=^\w[\w ]*\n-{{3,}}$|\Z)", doc, re.MULTILINE | re.DOTALL)
    return None if match is None else match.group(1)


def own_public_methods(klass: type) -> list[tuple[str, object]]:
    """``(name, function)`` of each public method of ``klass`` defined by a class of this package."""
    methods = []
    for name in sorted(dir(klass)):
        if name.startswith("_"):
            continue
        owner = next((base for base in klass.__mro__ if name in vars(base)), None)
        member = vars(owner)[name] if owner is not None else None
        if inspect.isfunction(member) and owner.__module__.startswith("kpca_bench."):
            methods.append((f"{owner.__name__}.{name}", member))
    return methods


def missing_sections(function) -> list[str]:
    """What the docstring of ``function`` lacks: its Parameters or Returns section, or an argument's entry."""
    doc = inspect.getdoc(function) or ""
    arguments = [
        parameter.name for parameter in inspect.signature(function).parameters.values() if parameter.name != "self"
    ]
    problems = []
    parameters = section(doc, "Parameters")
    if arguments and parameters is None:
        problems.append("Parameters")
    elif arguments:
        problems += [
            f"Parameters entry for {argument!r}"
            for argument in arguments
            if not re.search(rf"^(\w+, )*{argument}(, \w+)* :", parameters, re.MULTILINE)
        ]
    if section(doc, "Returns") is None:
        problems.append("Returns")
    return problems


METHODS = sorted({name: function for klass in ESTIMATORS for name, function in own_public_methods(klass)}.items())


def test_the_estimators_have_public_methods_to_check():
    names = {name for name, _ in METHODS}
    assert {
        "KNNDetector.predict",
        "PyODAdapter.predict_confidence",
        "SignedDetector.score_samples",
        "BaseKernelPCA.transform",
        "NystromKernelPCA.project",
        "KernelSubspaceDetector.fit",
    } <= names


@pytest.mark.parametrize("name, function", METHODS, ids=[name for name, _ in METHODS])
def test_every_public_method_documents_parameters_and_returns(name, function):
    assert not missing_sections(function), f"{name}'s docstring lacks {', '.join(missing_sections(function))}"


def test_a_missing_section_or_argument_is_found():
    def fit(self, X, y=None):
        """Fit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        self : object
        """

    def no_returns(self, X):
        """Score.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        """

    def no_parameters(self):
        """Nothing to take.

        Returns
        -------
        value : int
        """

    assert missing_sections(fit) == ["Parameters entry for 'y'"]
    assert missing_sections(no_returns) == ["Returns"]
    assert missing_sections(no_parameters) == []
    assert missing_sections(lambda self, X: None) == ["Parameters", "Returns"]
