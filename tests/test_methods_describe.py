"""A method's parameters as ``kpca-bench methods NAME`` shows them: defaults and numpydoc meanings."""

from dataclasses import replace

from sklearn.base import BaseEstimator

from kpca_bench.methods.describe import Parameter, describe_parameters, parameter_defaults, parameter_meanings
from kpca_bench.methods.registry import METHODS


class Documented(BaseEstimator):
    """A detector.

    Parameters
    ----------
    n_components : int, default=3
        Number of components.
        Never shown: only the first line is.
    alpha, beta : float
        Two weights sharing one line.
    undocumented_type
        No " : " so not a parameter line.

    Attributes
    ----------
    offset_ : float
        Not a parameter.
    """

    def __init__(self, n_components=3, alpha=0.5, beta=1.0, random_state=None):
        self.n_components, self.alpha, self.beta, self.random_state = n_components, alpha, beta, random_state


def test_meanings_are_the_type_line_and_the_first_description_line():
    assert parameter_meanings(Documented) == {
        "n_components": "int, default=3 — Number of components.",
        "alpha": "float — Two weights sharing one line.",
        "beta": "float — Two weights sharing one line.",
    }


def test_a_class_without_a_parameters_section_has_no_meanings():
    assert parameter_meanings(int) == {}


def test_the_specs_defaults_override_the_signatures():
    spec = replace(METHODS["kpca"], estimator=Documented, defaults={"alpha": 2.0})
    assert parameter_defaults(spec) == {"alpha": 2.0, "beta": 1.0, "n_components": 3, "random_state": None}
    assert describe_parameters(spec) == [
        Parameter("alpha", 2.0, "float — Two weights sharing one line."),
        Parameter("beta", 1.0, "float — Two weights sharing one line."),
        Parameter("n_components", 3, "int, default=3 — Number of components."),
        Parameter("random_state", None, ""),
    ]


def test_exact_kernel_pca_documents_every_parameter_but_the_random_state():
    undocumented = [p.name for p in describe_parameters(METHODS["kpca"]) if not p.meaning and p.name != "random_state"]
    assert not undocumented
