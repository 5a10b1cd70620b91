"""The classical datasets of ADBench (Han et al., NeurIPS 2022), one ``.npz`` file each.

Every file holds ``X`` (n x d) and ``y`` (n,) with ``y = 1`` for an anomaly and
``0`` otherwise. They live together in one data folder, ``adbench_classical``
(as in the repository's ``adbench/datasets/Classical/``), and are registered as
``adbench_<name>``: the file's name without its number, in lower case, with
every character other than a letter or digit as ``_`` (``6_cardio.npz`` is
``adbench_cardio``, ``22_magic.gamma.npz`` is ``adbench_magic_gamma``).

References
----------
S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao. ADBench: Anomaly Detection Benchmark.
NeurIPS 2022 Datasets and Benchmarks, Table 1 and Appendix B (the sources and
licences of each dataset). Repository ``Minqi824/ADBench`` (BSD-2-Clause).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from kpca_bench.datasets.base import NUMERIC, Dataset, Provenance
from kpca_bench.datasets.formats import read_npz
from kpca_bench.datasets.locate import DataFile

FOLDER = "adbench_classical"
REPOSITORY = "https://github.com/Minqi824/ADBench"
FILES_URL = "https://raw.githubusercontent.com/Minqi824/ADBench/main/adbench/datasets/Classical/"
SOURCE = "Han et al. 2022, ADBench classical datasets (Minqi824/ADBench, adbench/datasets/Classical/)"


@dataclass(frozen=True)
class AdbenchFile:
    """One file of the suite: its name, shape and anomaly count (ADBench's Table 1), and its sha256.

    ``sha256`` is empty for the four files whose bytes were not available to
    checksum (see the shared datasets MANIFEST); those are accepted unchecked.
    """

    file: str
    rows: int
    columns: int
    anomalies: int
    sha256: str

    @property
    def name(self) -> str:
        stem = self.file.removesuffix(".npz").split("_", 1)[1]
        return "adbench_" + re.sub(r"[^a-z0-9]+", "_", stem.lower()).strip("_")

    def data_file(self) -> DataFile:
        checksums = (f"sha256:{self.sha256}",) if self.sha256 else ()
        return DataFile(self.file, checksums, FILES_URL + self.file, folder=FOLDER)


# From the shared datasets MANIFEST (ADBench @ 3dac8221081e); the four without a
# checksum (backdoor, census, fraud, speech) have their shape from ADBench's Table 1.
FILES = tuple(
    AdbenchFile(*row)
    for row in [
        ("1_ALOI.npz", 49534, 27, 1508, "792d0b5bd1147bfc9574a1974f157b39fbd4cbed8ecd04cf983fd554498ed477"),
        ("2_annthyroid.npz", 7200, 6, 534, "e738f7c58a8740d2c4aac4c71ff49ce5e1d1aa16f44178135fc9c09df05fad1b"),
        ("3_backdoor.npz", 95329, 196, 2329, ""),
        ("4_breastw.npz", 683, 9, 239, "4f37ce07dbc25ddad8178fdc6d664ab46d2d0000ee28c2787c3c7ff3c03ef9f6"),
        ("5_campaign.npz", 41188, 62, 4640, "74dd4d0072d6c6f1aabab63bc102f9633454f32bb936fa9bcfbd38f9f2386bcd"),
        ("6_cardio.npz", 1831, 21, 176, "bc5009bde6930b4d298b594f31b34485a9a17210cff0e8fb00a8c3068b885a2d"),
        ("7_Cardiotocography.npz", 2114, 21, 466, "5ae84910430f05923e11b6f537243263977c9136949dabd891e3570aeec51e29"),
        ("8_celeba.npz", 202599, 39, 4547, "1cadfdea14cd8d240eca715a70c09c88af8621d086a7478c63f602d97adef0b5"),
        ("9_census.npz", 299285, 500, 18568, ""),
        ("10_cover.npz", 286048, 10, 2747, "945a097c3542ae81a551bf1c06dcad78a755d94f84fcaf1d60687e42d1a656df"),
        ("11_donors.npz", 619326, 10, 36710, "5824ec854465f2763b4bfe3da1ae9f25ed5433b5c6e265d42e37da4f82a58679"),
        ("12_fault.npz", 1941, 27, 673, "ec27301f9a4cf7c5d8b22c360cf37ddb043b7fb062465723dfd8b34e2771e5dd"),
        ("13_fraud.npz", 284807, 29, 492, ""),
        ("14_glass.npz", 214, 7, 9, "aa7a8db1d475ba01a10488af454bc15220a3d5951b010b03b7020567d8152cdc"),
        ("15_Hepatitis.npz", 80, 19, 13, "4a87a2f7d8013e5bfde63294fae61ec7a612322de72f338a7f9491749025ad98"),
        ("16_http.npz", 567498, 3, 2211, "9d98710091551587f4740cfc851a6b064fff6319a337c2dc77ee6da4bcc2e02c"),
        ("17_InternetAds.npz", 1966, 1555, 368, "bdd8ad5cf5bf2cb96cba53dde30d522d0f6a279083a8e2bc7efbac5981b04385"),
        ("18_Ionosphere.npz", 351, 32, 126, "bca46cb0cfd1bf9ddef6cde5ad2215d54fb0189508d0d4c4eb98e788cad69001"),
        ("19_landsat.npz", 6435, 36, 1333, "ba17e2158c07469597b89db49d3982c874c6b713ff6670721ddc88969da77987"),
        ("20_letter.npz", 1600, 32, 100, "f986d3da80cf1fa2aea83a5ebe73b7d4800e0d4c01fdd1ae074b58d20f10d039"),
        ("21_Lymphography.npz", 148, 18, 6, "dad977b04f4ea65b78ccd0e9f76b45175bad605165b37e63f3cc177845e67037"),
        ("22_magic.gamma.npz", 19020, 10, 6688, "0be375984d7af9ea7a63b12206c240840d8b7daa3607021c5fb8756407dd86f1"),
        ("23_mammography.npz", 11183, 6, 260, "a0308ac9712d78321073b1c2dc98dc37665c0f35c1cc33019416fe8f8d7de7ea"),
        ("24_mnist.npz", 7603, 100, 700, "be7706272325fdd3592c1be555ae1a82f916a2f8545f4f8cbaa548ab102cc44c"),
        ("25_musk.npz", 3062, 166, 97, "2ed3f4392197b76a1e59116ff880c7720a4b026cf4842073a53b56fdea265017"),
        ("26_optdigits.npz", 5216, 64, 150, "60de17a375a278ba220a7849727d998aa02b5e2f9fd17732a004bba28de4656e"),
        ("27_PageBlocks.npz", 5393, 10, 510, "10a9b4d5bb5d3b9083caab4c4062f665610eada703c3d927bf7c34b1f2d0d223"),
        ("28_pendigits.npz", 6870, 16, 156, "c4936b89dcdad59d303020e492f763a0f54170080d787c77497609acbb9c2d79"),
        ("29_Pima.npz", 768, 8, 268, "215454bb263a2f040945c9ea7bd7f06f1e89a61a3143bdb6f196e3887e801a7d"),
        ("30_satellite.npz", 6435, 36, 2036, "1f048f5686f1b8c16a227fdfa3c81a62cd9a92715714a6b24c69b1c5ad96b46e"),
        ("31_satimage-2.npz", 5803, 36, 71, "1b056e357f801b8b20c3f380a30224a3c4088d7ed764ec5a24828dc9b1918d6f"),
        ("32_shuttle.npz", 49097, 9, 3511, "26900b0f6be45d9ddb7a402c9b2f956ceda42d23a8ca4cf4406b8bc1352823d1"),
        ("33_skin.npz", 245057, 3, 50859, "d02aa01ffc1b6bf2b8b1ac250c90e8a8eacd0cefc962940ed5cc4bf5deac9c95"),
        ("34_smtp.npz", 95156, 3, 30, "d2569fc9bc12115419e3f5b37d19921e10e6c26e5ad1e61064cfb0fbc402dfdd"),
        ("35_SpamBase.npz", 4207, 57, 1679, "d0c46c7928e43f6496bcd06e09de0b70f6bc8143792dfa0a43f450263d254e9b"),
        ("36_speech.npz", 3686, 400, 61, ""),
        ("37_Stamps.npz", 340, 9, 31, "99fe739447284f613fa54bf2dccdb51c5120175ce6260adec6dad77576c42509"),
        ("38_thyroid.npz", 3772, 6, 93, "8de161b3f235b7647bb0b39a836d983ff61d67bf234edac461da2d71e889cb87"),
        ("39_vertebral.npz", 240, 6, 30, "0816286f92b96fe6867664a41a031ac7228dcfbf1a5feefe50ca3883b2e9073d"),
        ("40_vowels.npz", 1456, 12, 50, "4bfc4244d1c882773bbbc50d4a5db5e52276e53506e46b2d45e02d074cfcb1b6"),
        ("41_Waveform.npz", 3443, 21, 100, "6c9d867337ad1a2f8372c1d27f4c032f0401237e2041b7c45f00de8d319ff30f"),
        ("42_WBC.npz", 223, 9, 10, "650f9dcb129248f67a291be0974f533ef259fcbde50fce5c8ad2a1cb2652d03b"),
        ("43_WDBC.npz", 367, 30, 10, "78d4606a1ab516f5b60b00c196497f3bbd6bd5e4548fd04cf5f2475209b34b85"),
        ("44_Wilt.npz", 4819, 5, 257, "c70b72aa611ec87b20efb400943ef3ce4f8bf7aa58fcef825fbd28cc5cee3cc9"),
        ("45_wine.npz", 129, 13, 10, "d5ad8965d92cc57122fe1e6572bb301adbaf795b3e166d187ae00a704d8f6e20"),
        ("46_WPBC.npz", 198, 33, 47, "68a6d67242643855713bcdad07d89ecc472bd00000dccc17ba87916eb2693d19"),
        ("47_yeast.npz", 1484, 8, 507, "bbb15c873d78a4f6a589f46d0f75814595e2282d2ae7ce7779c750f276c3770d"),
    ]
)


def loader(entry: AdbenchFile) -> Callable[..., Dataset]:
    """The loader of one file: ``X`` as float64 features, ``y`` as 0 / 1 integers (1 = anomaly)."""

    def load(*, files) -> Dataset:
        X, y = read_npz(files[entry.file], "X", "y")
        return Dataset(
            name=entry.name,
            X=np.asarray(X, dtype=np.float64),
            y=np.asarray(y).ravel().astype(np.int64),
            feature_kinds=(NUMERIC,) * X.shape[1],
            provenance=Provenance(source=""),
        )

    load.__doc__ = f"ADBench's {entry.file}: {entry.rows} x {entry.columns}, {entry.anomalies} anomalies (y = 1)."
    return load
