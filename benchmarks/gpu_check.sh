#!/usr/bin/env bash
# The GPU check in one run call on a lent CUDA machine (docs/gpu.md, "Checking on a lent GPU").
#
# kpca-bench's wheel is built from the tree the call sent and installed, with the carried wheels (.whl/,
# benchmarks/gpu_wheels.sh), by pip --no-deps --no-index into a fresh folder: nothing of the machine's image is
# replaced and no resolver can refuse. Then, each step timed and cut short so that the whole ends within
# GPU_CHECK_BUDGET_S (300 s by default: a call that fails can be run again within the session's 15 device minutes):
#
#   install    nvidia-smi; the wheels; each requirement reached from kpca-bench checked against what is installed,
#              and the image's versions set beside benchmarks/gpu_image.txt (benchmarks/gpu_requirements.py; a
#              requirement not met is reported in the step's status, and the steps go on); the imports
#   versions   pip freeze, the libraries' versions and the CUDA device
#   tests      the INSTALLED package's tests/test_gpu.py, test_devices.py and test_array_api.py (pytest from the tree
#              with --import-mode=importlib and no pythonpath: a check at start-up stops the run if kpca_bench comes
#              from anywhere but the install)
#   config     a tiny config with execution: {device: cuda} end to end (kpca-bench run), each record's device and
#              gpu_model, and the run's environment.json gpu entry
#   memory     the device memory plan of each eigensolver (kpca_bench.devices.solver_plan) against the peak memory
#              from the solve to the end of a fit
#   bench      benchmarks/bench_gpu.py on the data in .whl/data, each row written to gpu.md and gpu.tsv as it ends
#
# Whatever happens (a step failing or cut at its limit, the budget running out, SIGTERM or Ctrl-C), it ends with the
# table of the steps: ok, failed (exit N), timed out, cut (SIGTERM), skipped (budget) or not run, in steps.tsv and at
# the end of check.log. Files in $OUT (.gpu/out unless set; at most 8 come back from a call): check.log, steps.tsv,
# pip-freeze.txt, records.parquet, memory.tsv, gpu.md, gpu.tsv.
#
#   bash benchmarks/gpu_check.sh                   # on the GPU machine, in the tree the call sent
#   bash benchmarks/gpu_check.sh --dry-run         # here: everything but CUDA, with no step by hand
#   bash benchmarks/gpu_check.sh --dry-run --quick # here, offline, in a minute or two (tests/test_gpu_check.py)
#
# --dry-run first runs benchmarks/gpu_wheels.sh (the carried wheels and the Python 3.12 stand-in of the machine's
# image, .gpu/standin), copies the tree a call would send (results/ left out, .whl/ with it) into a temporary folder
# and runs every step there with the stand-in's Python: the same install, the GPU tests skipped with their reason,
# the config on the CPU, the memory step with array_api_strict standing in for the device (tracemalloc's peak: what
# NumPy allocates through Python, host arrays too) and the benchmark with --quick. --quick (with --dry-run) takes
# no network and no stand-in: this Python ($PYTHON, else .venv's) with its own packages, no carried wheel, and the
# tests in test_gpu.py and test_devices.py that are not marked slow.
set -uo pipefail  # no -e: a failed step is recorded and the next one runs
export PYTHONUNBUFFERED=1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export DRY=0 QUICK=0
for arg in "$@"; do
    case $arg in
        --dry-run) DRY=1 ;;
        --quick) QUICK=1 ;;
        *) echo "error: unknown option '$arg'; use --dry-run, or --dry-run --quick" >&2; exit 2 ;;
    esac
done
if [ "$QUICK" = 1 ] && [ "$DRY" = 0 ]; then
    echo "error: --quick is a dry run's subset; use --dry-run --quick" >&2
    exit 2
fi
export OUT=${OUT:-$ROOT/.gpu/out} WORK
WORK=$(mktemp -d)
BUDGET=${GPU_CHECK_BUDGET_S:-300}
export TREE=$ROOT SITE=$WORK/site
if [ "$DRY" = 0 ]; then
    PYTHON=${PYTHON:-python3}
elif [ "$QUICK" = 1 ]; then
    PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
else
    PYTHON=${PYTHON:-$ROOT/.gpu/standin/bin/python}
