"""The wheel is the product: built from the sources, installed outside any clone, it runs its packaged configs.

No network at test time: the wheel is built without build isolation and installed with ``--no-index``;
its dependencies are this interpreter's.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds and installs the wheel, then runs from it: about 10 s

ROOT = Path(__file__).resolve().parents[1]


def pip(*args, cwd):
    result = subprocess.run(
        [sys.executable, "-m", "pip", *args, "--no-deps", "--no-index", "--quiet"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_NO_INPUT": "1"},
    )
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The wheel built from a copy of the sources (the clone stays untouched) and installed into a bare folder."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "kpca_bench", source / "kpca_bench", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    built = pip("wheel", "--no-build-isolation", "-w", str(tmp / "dist"), str(source), cwd=tmp)
    (wheel,) = (tmp / "dist").glob("kpca_bench-*.whl")
    pip("install", "--target", str(tmp / "site"), str(wheel), cwd=tmp)
    work = tmp / "work"  # outside the clone: nothing of the repository is on the path or under the cwd
    work.mkdir()
    return {"wheel": wheel, "site": tmp / "site", "work": work, "build_output": built.stdout + built.stderr}


def kpca_bench(installed, *args):
    """``python -m kpca_bench ARGS`` from the installed wheel, in the work folder."""
    env = {**os.environ, "PYTHONPATH": str(installed["site"]), "KPCA_BENCH_DATA": str(installed["work"] / "data")}
    return subprocess.run(
        [sys.executable, "-m", "kpca_bench", *args],
        cwd=installed["work"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def kpca_bench_code(installed, code):
    """``python -c CODE`` with the installed wheel on the path, in the work folder."""
    env = {**os.environ, "PYTHONPATH": str(installed["site"])}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=installed["work"], env=env, capture_output=True, text=True, check=True
    )


def test_the_wheel_ships_the_configs_and_the_examples_data(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    packaged = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "kpca_bench" / "configs").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert (
        {
            "kpca_bench/configs/quickstart.yaml",
            "kpca_bench/configs/adbench_classical.yaml",
            "kpca_bench/configs/examples/data/example.csv",
        }
        <= packaged
        <= names
    )
    assert "deprecated" not in installed["build_output"].lower()


def test_the_wheel_carries_the_license(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    (license_file,) = [name for name in names if name.endswith(".dist-info/licenses/LICENSE")]
    text = zipfile.ZipFile(installed["wheel"]).read(license_file).decode()
    assert "BSD 3-Clause License" in text and "the kpca-bench developers" in text


def test_the_installed_package_is_the_wheel(installed):
    result = kpca_bench_code(installed, "import kpca_bench; print(kpca_bench.__file__)")
    assert Path(result.stdout.strip()).is_relative_to(installed["site"]), result.stdout


def test_init_then_run_from_the_wheel(installed):
    init = kpca_bench(installed, "init", "mine")
    assert init.returncode == 0, init.stderr
    assert (installed["work"] / "mine" / "examples" / "data" / "example.csv").is_file()
    again = kpca_bench(installed, "init", "mine")
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "--force" in again.stderr
    for config in ("quickstart", "mine/examples/csv.yaml"):
        result = kpca_bench(installed, "run", config, "--trials", "1", "--out", "out", "--offline", "--quiet")
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert (installed["work"] / "out" / "quickstart" / "summary.csv").is_file()
    assert (installed["work"] / "out" / "example_csv" / "summary.csv").is_file()
