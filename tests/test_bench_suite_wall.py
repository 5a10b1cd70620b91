"""benchmarks/bench_suite_wall.py: a suite's wall time from nothing, with the load beside it, as a TSV row."""

import csv
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.mark.slow  # a whole (small) run
def test_a_run_from_nothing_is_one_row_with_its_cells_and_load(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    bench = importlib.import_module("bench_suite_wall")
    out = tmp_path / "wall.tsv"
    assert bench.main([str(ROOT / "configs" / "quickstart.yaml"), "--path", "joblib", "--workers", "1",
                       "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open(), delimiter="\t"))
    assert len(rows) == 1 and list(rows[0]) == list(bench.COLUMNS)
    row = rows[0]
    assert (row["path"], row["workers"], row["exit_code"], row["profile"]) == ("joblib", "1", "0", "full")
    assert int(row["cells"]) == 40 and float(row["wall_s"]) > 0
    assert float(row["load_max"]) >= 0 and row["commit"]
