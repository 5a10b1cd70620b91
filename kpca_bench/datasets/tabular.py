"""A table of features and a label column as a :class:`Dataset`: the rules a user's data is read by.

Shared by the file loader and the OpenML loader, so a CSV and the same table
from OpenML become the same arrays:

* a numeric (or boolean) column is a numeric feature, as float64;
* any other column (text, pandas categories) is a **categorical** feature: its
  values become integer codes into its sorted categories, and the column is
  marked categorical, so the Hamming kernel (``kernel: hamming``) treats it as
  Li et al. do; with an RBF kernel the codes are used as numbers, which is rarely
  what a user wants, so the run's summary names the encoded columns;
* labels that are whole numbers become integers (``1.0`` and the text ``"1"``
  are the class ``1``), other text labels stay text, exactly as in the file;
* a row with a missing (NaN) or infinite feature or label is an error naming how
  many rows and the option that drops them (``drop_na: true``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kpca_bench.datasets.base import CATEGORICAL, NUMERIC, Dataset, Provenance
from kpca_bench.errors import DataError


def is_numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)


def encode(features: pd.DataFrame) -> tuple[np.ndarray, tuple[str, ...], tuple[tuple[str, ...] | None, ...]]:
    """Features as float64, their kinds, and each categorical column's sorted categories (None if numeric).

    A missing value of a categorical column stays NaN (it is not a category).
    """
    columns: list[np.ndarray] = []
    kinds: list[str] = []
    categories: list[tuple[str, ...] | None] = []
    for name in features.columns:
        column = features[name]
        if is_numeric(column):
            columns.append(column.to_numpy(dtype=np.float64, na_value=np.nan))
            kinds.append(NUMERIC)
            categories.append(None)
            continue
        present = column.notna().to_numpy()
        names, codes = np.unique(column[present].astype(str).to_numpy(), return_inverse=True)
        encoded = np.full(len(column), np.nan)
        encoded[present] = codes
        columns.append(encoded)
        kinds.append(CATEGORICAL)
        categories.append(tuple(names.tolist()))
    X = np.column_stack(columns) if columns else np.empty((len(features), 0))
    return X, tuple(kinds), tuple(categories)


def label_array(labels: pd.Series) -> np.ndarray:
    """Labels as in the file (none missing): whole numbers as int64 (also when stored as text, as OpenML's
    nominal ``{0,1}`` classes are), other numbers as float64, anything else as text."""
    if is_numeric(labels):
        values = labels.to_numpy(dtype=np.float64)
        return values.astype(np.int64) if np.array_equal(values, np.round(values)) else values
    text = labels.astype(str).str.strip()
    if text.str.fullmatch(r"[+-]?\d+").all():
        return text.astype(np.int64).to_numpy()
    return text.to_numpy()


def incomplete_rows(X: np.ndarray, labels: pd.Series) -> np.ndarray:
    """Rows with a NaN or infinite feature, or no label."""
    return ~np.all(np.isfinite(X), axis=1) | labels.isna().to_numpy()


def table_dataset(
    features: pd.DataFrame, labels: pd.Series, *, name: str, source: str, where: str, drop_na: bool
) -> Dataset:
    """The :class:`Dataset` of a table; ``where`` (the file, or the OpenML id) starts every error message.

    Raises :class:`DataError` on an empty table or on incomplete rows unless ``drop_na``.
    """
    if len(features) == 0:
        raise DataError(f"{where}: dataset.options.path: the file has no data rows; add them below the header")
    if features.shape[1] == 0:
        raise DataError(f"{where}: dataset.options.label: no feature column is left besides the label")
    X, kinds, categories = encode(features)
    labels = labels.reset_index(drop=True)
    bad = incomplete_rows(X, labels)
    notes = []
    if bad.any() and not drop_na:
        columns = [str(c) for c, col in zip(features.columns, X.T) if not np.all(np.isfinite(col))]
        label = ["the label"] if labels.isna().any() else []
        raise DataError(
            f"{where}: {int(bad.sum())} of {len(bad)} rows have missing (NaN) or infinite values "
            f"(in {', '.join(columns + label)}); set dataset.options.drop_na: true to drop them"
        )
    if bad.any():
        X, labels = X[~bad], labels[~bad]
        notes.append(f"{int(bad.sum())} rows with missing or infinite values dropped (drop_na)")
    if len(labels) == 0:
        raise DataError(f"{where}: every row has a missing value; nothing is left after drop_na")
    encoded = [str(c) for c, kind in zip(features.columns, kinds) if kind == CATEGORICAL]
    if encoded:
        notes.append(f"categorical columns as integer codes (use kernel: hamming): {', '.join(encoded)}")
    return Dataset(
        name=name,
        X=X,
        y=label_array(labels),
        feature_kinds=kinds,
        provenance=Provenance(source=source, notes="; ".join(notes)),
        categories=categories if encoded else None,
    )