fi
export PYTHON
mkdir -p "$OUT"
rm -f "$OUT"/{check.log,steps.tsv,pip-freeze.txt,records.parquet,memory.tsv,gpu.md,gpu.tsv}
exec > >(tee -a "$OUT/check.log") 2>&1
TEE=$!

STEPS=(install versions tests config memory bench)
[ "$DRY" = 1 ] && STEPS=(copy "${STEPS[@]}")
[ "$DRY" = 1 ] && [ "$QUICK" = 0 ] && STEPS=(wheels "${STEPS[@]}")
declare -A STATUS SPENT
CURRENT="" PID="" STARTED=$(date +%s)

step() {  # step NAME MAX_SECONDS [free]: run the function NAME, cut short where the budget would otherwise run out
    local name=$1 limit=$2 left=$((BUDGET - SECONDS - 10)) start=$SECONDS rc
    [ "${3:-}" = free ] && left=$limit  # the dry run's preparation, before the budget's clock starts
    if [ "$left" -lt 20 ]; then
        echo "== $name: skipped, ${left} s left of the budget"
        STATUS[$name]="skipped (budget)"
        return 1
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    echo "== $name: at most $limit s (at $SECONDS s)"
    CURRENT=$name
    # In the background and waited for: a SIGTERM to this script runs its trap at once, not after the step.
    timeout --kill-after=5 "$limit" bash -c "$name" &
    PID=$!
    wait "$PID"
    rc=$?
    CURRENT="" PID=""
    SPENT[$name]=$((SECONDS - start))
    case $rc in
        0) STATUS[$name]=ok ;;
        124 | 137) STATUS[$name]="timed out (at $limit s)" ;;
        *) STATUS[$name]="failed (exit $rc)" ;;
    esac
    # A step that went on past a problem says so in its status: $WORK/note.NAME (the run's exit code is then 1).
    [ ! -f "$WORK/note.$name" ] || STATUS[$name]+=" ($(cat "$WORK/note.$name"))"
    echo "== $name: ${STATUS[$name]} after ${SPENT[$name]} s"
    return "$rc"
}

summary() {  # the table of the steps, in steps.tsv and the log
    local name failed=0
    printf 'step\tstatus\tseconds\n' > "$OUT/steps.tsv"
    echo "| step | status | seconds |"
    echo "|---|---|---|"
    for name in "${STEPS[@]}"; do
        printf '%s\t%s\t%s\n' "$name" "${STATUS[$name]:-not run}" "${SPENT[$name]:--}" >> "$OUT/steps.tsv"
        echo "| $name | ${STATUS[$name]:-not run} | ${SPENT[$name]:--} |"
        [ "${STATUS[$name]:-}" = ok ] || failed=1
    done
    return "$failed"
}

stopped() {  # SIGNAL: the step in flight is cut, the table written; exit as the signal would
    echo "== $1 at $SECONDS s"
    [ -z "$PID" ] || kill -TERM "$PID" 2>/dev/null
    [ -z "$CURRENT" ] || STATUS[$CURRENT]="cut ($1)"
    exit 143
}

finish() {  # at exit, whatever ended the script: the table, then tee's last lines into check.log
    local rc=$?
    trap - EXIT
    echo "== gpu_check.sh ends after $SECONDS s of the budget's clock, $(($(date +%s) - STARTED)) s in all"
    summary || [ "$rc" -ne 0 ] || rc=1
    rm -rf "$WORK"
    exec >&- 2>&-
    wait "$TEE"
    exit "$rc"
}
trap finish EXIT
trap 'stopped SIGTERM' TERM
trap 'stopped SIGINT' INT

wheels() {
    bash "$ROOT/benchmarks/gpu_wheels.sh"
}

copy() {  # what a call sends, results/ left out; the steps run there, as on the machine
    bash "$ROOT/benchmarks/gpu_tree.sh" copy "$WORK/tree"
    if [ "$QUICK" = 1 ]; then rm -rf "$WORK/tree/.whl"; fi
    echo "the tree a call sends, .whl/ with it: $(($(du -sb "$WORK/tree" | cut -f1) / 1024 / 1024)) MiB of 64 MiB"
}

