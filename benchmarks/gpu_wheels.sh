#!/usr/bin/env bash
# What benchmarks/gpu_check.sh needs on a lent GPU machine that the machine lacks, gathered here into the
# git-ignored folder .whl/ (it travels with the run call's carry; docs/gpu.md, "Checking on a lent GPU"):
#
# * wheels for Python 3.12 on x86-64 Linux of kpca-bench's requirements that the machine's image lacks
#   (/work/.library/device/KINDS.md lists what it has: NumPy, SciPy, scikit-learn, pandas, PyTorch, CuPy, ...),
#   and of theirs; setuptools, to build kpca-bench there from the checkout; array-api-strict for --dry-run;
# * data/: the letter and MNIST files of benchmarks/bench_gpu.py (from KPCA_BENCH_DATA).
#
# Then it checks here that the set resolves: a Python 3.12 stand-in of the machine's environment (/tmp/gpu-standin,
# with only the packages of the image that kpca-bench's requirements name, at the image's versions where KINDS.md
# records them) resolves kpca-bench's install from the checkout with pip --dry-run --no-index --find-links .whl, as
# gpu_check.sh installs it there. The image's other versions are not known here: gpu_check.sh's install step prints
# them and runs pip check first thing on the machine.
#
#   bash benchmarks/gpu_wheels.sh            # in the repository root; needs PyPI and KPCA_BENCH_DATA
set -euo pipefail
cd "$(dirname "$0")/.."
WHEELS=.whl
DATA=${KPCA_BENCH_DATA:-/work/shared/datasets}
PYTHON312=${PYTHON312:-}  # the machine's Python is 3.12: the first of these that runs, unless given
for candidate in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    [ -z "$PYTHON312" ] && "$candidate" -c '' 2>/dev/null && PYTHON312=$candidate
done
STANDIN=/tmp/gpu-standin

rm -rf "$WHEELS" && mkdir -p "$WHEELS/data"
# One version of each (two stop the whole install): the versions the development environment runs.
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$WHEELS" \
    openml==0.15.1 scikit-posthocs==0.17.1 mdit-py-plugins==0.7.0 array-api-compat==1.16.0 \
    array-api-strict==2.6.1 xmltodict==1.0.4 minio==7.2.20 argon2-cffi==25.1.0 argon2-cffi-bindings==26.2.0 \
    cffi==2.1.1 pycparser==3.12 pycryptodome==4.4.0 setuptools==84.2.1
# liac-arff (openml's ARFF reader) is published as a source archive only: built here into its pure-Python wheel.
python3 -m pip wheel -q --no-deps -w "$WHEELS" liac-arff==2.5.0
cp -r "$DATA/letter_recognition" "$DATA/mnist" "$WHEELS/data/"

[ -x "$STANDIN/bin/python" ] || "$PYTHON312" -m venv "$STANDIN"
# The image's packages that kpca-bench and the wheels above require (KINDS.md), nothing else: at the image's
# version where KINDS.md records one (numpy), else PyPI's latest, which may differ from the image's.
"$STANDIN/bin/python" -m pip install -q numpy==2.5.2 scipy scikit-learn pandas matplotlib statsmodels seaborn typer \
    rich pyyaml joblib threadpoolctl networkx filelock jinja2 markdown-it-py pillow requests python-dateutil \
    tqdm pyarrow packaging certifi urllib3 typing-extensions pytest
"$STANDIN/bin/python" -m pip install -q --dry-run --no-index --find-links "$WHEELS" --prefix /tmp/gpu-standin-prefix \
    --report /tmp/gpu-wheels-report.json . array-api-strict
"$STANDIN/bin/python" - <<'EOF'
import json
installed = sorted(f"{item['metadata']['name']} {item['metadata']['version']}"
                   for item in json.load(open("/tmp/gpu-wheels-report.json"))["install"])
print(f"resolves offline on the stand-in: would install {', '.join(installed)}")
EOF
# What the run call sends: the tracked files and the untracked ones git does not ignore, results/ moved aside
# (docs/gpu.md), and .whl; the limit is 64 MiB.
checkout=$(git ls-files -co --exclude-standard -z | grep -zv '^results/' | du -cb --files0-from=- | tail -1 | cut -f1)
wheels=$(du -sb "$WHEELS" | cut -f1)
echo "travels: checkout without results/ $((checkout / 1024)) KiB + .whl $((wheels / 1024)) KiB =" \
     "$(((checkout + wheels) / 1024 / 1024)) MiB of 64 MiB"
