"""Every paper value in reproductions/*/reference/numbers.yaml is read back from the paper's own text.

The papers' texts are in the folder KPCA_BENCH_PAPERS names, else in ``papers/`` beside the first folder of
KPCA_BENCH_DATA (the shared folder: ``../shared/datasets`` and ``../shared/papers``). Each entry's ``source`` (a
table, a passage) is found in its paper and the value read from the cell or sentence it names: Li et al.'s
Tables I-II and Wang & Tanaka's Tables 3-5 cell by cell, Das et al.'s section V sentence by sentence (the AUROCs
in the order the sentence names the methods) and the mean of its Table I column, Shen & Asgharzadeh's values in
the section's text. So a paper value changed in a numbers.yaml fails here.
"""

import os
import re
from pathlib import Path

import pytest
import yaml

REPRODUCTIONS = Path(__file__).resolve().parents[1] / "reproductions"
PAPER_FILES = {"das": "das-*.txt", "li": "li-*.txt", "sas": "shen-*.txt", "wang": "wang-*.txt"}
NUMBER = r"\d+(?:\.\d+)?"


def papers_folder() -> Path:
    """The folder of the papers' texts; skips (fails under KPCA_BENCH_REQUIRE_DATA=1) where there is none."""
    named = os.environ.get("KPCA_BENCH_PAPERS")
    data = [e for e in os.environ.get("KPCA_BENCH_DATA", "").split(os.pathsep) if e]
    folder = Path(named) if named else (Path(data[0]).parent / "papers" if data else None)
    if folder is not None and folder.is_dir():
        return folder
    reason = (
        f"no papers' texts: KPCA_BENCH_PAPERS={named!r}, KPCA_BENCH_DATA={os.environ.get('KPCA_BENCH_DATA')!r}; "
        "set KPCA_BENCH_PAPERS to the papers folder (e.g. ../shared/papers) to check numbers.yaml against them"
    )
    if os.environ.get("KPCA_BENCH_REQUIRE_DATA") == "1":
        pytest.fail(f"papers required (KPCA_BENCH_REQUIRE_DATA=1) but {reason}")
    pytest.skip(reason)


def paper_text(folder: Path, reproduction: str) -> str:
    (path,) = folder.glob(PAPER_FILES[reproduction])
    return path.read_text()


