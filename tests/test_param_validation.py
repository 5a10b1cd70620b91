from numbers import Integral, Real

import numpy as np
import pytest

from kpca_bench.param_validation import NumberInterval


@pytest.mark.parametrize(
    "constraint, valid, invalid",
    [
        (NumberInterval(Integral, 1, None, closed="left"), [1, np.int64(7)], [True, False, 0, 2.0]),
        (NumberInterval(Real, 0, None, closed="neither"), [0.5, 3, np.float32(1e-3)], [True, 0.0, np.nan, np.inf]),
    ],
)
def test_number_interval_is_sklearns_interval_without_bools(constraint, valid, invalid):
    assert all(constraint.is_satisfied_by(value) for value in valid)
    assert not any(constraint.is_satisfied_by(value) for value in invalid)


def test_number_interval_reads_like_sklearns():
    assert str(NumberInterval(Real, 0, 1, closed="right")) == "a float in the range (0.0, 1.0]"
