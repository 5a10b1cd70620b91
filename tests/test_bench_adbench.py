"""benchmarks/bench_adbench.py: a suite's wall time from nothing, with the load beside it, as a TSV row."""

import csv
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.mark.slow  # a whole (small) run
def test_a_run_from_nothing_is_one_row_with_its_cells_and_load(monkeypatch, tmp_path, capsys):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    bench = importlib.import_module("bench_adbench")
    table = tmp_path / "wall.tsv"
    bench.main(
        [
            "--config",
            str(ROOT / "configs" / "quickstart.yaml"),
            "--jobs",
            "1",
            "--out",
            str(tmp_path / "run"),
            "--table",
            str(table),
        ]
    )
    rows = list(csv.DictReader(table.open(), delimiter="\t"))
    assert len(rows) == 1 and list(rows[0]) == list(bench.WALL_COLUMNS)
    row = rows[0]
    assert (row["path"], row["workers"], row["exit_code"], row["profile"]) == ("joblib", "1", "0", "full")
    assert int(row["cells"]) == 40 and float(row["wall_s"]) > 0 and float(row["load_max"]) >= 0
    assert "40 cells on 1 datasets, 0 failed" in capsys.readouterr().out
