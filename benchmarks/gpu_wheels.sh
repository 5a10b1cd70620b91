#!/usr/bin/env bash
# What benchmarks/gpu_check.sh needs on a lent GPU machine that the machine lacks, gathered here into the
# git-ignored folder .whl/ (the run call carries it; docs/gpu.md, "Checking on a lent GPU"), and checked here:
#
# * wheels for Python 3.12 on x86-64 Linux of kpca-bench's requirements that the machine's image lacks
#   (/work/.library/device/KINDS.md lists what it has), and of theirs; array-api-strict (the tests' stand-in
#   library); setuptools, to build kpca-bench's wheel there offline;
# * data/: the letter and MNIST files of benchmarks/bench_gpu.py (from KPCA_BENCH_DATA).
#
# The check: a Python 3.12 stand-in of the machine (.gpu/standin: the image's packages that kpca-bench, its tests
# and the wheels need, at the versions of benchmarks/gpu_image.txt) resolves kpca-bench's install from the checkout
# together with every carried wheel offline (pip --dry-run --no-index --find-links .whl), and pip must install
# exactly the carried set and kpca-bench: none of the image's packages replaced, none missing.
#
#   bash benchmarks/gpu_wheels.sh            # in the repository root; needs PyPI the first time, and KPCA_BENCH_DATA
#
# Downloads and the stand-in are made once (.whl/READY and .gpu/standin/READY name what they were made from);
# the offline check runs every time.
set -euo pipefail
cd "$(dirname "$0")/.."
WHEELS=.whl
DATA=${KPCA_BENCH_DATA:-/work/shared/datasets}
STANDIN=.gpu/standin
# One version of each (two stop the whole install).
CARRIED=(openml==0.15.1 scikit-posthocs==0.17.1 mdit-py-plugins==0.7.0 array-api-compat==1.16.0 array-api-strict==2.6.1
         xmltodict==1.0.4 minio==7.2.20 argon2-cffi==25.1.0 argon2-cffi-bindings==26.2.0 cffi==2.1.1 pycparser==3.12
         pycryptodome==4.4.0 setuptools==84.2.1)
SDIST_ONLY=(liac-arff==2.5.0)  # openml's ARFF reader, published as a source archive only: built into its wheel

python312() {  # the machine's Python is 3.12: the first of these that runs, unless PYTHON312 names one
    local candidate
    for candidate in ${PYTHON312:-} python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
        "$candidate" -c '' 2>/dev/null && { echo "$candidate"; return; }
    done
    echo "error: no Python 3.12 here (the GPU machine's); set PYTHON312 to one" >&2
    return 2
}

made_from() {  # what a folder was made from: its READY file must say the same, or the folder is made again
    printf '%s\n' "$@" | sha256sum | cut -c1-16
}

wheels_stamp=$(made_from "${CARRIED[@]}" "${SDIST_ONLY[@]}")
if [ "$(cat "$WHEELS/READY" 2>/dev/null)" != "$wheels_stamp" ]; then
    [ -d "$DATA/letter_recognition" ] && [ -d "$DATA/mnist" ] || {
        echo "error: no letter_recognition/ and mnist/ in $DATA; set KPCA_BENCH_DATA to the datasets folder" >&2
        exit 2
    }
    rm -rf "$WHEELS" && mkdir -p "$WHEELS/data"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$WHEELS" "${CARRIED[@]}"
    python3 -m pip wheel -q --no-deps -w "$WHEELS" "${SDIST_ONLY[@]}"
    cp -r "$DATA/letter_recognition" "$DATA/mnist" "$WHEELS/data/"
    echo "$wheels_stamp" > "$WHEELS/READY"
fi

standin_stamp=$(made_from "$(cat benchmarks/gpu_image.txt)")
if [ "$(cat "$STANDIN/READY" 2>/dev/null)" != "$standin_stamp" ]; then
    rm -rf "$STANDIN"
    "$(python312)" -m venv "$STANDIN"
    "$STANDIN/bin/python" -m pip install -q -r benchmarks/gpu_image.txt
    echo "$standin_stamp" > "$STANDIN/READY"
fi

report=$(mktemp)
trap 'rm -f "$report"' EXIT
"$STANDIN/bin/python" -m pip install -q --dry-run --no-index --find-links "$WHEELS" --report "$report" \
    . "$WHEELS"/*.whl
"$STANDIN/bin/python" - "$report" "$WHEELS" <<'EOF'
import json
import sys
from pathlib import Path

from packaging.utils import canonicalize_name, parse_wheel_filename

report, wheels = sys.argv[1:]
installs = {canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
            for item in json.loads(Path(report).read_text())["install"]}
carried = {parse_wheel_filename(path.name)[0]: str(parse_wheel_filename(path.name)[1])
           for path in Path(wheels).glob("*.whl")}
extra = {name: version for name, version in installs.items() if name not in carried and name != "kpca-bench"}
if extra:
    sys.exit(f"error: the stand-in of the GPU machine would also need {extra}: carry them (CARRIED in "
             "benchmarks/gpu_wheels.sh) or correct benchmarks/gpu_image.txt")
print(f"resolves offline on the stand-in (Python 3.12, benchmarks/gpu_image.txt): kpca-bench and the "
      f"{len(carried)} carried wheels, nothing of the image replaced")
EOF
"$STANDIN/bin/python" -m pip check
echo "$WHEELS: $(($(du -sb "$WHEELS" | cut -f1) / 1024)) KiB, carried by the run call (gpu_tree.sh size: all it sends)"
