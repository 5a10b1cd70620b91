"""Parameter constraints for the kernels and the estimators: scikit-learn's, and what kpca-bench adds.

The estimators declare their parameters as scikit-learn's own do (``_parameter_constraints``, checked
by ``_fit_context`` at ``fit``), with scikit-learn's constraint classes. scikit-learn keeps those in
private modules (``sklearn.utils._param_validation``, ``sklearn.base._fit_context``) and offers no
public equivalent; scikit-learn-compatible projects use them as they stand. This module is the one
place in kpca-bench that imports them, so that a change in scikit-learn is met here, once.
"""

from __future__ import annotations

from sklearn.base import _fit_context as fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "NumberInterval",
    "Options",
    "RealNotInt",
    "StrOptions",
    "fit_context",
    "validate_parameter_constraints",
    "validate_params",
]


class NumberInterval(Interval):
    """scikit-learn's :class:`~sklearn.utils._param_validation.Interval` without bools.

    ``bool`` is an ``int`` in Python, so the plain ``Interval(Integral, 1, None, closed="left")``
    takes ``True`` as 1; a YAML ``yes`` or ``true`` for a count or a width is
    a mistake, not a number.
    """

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)