install() {
    [ "$DRY" = 1 ] || nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version --format=csv
    local wheels=() carried=()
    [ -d .whl ] && carried=(.whl/*.whl)
    # kpca-bench's wheel, built offline: with the carried setuptools where there is one (the image's may be too old).
    if [ -f .whl/setuptools-*.whl ]; then
        "$PYTHON" -m pip install -q --no-index --no-deps --target "$WORK/build" .whl/setuptools-*.whl || return
    fi
    PYTHONPATH=$WORK/build "$PYTHON" -m pip wheel -q --no-deps --no-index --no-build-isolation -w "$WORK/dist" . \
        || return
    wheels=("$WORK"/dist/kpca_bench-*.whl)
    for wheel in "${carried[@]}"; do [[ $wheel == */setuptools-* ]] || wheels+=("$wheel"); done
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" "${wheels[@]}" \
        || return
    echo "installed into $SITE: ${wheels[*]##*/}"
    # Reported, not fatal: the steps that follow show whether a requirement not met matters on the machine.
    PYTHONPATH=$SITE "$PYTHON" benchmarks/gpu_requirements.py --image benchmarks/gpu_image.txt kpca-bench \
        array-api-strict || echo "requirements missing or not met, in check.log" > "$WORK/note.install"
    (cd "$WORK" && PYTHONPATH=$SITE "$PYTHON" -c "import kpca_bench.cli, kpca_bench.report.html, scikit_posthocs, \
array_api_strict; print('imports: kpca_bench from', kpca_bench.__file__)")
}

versions() {
    "$PYTHON" -m pip freeze > "$OUT/pip-freeze.txt"
    cd "$WORK" && "$PYTHON" - <<'EOF'  # outside the tree: the kpca_bench that was installed
import platform
from importlib.metadata import version

import kpca_bench
from kpca_bench.devices import DeviceError, cuda_library, gpu_model

print(f"Python {platform.python_version()}; kpca-bench from {kpca_bench.__file__}")
print(", ".join(f"{name} {version(name)}" for name in ("numpy", "scipy", "scikit-learn", "pandas", "array-api-compat")))
try:
    xp, device = cuda_library()
    print(f"CUDA through {xp.__name__}: {gpu_model(xp, device)}")
except DeviceError as error:
    print(f"no CUDA device: {error}")
EOF
}

tests() {
    local selection=(tests/test_gpu.py tests/test_devices.py tests/test_array_api.py)
    [ "$QUICK" = 1 ] && selection=(tests/test_gpu.py tests/test_devices.py -m "not slow")
    # The installed package, not the tree's: no pythonpath from pyproject.toml, no test folder on sys.path, no working
    # folder first on it (PYTHONSAFEPATH), and a plugin that stops the run otherwise.
    mkdir -p "$WORK/plugin"
    cat > "$WORK/plugin/installed_only.py" <<'EOF'
import os

import pytest


def pytest_configure(config):
    import kpca_bench

    where = os.path.realpath(kpca_bench.__file__)
    if not where.startswith(os.path.realpath(os.environ["SITE"]) + os.sep):
        raise pytest.UsageError(f"kpca_bench comes from {where}, not from the install in {os.environ['SITE']}")
    print(f"testing the installed kpca_bench: {where}")
EOF
    PYTHONPATH=$SITE:$WORK/plugin PYTHONSAFEPATH=1 "$PYTHON" -m pytest "${selection[@]}" -p installed_only \
        --import-mode=importlib -o pythonpath= -p no:cacheprovider -q -rs
}

config() {
    local device=cuda
    [ "$DRY" = 1 ] && device=cpu
    { cat configs/quickstart.yaml; echo "execution: {device: $device}"; } > "$WORK/quickstart.yaml"
    (cd "$WORK" && kpca-bench run "$WORK/quickstart.yaml" --out "$WORK/runs" --trials 1 --quiet) || return
    cp "$WORK/runs/quickstart/records.parquet" "$OUT/records.parquet"
    "$PYTHON" - "$WORK/runs/quickstart" <<'EOF'
import json
import sys
from pathlib import Path

from kpca_bench.experiment.store import ResultStore

folder = Path(sys.argv[1])
for record in ResultStore(folder).records():
    print(f"{record['method']:<18} {record['status']:<6} device={record['device']} gpu_model={record.get('gpu_model')}")
print("environment.json gpu:", json.loads((folder / "environment.json").read_text())["environments"][-1].get("gpu"))
EOF
}

