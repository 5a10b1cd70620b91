"""The one list of datasets a config can name, and how to load one."""

from __future__ import annotations

import difflib
import inspect
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from kpca_bench.datasets import adbench, generators, images, odds, uci
from kpca_bench.datasets.base import Dataset, Provenance
from kpca_bench.datasets.bundled import load_digits
from kpca_bench.datasets.files import checked_records, ensure
from kpca_bench.datasets.locate import DataFile
from kpca_bench.datasets.openml_data import load_openml
from kpca_bench.datasets.options import check_option_names
from kpca_bench.datasets.user_file import load_file
from kpca_bench.errors import DataError

PAPERS = "papers"
ADBENCH = "adbench"
USER = "user"

UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
MNIST_MIRROR = "https://ossci-datasets.s3.amazonaws.com/mnist/"
FASHION_REPO = "https://github.com/zalandoresearch/fashion-mnist/raw/master/data/fashion/"


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset a config can name.

    ``load(**options)`` returns a :class:`Dataset`; options come from the
    config's ``dataset.options``. A dataset read from files gets them as
    ``load(files={name: path}, **options)`` after they are located and checked.

    Attributes
    ----------
    name : registry key.
    load : the loader.
    description : one line for ``datasets list``.
    source : citation / origin recorded in the provenance.
    files : the files read, with checksums and download URLs; empty for
        generated and bundled datasets.
    homepage : where a user gets the files by hand (named in error messages).
    shape : (rows, columns) with the default options.
    n_classes : number of distinct labels with the default options.
    collection : ``papers`` (the reproduced papers' data), ``adbench`` or ``user``
        (a user's file or OpenML id); ``datasets list --collection`` filters on it.
    path_options : options that are file paths, read relative to the config's folder.
    binary_labels : with neither ``inliers`` nor ``outliers`` in the config, labels
        0 / 1 mean inlier / outlier (the ODDS and ADBench convention).
    seed_name : the name mixed into split seeds (default: ``name``). Datasets declaring the same
        one split the same arrays alike: a user's file, an OpenML id and ADBench's copies declare
        ``"data"``, so that the same data get the same splits whatever they are called.
    """

    name: str
    load: Callable[..., Dataset]
    description: str
    source: str = ""
    files: tuple[DataFile, ...] = ()
    homepage: str = ""
    shape: tuple[int, int] | None = None
    n_classes: int | None = None
    collection: str = PAPERS
    path_options: tuple[str, ...] = ()
    binary_labels: bool = False
    seed_name: str | None = None

    @property
    def split_seed_name(self) -> str:
        return self.seed_name or self.name


def _uci(folder: str, *names_and_sha256: tuple[str, str]) -> tuple[tuple[DataFile, ...], str]:
    """The files of a dataset in UCI's folder ``folder``, and that folder as the homepage."""
    files = tuple(DataFile(name, (f"sha256:{sha256}",), f"{UCI}{folder}/{name}") for name, sha256 in names_and_sha256)
    return files, f"{UCI}{folder}/"


_MNIST_FILES = tuple(
    DataFile(name, (f"sha256:{sha256}", f"md5:{md5}"), MNIST_MIRROR + name)
    for name, sha256, md5 in [
        # sha256: the shared copy (re-gzipped, identical payload); md5: LeCun's original gzip files.
        (
            "train-images-idx3-ubyte.gz",
            "db8f937d487057fb14a9f0fbe97f0bc8d311ab41b750d41e1ff37c43b9e55e19",
            "f68b3c2dcbeaaa9fbdd348bbdeb94873",
        ),
        (
            "train-labels-idx1-ubyte.gz",
            "51fc562b6747b666fbf6e84ce29d43c3cb5f9c388c664d43b33f02095313405a",
            "d53e105ee54ea40749a09fcbcd1e9432",
        ),
        (
            "t10k-images-idx3-ubyte.gz",
            "cfeddb84311ecf044fc6a5b0f6ee8a24d265d4e83e388400186eb114082f4209",
            "9fb629c4189551a2d022fa330f9573f3",
        ),
        (
            "t10k-labels-idx1-ubyte.gz",
            "e41c74e484045d39b462a7790a4af51301bd9b0b24f0154798d713ec68c45920",
            "ec29112dd5afa0611ce80d1b7f02629c",
        ),
    ]
)

_FASHION_FILES = tuple(
    DataFile(name, (f"sha256:{sha256}",), FASHION_REPO + name)
    for name, sha256 in [
        ("train-images-idx3-ubyte.gz", "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7"),
        ("train-labels-idx1-ubyte.gz", "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056"),
        ("t10k-images-idx3-ubyte.gz", "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa"),
        ("t10k-labels-idx1-ubyte.gz", "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05"),
    ]
)

_SPECS = [
    DatasetSpec(
        "mnist",
        images.load_mnist,
        "MNIST handwritten digits, 28x28 grayscale, 10 classes",
        "LeCun, Cortes & Burges, MNIST",
        _MNIST_FILES,
        MNIST_MIRROR,
        (70000, 784),
        10,
    ),
    DatasetSpec(
        "fashion_mnist",
        images.load_fashion_mnist,
        "Fashion-MNIST clothing images, 28x28 grayscale, 10 classes",
        "Xiao, Rasul & Vollgraf 2017, Fashion-MNIST",
        _FASHION_FILES,
        "https://github.com/zalandoresearch/fashion-mnist",
        (70000, 784),
        10,
    ),
    DatasetSpec(
        "satimage2",
        odds.load_satimage2,
        "ODDS Satimage-2: satellite image pixels, 71 outliers (class 2 down-sampled)",
        "Rayana 2016, ODDS Library (http://odds.cs.stonybrook.edu/satimage-2-dataset/)",
        (
            DataFile(
                "satimage-2.mat",
                ("sha256:95c37a07cea2cb201f6900d14f521510e10b6b2f0074c06ac46d3157440ec67b",),
                "https://raw.githubusercontent.com/yzhao062/pyod/master/notebooks/data/satimage-2.mat",
            ),
        ),
        "http://odds.cs.stonybrook.edu/satimage-2-dataset/",
        (5803, 36),
        2,
    ),
    DatasetSpec(
        "eth80",
        images.load_eth80,
        "ETH-80 apple and tomato views (default 32x32 grayscale)",
        "Leibe & Schiele 2003, ETH-80 (256x256 cropped variant)",
        (
            DataFile(
                "SHA256SUMS",
                ("sha256:f2d58e11a9d3791cb3cc7227494db5ef86d5c0d0d21a0fe5b80e7d135189049c",),
                lists_members=True,
            ),
        ),
        "https://github.com/Kai-Xuan/ETH-80 (folders 1/ and 8/ renamed apple/appleK and tomato/tomatoK, "
        "see the shared datasets MANIFEST)",
        (820, 1024),
        2,
    ),
    DatasetSpec(
        "internet_ads",
        uci.load_internet_ads,
        "UCI Internet Advertisements: image features, ad. / nonad.",
        "Kushmerick 1999, UCI Internet Advertisements",
        (DataFile("ad.data", ("git-sha1:4e776d192fd4418aa0724854673811cb71075ac8",), f"{UCI}internet_ads/ad.data"),),
        f"{UCI}internet_ads/ (or OpenML data id 40978, which is a converted copy)",
        (2359, 1558),
        2,
    ),
    DatasetSpec(
        "australian",
        uci.load_australian,
        "Statlog Australian credit approval, 14 attributes",
        "Quinlan, UCI Statlog (Australian Credit Approval)",
        *_uci(
            "statlog/australian", ("australian.dat", "3abe5af151afa50b999a9ba21cbc884e80d80a4050b716cf88b34a2e6ecb731c")
        ),
        (690, 14),
        2,
    ),
    DatasetSpec(
        "breast_cancer_wisconsin",
        uci.load_breast_cancer_wisconsin,
        "Breast Cancer Wisconsin (original), 9 cytology scores, benign 2 / malignant 4",
        "Wolberg & Mangasarian 1990, UCI Breast Cancer Wisconsin (Original)",
        *_uci(
            "breast-cancer-wisconsin",
            ("breast-cancer-wisconsin.data", "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64"),
        ),
        (683, 9),
        2,
    ),
    DatasetSpec(
        "climate_model_crashes",
        uci.load_climate_model_crashes,
        "Climate model simulation crashes, 18 parameters (columns: all adds Study and Run), outcome 0 / 1",
        "Lucas et al. 2013, UCI Climate Model Simulation Crashes",
        *_uci("00252", ("pop_failures.dat", "8a892cbb056072e84749aed7409d6f17c7b4a1c899fc98ce52dc2af8b727ff9c")),
        (540, 18),
        2,
    ),
    DatasetSpec(
        "spectf",
        uci.load_spectf,
        "SPECTF heart, 44 continuous ROI features, class 0 / 1",
        "Kurgan et al. 2001, UCI SPECTF Heart",
        *_uci(
            "spect",
            ("SPECTF.train", "3bc5e9a6f8d5367c49d8fd1361e7dc38f619884e0f00dec0e4a6901d26530a58"),
            ("SPECTF.test", "467a65c81e14a71c029fa58bf9350ecdf28ff072303b99a832e8606e193a3882"),
        ),
        (267, 44),
        2,
    ),
    DatasetSpec(
        "spect",
        uci.load_spect,
        "SPECT heart, 22 binary (categorical) features, class 0 / 1",
        "Kurgan et al. 2001, UCI SPECT Heart",
        *_uci(
            "spect",
            ("SPECT.train", "0fd0258bfc8eb986623a45890676465ee92e738a95fdc01a6aef893d9c920115"),
            ("SPECT.test", "a152d1812a84da3ad18e759ac3433e57f407a6871c2f2fe0dda6779c90d58b82"),
        ),
        (267, 22),
        2,
    ),
    DatasetSpec(
        "ann_thyroid",
        uci.load_ann_thyroid,
        "Thyroid disease (ann-thyroid), 21 features, classes 1 / 2 / 3",
        "Quinlan, UCI Thyroid Disease (ann-train / ann-test)",
        # The registered copy is comma-separated (a third-party edit of UCI's
        # blank-separated files), so UCI's bytes cannot match: no download.
        (
            DataFile("ann-train.data", ("sha256:3b0e21166319732467dc08977c1b44b9292d9e4e2c84ad5f3f0897c1c90056f2",)),
            DataFile("ann-test.data", ("sha256:43cbc4ef577c089fac5a1d4119002cdcf777329fcfa85d8deb752af295dfcb14",)),
        ),
        "the shared datasets folder (ann_thyroid/, see its MANIFEST)",
        (3772, 21),
        3,
    ),
    DatasetSpec(
        "wine_quality_red",
        uci.load_wine_quality_red,
        "Wine quality (red), 11 features, class = quality 3-8",
        "Cortez et al. 2009, UCI Wine Quality",
        *_uci(
            "wine-quality", ("winequality-red.csv", "4a402cf041b025d4566d954c3b9ba8635a3a8a01e039005d97d6a710278cf05e")
        ),
        (1599, 11),
        6,
    ),
    DatasetSpec(
        "yeast",
        uci.load_yeast,
        "Yeast protein localisation, 8 features, 10 sites",
        "Nakai & Kanehisa 1991, UCI Yeast",
        *_uci("yeast", ("yeast.data", "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258")),
        (1484, 8),
        10,
    ),
    DatasetSpec(
        "balance_scale",
        uci.load_balance_scale,
        "Balance scale, 4 categorical features, classes L / B / R",
        "Siegler 1976, UCI Balance Scale",
        *_uci(
            "balance-scale", ("balance-scale.data", "5611187ef7345d807aa8ae22615945ade52a190537c0b1434bd44c3e877c5bb4")
        ),
        (625, 4),
        3,
    ),
    DatasetSpec(
        "kr_vs_kp",
        uci.load_kr_vs_kp,
        "Chess king-rook vs king-pawn, 36 categorical features, won / nowin",
        "Shapiro 1983, UCI Chess (King-Rook vs. King-Pawn)",
        *_uci(
            "chess/king-rook-vs-king-pawn",
            ("kr-vs-kp.data", "70a5540902b4063d3977d3e820ac5b9fe5624eb5d93709eee5d50d7a94fca205"),
        ),
        (3196, 36),
        2,
    ),
    DatasetSpec(
        "tic_tac_toe",
        uci.load_tic_tac_toe,
        "Tic-tac-toe endgame, 9 categorical squares, positive / negative",
        "Aha 1991, UCI Tic-Tac-Toe Endgame",
        *_uci("tic-tac-toe", ("tic-tac-toe.data", "a996a756484d0cf8cbad1680d823aadbfcff8ae2d78c450e6999362d580301c5")),
        (958, 9),
        2,
    ),
    DatasetSpec(
        "ionosphere",
        uci.load_ionosphere,
        "Ionosphere radar returns, 34 features, good / bad",
        "Sigillito et al. 1989, UCI Ionosphere",
        *_uci("ionosphere", ("ionosphere.data", "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd")),
        (351, 34),
        2,
    ),
    DatasetSpec(
        "letter_recognition",
        uci.load_letter_recognition,
        "Letter recognition, 16 features, 26 letters",
        "Frey & Slate 1991, UCI Letter Recognition",
        *_uci(
            "letter-recognition",
            ("letter-recognition.data", "2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2"),
        ),
        (20000, 16),
        26,
    ),
    DatasetSpec(
        "synthetic_control",
        uci.load_synthetic_control,
        "Synthetic control chart time series, 60 steps, 6 classes",
        "Alcock & Manolopoulos 1999, UCI Synthetic Control Chart Time Series",
        *_uci(
            "synthetic_control-mld",
            ("synthetic_control.data", "3295e9e0836a77cbbcb870f4df025ea174aab27358939031df2ff6805380360b"),
        ),
        (600, 60),
        6,
    ),
    DatasetSpec(
        "gaussian_mixture",
        generators.gaussian_mixture,
        "Three 2-D Gaussian sources, 30 points each (generated)",
        "generated: Wang & Tanaka, section 4.1.1",
        shape=(90, 2),
        n_classes=3,
    ),
    DatasetSpec(
        "parabola",
        generators.parabola,
        "Noisy 2-D parabola, 500 points (generated)",
        "generated: Wang & Tanaka, section 4.1.2",
        shape=(500, 2),
        n_classes=1,
    ),
    DatasetSpec(
        "li_artificial_2d",
        generators.li_artificial_2d,
        "Elongated 2-D Gaussian scaled to the unit square (generated)",
        "generated: Li et al., section IV.A",
        shape=(150, 2),
        n_classes=1,
    ),
    DatasetSpec(
        "half_moons",
        generators.half_moons,
        "Two interleaving half circles (generated, scikit-learn make_moons)",
        "generated: scikit-learn make_moons",
        shape=(200, 2),
        n_classes=2,
    ),
    DatasetSpec(
        "digits",
        load_digits,
        "scikit-learn's bundled 8x8 handwritten digits (1,797 x 64, 10 classes)",
        shape=(1797, 64),
        n_classes=10,
    ),
]

_USER_SPECS = [
    DatasetSpec(
        "file",
        load_file,
        "your own file: csv / tsv / txt, parquet, arff, npz, npy or mat (options: path, ...)",
        collection=USER,
        path_options=("path",),
        binary_labels=True,
        seed_name="data",
    ),
    DatasetSpec(
        "openml",
        load_openml,
        "an OpenML dataset through openml-python's cache (options: data_id or name)",
        source="OpenML (openml.org)",
        collection=USER,
        binary_labels=True,
        seed_name="data",
    ),
]

_ADBENCH_SPECS = [
    DatasetSpec(
        entry.name,
        adbench.loader(entry),
        f"ADBench {entry.file}: {entry.anomalies} anomalies (y = 1)",
        adbench.SOURCE,
        (entry.data_file(),),
        adbench.REPOSITORY,
        (entry.rows, entry.columns),
        2,
        collection=ADBENCH,
        binary_labels=True,
        seed_name="data",
    )
    for entry in adbench.FILES
]

DATASETS: dict[str, DatasetSpec] = {spec.name: spec for spec in [*_SPECS, *_USER_SPECS, *_ADBENCH_SPECS]}


def get_spec(name: str) -> DatasetSpec:
    """The registered dataset ``name``; :class:`DataError` with the closest names if there is none."""
    if name in DATASETS:
        return DATASETS[name]
    close = difflib.get_close_matches(name, DATASETS, n=3)
    hint = f"did you mean {', '.join(close)}?" if close else f"registered: {', '.join(DATASETS)}"
    raise DataError(f"unknown dataset {name!r}; {hint}")


def resolve_paths(spec: DatasetSpec, options: dict, base_dir) -> dict:
    """``options`` with the spec's path options made absolute against ``base_dir`` (the config's folder)."""
    if base_dir is None:
        return options
    return {
        key: str(Path(base_dir) / Path(value).expanduser()) if key in spec.path_options else value
        for key, value in options.items()
    }


def load_dataset(name: str, /, *, offline: bool = False, base_dir=None, **options) -> Dataset:
    """Load a registered dataset by name.

    Its files are looked for in the data directories (``KPCA_BENCH_DATA``,
    then the per-user cache), downloaded into the cache when missing unless
    ``offline``, and checked against their known checksums. A loader that finds
    its own data (a user's file, OpenML) gets ``offline`` itself, and its path
    options resolved against ``base_dir``; the files it read are its provenance.
    Raises :class:`DataError` for a missing or corrupted file or a bad option.
    """
    spec = get_spec(name)
    check_option_names(name, spec.load, options)
    options = resolve_paths(spec, options, base_dir)
    if "offline" in inspect.signature(spec.load).parameters:
        options["offline"] = offline
    if not spec.files:
        dataset = spec.load(**options)
        records = dataset.provenance.files
    else:
        paths = ensure(name, spec.files, spec.homepage, offline=offline)
        records = checked_records(name, spec.files, paths)
        dataset = spec.load(files=paths, **options)
    provenance = Provenance(
        source=dataset.provenance.source or spec.source, files=records, notes=dataset.provenance.notes
    )
    return replace(dataset, provenance=provenance)