def table_lines(text: str, start: str, stop: str) -> list[str]:
    """The lines of ``text`` from the line starting with ``start`` to the next line starting with ``stop``."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    last = next(i for i in range(first + 1, len(lines)) if lines[i].startswith(stop))
    return lines[first:last]


def numbers(cell: str) -> list[float]:
    return [float(n) for n in re.findall(NUMBER, re.sub(r"<[^>]+>", "", cell))]


# Li et al.: per dataset five rows (best, minimum, 25 %, median, 75 %), columns MD, RE, OCSVM.
LI_ROWS = ("auroc_best", "auroc_min", "auroc_q25", "auroc_median", "auroc_q75")
LI_COLUMNS = ("MD", "RE", "OCSVM")


def li_value(text: str, entry: dict) -> float:
    table = entry["source"].split()[-1]  # "Table I" -> "I"
    lines = (
        table_lines(text, f"TABLE {table} ", f"In Table {table},")
        if table == "I"
        else table_lines(text, f"TABLE {table} ", "Fig. 9")
    )
    start = next(i for i, line in enumerate(lines) if line.split("\t")[0] == entry["dataset"])
    row = lines[start + LI_ROWS.index(entry["metric"])].split("\t")[1:]
    return numbers(row[LI_COLUMNS.index(entry["method"])])[0]


# Wang & Tanaka: Tables 3-5, a row per method, columns accuracy, precision, recall, F1 score, sparsity.
WANG_COLUMNS = {
    "accuracy_mean": 0,
    "precision_mean": 1,
    "recall_mean": 2,
    "f1_mean": 3,
    "sample_sparsity_mean": 4,
    "sv_sparsity_mean": 4,
}


def wang_method(cell: str) -> str:
    """``SKPCA- $l_{2,1}$ +SVM`` -> ``SKPCA-l2,1+SVM``, the label of the configs."""
    return re.sub(r"[\s${}_]", "", cell)


def wang_value(text: str, entry: dict) -> float:
    number = entry["source"].split()[-1]
    lines = table_lines(text, f"Table {number}:", f"Table {int(number) + 1}:" if number != "5" else "sen from")
    rows = {wang_method(line.split("\t")[0]): line.split("\t")[1:] for line in lines if "\t" in line}
    return numbers(rows[entry["method"]][WANG_COLUMNS[entry["metric"]]].split("\\pm")[0])[0]


# Das et al.: section V, a paragraph per dataset; Table I, the F1 of 10 trials.
DAS_PARAGRAPHS = {
    "MNIST": "MNIST:",
    "Fashion-MNIST": "Fashion MNIST:",
    "Satimage-2": "Satimage2:",
    "ETH-80": "ETH-80:",
    "Internet Ads": "Internet Ads:",
}
DAS_AUROC_ORDER = ("SKPCA", "KPCA", "Wang-Tanaka", "Naive thresholding")


def das_value(text: str, entry: dict) -> float:
    if entry["source"].startswith("Table I"):
        rows = [line.split("\t") for line in table_lines(text, "Trial No.", "TABLE I:")[2:] if line.strip()]
        return round(sum(float(row[1]) for row in rows) / len(rows), 4)
    start = text.index("\n" + DAS_PARAGRAPHS[entry["dataset"]])
    paragraph = text[start : text.index(" respectively.", text.index("AUROC", start))]
    if entry["metric"] == "sparsity_mean":
        return float(re.search(rf"sparsity for the 10 trials were ({NUMBER})%", paragraph).group(1))
    aurocs = re.search(rf"were ({NUMBER}), ({NUMBER}), ({NUMBER}) and ({NUMBER})$", paragraph).groups()
    return float(aurocs[DAS_AUROC_ORDER.index(entry["method"])])


# Shen & Asgharzadeh: a section per example, the values in its prose ("3%" or "0.1596").
def sas_values(text: str, entry: dict) -> set[float]:
    heading = entry["source"].removesuffix(" (text)")
    headings = ("Dimension Reduction", "Novelty Detection", "Fast KPCA", "Conclusions", "References")
    lines = text.splitlines()
    start = max(i for i, line in enumerate(lines) if line.strip() == heading)
    stop = min([i for i, line in enumerate(lines) if i > start and line.strip() in headings] + [len(lines)])
    section = "\n".join(lines[start:stop])
    return {float(n) for n in re.findall(rf"(?<![\w.])({NUMBER})(?![\d%])", section)} | {
        round(float(n) / 100, 6) for n in re.findall(rf"(?<![\w.])({NUMBER})\s?%", section)
    }


READERS = {"das": das_value, "li": li_value, "wang": wang_value}


def pinned(text: str, reproduction: str, entry: dict) -> bool:
    """Whether ``entry``'s value is the paper's, read from the table cell or passage its ``source`` names."""
    if reproduction == "sas":
        return entry["value"] in sas_values(text, entry)
    return READERS[reproduction](text, entry) == pytest.approx(entry["value"], abs=1e-9)


def entries() -> list:
    cases = []
    for path in sorted(REPRODUCTIONS.glob("*/reference/numbers.yaml")):
        reproduction = path.parents[1].name
        for entry in yaml.safe_load(path.read_text()):
            cases.append(
                pytest.param(
                    reproduction, entry, id=f"{reproduction}-{entry['dataset']}-{entry['method']}-{entry['metric']}"
                )
            )
    return cases


ENTRIES = entries()


def test_every_reproduction_with_numbers_has_its_paper_here():
    assert {case.values[0] for case in ENTRIES} == set(PAPER_FILES)


@pytest.mark.parametrize("reproduction, entry", ENTRIES)
def test_the_value_is_the_papers(reproduction, entry):
    text = paper_text(papers_folder(), reproduction)
    assert pinned(text, reproduction, entry), (
        f"{entry['value']} is not in {entry['source']} of the paper "
        f"({entry['dataset']}, {entry['method']}, {entry['metric']})"
    )


@pytest.mark.parametrize("reproduction", sorted(PAPER_FILES))
def test_a_changed_value_is_caught(reproduction):
    text = paper_text(papers_folder(), reproduction)
    for case in (case for case in ENTRIES if case.values[0] == reproduction):
        entry = case.values[1]
        assert not pinned(text, reproduction, {**entry, "value": round(entry["value"] + 0.1, 6)})


def test_ionosphere_kpca_error_changed_from_0_03_to_0_13_fails():
    text = paper_text(papers_folder(), "sas")
    entry = {"source": "Dimension Reduction (text)", "dataset": "Ionosphere", "method": "KPCA + LDA", "value": 0.03}
    assert pinned(text, "sas", entry) and not pinned(text, "sas", {**entry, "value": 0.13})
