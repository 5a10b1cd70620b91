"""Parameter-constraint helpers shared by the kernels and the estimators.

The declarations themselves use scikit-learn's ``sklearn.utils._param_validation``
(``Interval``, ``StrOptions``, ...); this module adds what kpca-bench needs on top.
"""

from __future__ import annotations

from sklearn.utils._param_validation import Interval


class NumberInterval(Interval):
    """scikit-learn's :class:`~sklearn.utils._param_validation.Interval` without bools.

    ``bool`` is an ``int`` in Python, so the plain ``Interval(Integral, 1, None, closed="left")``
    takes ``True`` as 1; a YAML ``yes`` or ``true`` for a count or a width is
    a mistake, not a number.
    """

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)
