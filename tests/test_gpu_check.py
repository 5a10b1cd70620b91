"""The GPU check that a lent device runs in one call (benchmarks/gpu_check.sh and its helpers gpu_tree.sh,
gpu_requirements.py, and bench_gpu.py's row-by-row tables): it stops itself with its table of steps whatever
happens, ships the tree without results/, tests the installed package, and its dry run passes here offline."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).parents[1]
CHECK = ROOT / "benchmarks" / "gpu_check.sh"
STEPS = ["copy", "install", "versions", "tests", "config", "memory", "bench"]


def load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def steps(out: Path) -> dict[str, str]:
    table = pd.read_csv(out / "steps.tsv", sep="\t", dtype=str)
    return dict(zip(table["step"], table["status"]))


def quick_check(out: Path, **env) -> subprocess.Popen:
    environment = {**os.environ, "OUT": str(out), "PYTHON": sys.executable, **env}
    return subprocess.Popen(
        ["bash", str(CHECK), "--dry-run", "--quick"],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def test_a_benchmark_cut_short_leaves_the_rows_it_finished(tmp_path, monkeypatch):
    bench = load("bench_gpu")
    monkeypatch.delenv("KPCA_BENCH_DATA", raising=False)
    real = bench.load_case

    def cut_at_the_second_case(case, quick):
        if case.name != "letters":
            raise SystemExit(143)  # what the SIGTERM handler raises
        return real(case, quick)

    monkeypatch.setattr(bench, "load_case", cut_at_the_second_case)
    with pytest.raises(SystemExit):
        bench.main(["--quick", "--out", str(tmp_path / "gpu.md")])
    table = (tmp_path / "gpu.md").read_text()
    assert "| letters | 300 | 10 | device (array_api_strict) float64 |" in table
    assert "Cut short (SystemExit) after 4 rows: the targets are not judged." in table and "Targets" not in table
    rows = pd.read_csv(tmp_path / "gpu.tsv", sep="\t")
    assert list(rows["case"]) == ["letters"] * 4 and rows["time (s)"].gt(0).all()
    assert rows["data"].str.startswith("random integers").all()


def test_the_tree_copy_leaves_results_out_and_keeps_the_configs_link(tmp_path):
    subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_tree.sh"), "copy", str(tmp_path / "tree")], check=True)
    tree = tmp_path / "tree"
    assert (tree / "pyproject.toml").is_file() and (tree / "benchmarks" / "gpu_check.sh").is_file()
    assert (tree / "configs").is_symlink() and (tree / "configs" / "quickstart.yaml").is_file()
    assert not (tree / "results").exists()


def test_slim_leaves_results_out_of_the_tree_and_full_puts_it_back(tmp_path):
    def git(*args):
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "gpu_tree.sh").write_text((ROOT / "benchmarks" / "gpu_tree.sh").read_text())
    (tmp_path / "results" / "demo").mkdir(parents=True)
    (tmp_path / "results" / "records.jsonl").write_text("{}\n" * 1000)
    (tmp_path / ".gitignore").write_text("results/demo/\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "tree")
    (tmp_path / "results" / "demo" / "cache.json").write_text(
        "{}"
    )  # ignored: a sparse checkout in cone mode deletes it

    def tree(command):
        return subprocess.run(["bash", "benchmarks/gpu_tree.sh", command], cwd=tmp_path, capture_output=True, text=True)

    slim = tree("slim")
    assert slim.returncode == 0 and slim.stdout.startswith("travels: checkout ") and "of 64 MiB" in slim.stdout
    assert not (tmp_path / "results" / "records.jsonl").exists() and git("status", "--porcelain") == ""
    assert (tmp_path / "results" / "demo" / "cache.json").exists()
    assert tree("full").returncode == 0 and (tmp_path / "results" / "records.jsonl").stat().st_size == 3000
    (tmp_path / "results" / "new.md").write_text("a finding not yet committed")
    refused = tree("slim")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "commit or stash" in refused.stderr
    assert (tmp_path / "results" / "records.jsonl").exists()


def test_an_unknown_tree_command_is_one_line_and_exit_2():
    done = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_tree.sh"), "move"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "slim, full, size or copy DIR" in done.stderr


def test_requirements_missing_or_unmet_are_named(tmp_path, capsys):
    requirements = load("gpu_requirements")
    assert requirements.problems(["kpca-bench"])[0] == []
    assert requirements.problems(["no-such-distribution"])[0] == ["no-such-distribution: missing"]
    pins = tmp_path / "image.txt"
    pins.write_text(f"# the image\nnumpy=={__import__('numpy').__version__}\npandas==0.0.1  # old\n")
    assert requirements.image_differences(pins) == [f"pandas {pd.__version__} here, ==0.0.1 in image.txt"]
    assert requirements.main(["no-such-distribution"]) == 1
    assert "1 missing or not met" in capsys.readouterr().out


def test_the_check_out_of_budget_skips_and_still_writes_its_table(tmp_path):
    check = quick_check(tmp_path, GPU_CHECK_BUDGET_S="5")
    output, _ = check.communicate(timeout=120)
    assert check.returncode == 1, output
    assert steps(tmp_path) == {"copy": "ok", "install": "skipped (budget)", **{name: "not run" for name in STEPS[2:]}}
    assert "| install | skipped (budget) | - |" in (tmp_path / "check.log").read_text()


def test_the_check_stopped_by_sigterm_writes_its_table(tmp_path):
    check = quick_check(tmp_path)
    log, deadline = tmp_path / "check.log", time.monotonic() + 120
    while not (log.exists() and "== install: at most" in log.read_text()):
        assert time.monotonic() < deadline and check.poll() is None
        time.sleep(0.2)
    os.kill(check.pid, signal.SIGTERM)
    output, _ = check.communicate(timeout=60)
    assert check.returncode == 143, output
    assert steps(tmp_path) == {"copy": "ok", "install": "cut (SIGTERM)", **{name: "not run" for name in STEPS[2:]}}


def test_quick_without_dry_run_is_refused_in_one_line():
    done = subprocess.run(["bash", str(CHECK), "--quick"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr == "error: --quick is a dry run's subset; use --dry-run --quick\n"


@pytest.mark.slow
def test_the_quick_dry_run_passes_on_the_installed_package(tmp_path):
    check = quick_check(tmp_path)
    output, _ = check.communicate(timeout=300)
    assert check.returncode == 0, output
    assert steps(tmp_path) == dict.fromkeys(STEPS, "ok")
    log = (tmp_path / "check.log").read_text()
    tested = re.search(r"testing the installed kpca_bench: (\S+)", log)
    assert tested and "/site/kpca_bench/" in tested[1] and not tested[1].startswith(str(ROOT))
    assert re.search(r"\d+ passed, \d+ skipped", log)
    rows = pd.read_csv(tmp_path / "gpu.tsv", sep="\t")
    assert len(rows) == 6 and "Targets, met or not as measured above:" in (tmp_path / "gpu.md").read_text()
    # What a device call brings back: at most 8 files, named in letters, digits, '.', '_' and '-'.
    files = sorted(path.name for path in tmp_path.iterdir())
    assert files == ["check.log", "gpu.md", "gpu.tsv", "memory.tsv", "pip-freeze.txt", "records.parquet", "steps.tsv"]
