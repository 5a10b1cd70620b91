"""What a loaded dataset is: arrays plus what is needed to trust and describe them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

NUMERIC = "numeric"
CATEGORICAL = "categorical"


@dataclass(frozen=True)
class FileRecord:
    """A file a dataset was read from, and its sha256 as read."""

    path: str
    sha256: str


@dataclass(frozen=True)
class Provenance:
    """Where the data came from: source (paper / URL / package) and files read."""

    source: str
    files: tuple[FileRecord, ...] = ()
    notes: str = ""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A loaded dataset.

    Attributes
    ----------
    name : registry name.
    X : ndarray of shape (n_samples, n_features), float64. Categorical columns
        hold integer codes into ``categories[j]``.
    y : ndarray of shape (n_samples,), the original class labels.
    feature_kinds : "numeric" or "categorical" for each column.
    class_names : the distinct labels of ``y``, sorted.
    provenance : source, files and their checksums.
    categories : for each column, the category names of a categorical column
        (None for a numeric one); None when every column is numeric.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_kinds: tuple[str, ...]
    provenance: Provenance
    categories: tuple[tuple[str, ...] | None, ...] | None = None
    class_names: tuple = field(init=False)

    def __post_init__(self):
        if self.X.shape[0] != self.y.shape[0]:
            raise ValueError(f"{self.name}: X has {self.X.shape[0]} rows but y has {self.y.shape[0]}")
        if len(self.feature_kinds) != self.X.shape[1]:
            raise ValueError(f"{self.name}: {len(self.feature_kinds)} feature kinds for {self.X.shape[1]} columns")
        object.__setattr__(self, "class_names", tuple(np.unique(self.y).tolist()))

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    def class_counts(self) -> dict:
        labels, counts = np.unique(self.y, return_counts=True)
        return dict(zip(labels.tolist(), counts.tolist()))

    def one_hot(self) -> "Dataset":
        """The same data with every categorical column expanded to 0/1 indicator columns.

        Numeric columns are kept as they are, in place; a categorical column ``j``
        becomes ``len(categories[j])`` indicator columns in category order.
        """
        if self.categories is None:
            return self
        blocks = []
        for j, cats in enumerate(self.categories):
            column = self.X[:, j]
            if cats is None:
                blocks.append(column[:, None])
            else:
                blocks.append((column[:, None] == np.arange(len(cats))).astype(np.float64))
        X = np.hstack(blocks)
        return Dataset(
            name=self.name,
            X=X,
            y=self.y,
            feature_kinds=(NUMERIC,) * X.shape[1],
            provenance=Provenance(
                self.provenance.source,
                self.provenance.files,
                "; ".join(filter(None, [self.provenance.notes, "one-hot encoded"])),
            ),
        )