memory() {
    cd "$WORK" && "$PYTHON" - <<'EOF'
import os
import time

import numpy as np

from kpca_bench.devices import solver_plan
from kpca_bench.eigensolvers import block_sizes
from kpca_bench.methods import kpca

dry = os.environ["DRY"] == "1"
n, d, k = (600, 8, 5) if dry else (10_000, 16, 20)
if dry:  # array_api_strict's arrays are NumPy's, whose allocations tracemalloc counts (host arrays too)
    import tracemalloc

    import array_api_strict

    tracemalloc.start()
    allocated, peak, reset = (lambda: tracemalloc.get_traced_memory()[0], lambda: tracemalloc.get_traced_memory()[1],
                              tracemalloc.reset_peak)
    on_device, params = array_api_strict.asarray, {}
else:
    import torch

    allocated, peak, reset = torch.cuda.memory_allocated, torch.cuda.max_memory_allocated, torch.cuda.reset_peak_memory_stats
    on_device, params = (lambda X: X), {"device": "cuda"}

solve, at_solve = kpca.top_eigenpairs, {}


def measured(*args, **kwargs):
    at_solve["bytes"] = allocated()
    reset()
    return solve(*args, **kwargs)


kpca.top_eigenpairs = measured  # the peak from the solve to the end of the fit (the kernel's build left out)
X = np.random.default_rng(0).standard_normal((n, d))
base = (n * n + n * (d + 2)) * 8  # the kernel, the data and two n-vectors: what the fit holds when the solve starts
lines = ["solver\tn\td\tk\tplanned MiB\tat solve MiB\tpeak MiB\tpeak / planned\tseconds"]
for solver in ("eigh", "arpack", "block"):
    start = time.perf_counter()
    model = kpca.KernelPCA(k, eigen_solver=solver, random_state=0, gamma=0.05, **params).fit(on_device(X))
    seconds = time.perf_counter() - start
    # On the device the counts are absolute; on the CPU the fit's own share is what was added after the solve began.
    held = peak() if not dry else base + peak() - at_solve["bytes"]
    at_start = at_solve["bytes"] if not dry else base
    block, basis = block_sizes(k)
    planned = solver_plan(solver, k, basis, block).numbers(n, d) * 8
    lines.append(f"{solver}\t{n}\t{d}\t{k}\t{planned / 2**20:.1f}\t{at_start / 2**20:.1f}\t{held / 2**20:.1f}\t"
                 f"{held / planned:.3f}\t{seconds:.2f}")
    del model
print("\n".join(lines))
with open(os.path.join(os.environ["OUT"], "memory.tsv"), "w") as table:
    table.write("\n".join(lines) + "\n")
EOF
}

bench() {  # bench_gpu.py writes each row to gpu.md and gpu.tsv as it ends: a cut leaves the rows so far
    local quick=()
    [ "$DRY" = 1 ] && quick=(--quick)
    [ -d .whl/data ] && export KPCA_BENCH_DATA=$PWD/.whl/data
    "$PYTHON" benchmarks/bench_gpu.py "${quick[@]}" --out "$OUT/gpu.md" && cat "$OUT/gpu.md"
}

export -f wheels copy install versions tests config memory bench
export ROOT
echo "== gpu_check.sh $*, on $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC'), budget $BUDGET s, Python $PYTHON"
if [ "$DRY" = 1 ]; then
    if [ "$QUICK" = 0 ]; then step wheels 900 free || exit 1; fi
    step copy 120 free || exit 1
    TREE=$WORK/tree
    SECONDS=0  # the budget counts from here, as on the machine
fi
cd "$TREE" || exit 1
step install 150 || exit 1  # nothing else can run
export PATH=$SITE/bin:$PATH PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
[ -d .whl/data ] && export KPCA_BENCH_DATA=$TREE/.whl/data
step versions 60
step tests 180
step config 90
step memory 90
step bench 300
exit 0  # finish (the EXIT trap) makes it 1 unless every step was ok
