#!/usr/bin/env bash
# Issue 34's GPU check in one run call on a lent CUDA machine (docs/gpu.md, "Checking on a lent GPU").
#
# kpca-bench is installed from this checkout into a fresh prefix without network: pip resolves its requirements
# against the machine's own packages (NumPy, SciPy, scikit-learn, pandas, PyTorch, CuPy, ...) and the wheels in .whl/
# (benchmarks/gpu_wheels.sh). Then, each step timed and cut short so that the whole ends within GPU_CHECK_BUDGET_S
# (300 s by default: a device call that fails can then be run again within the session's 15 minutes of device time,
# the machine's start included):
#
#   tests      tests/test_gpu.py
#   config     a tiny config with execution: {device: cuda} end to end (kpca-bench run), each record's device and
#              gpu_model, and the run's environment.json gpu entry
#   memory     the device memory plan of each eigensolver (kpca_bench.devices.solver_plan) against the peak memory
#              from the solve to the end of a fit
#   bench      benchmarks/bench_gpu.py on the data in .whl/data
#
# Logs and tables go to $OUT: check.log (everything), steps.tsv (each step's seconds and exit code), pip-freeze.txt,
# records.jsonl, memory.tsv and gpu.md (the benchmark's table).
#
#   bash benchmarks/gpu_check.sh                                               # on the GPU machine
#   PYTHON=/tmp/gpu-standin/bin/python bash benchmarks/gpu_check.sh --dry-run  # here, on the CPU
#
# --dry-run takes every step up to the GPU: the same install, the GPU tests skipped with their reason, the config on
# the CPU, the memory step with array_api_strict arrays standing in for the device (tracemalloc's peak: what NumPy
# allocates through Python, host arrays too; LAPACK's workspace for eigh only from NumPy 2.5 on, which also copies
# the input, so eigh's figure there says little: docs/gpu.md) and the benchmark with --quick.
set -uo pipefail  # no -e: a failed step is written to steps.tsv and the next one runs
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
export DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1
export OUT=${OUT:-/tmp/gpu-check-out} PYTHON=${PYTHON:-python3} WORK=$(mktemp -d)
export PREFIX=$WORK/prefix
BUDGET=${GPU_CHECK_BUDGET_S:-300}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/check.log") 2>&1
TEE=$!
printf 'step\tseconds\texit\n' > "$OUT/steps.tsv"
FAILED=0

step() {  # step NAME MAX_SECONDS: run the function NAME, cut short where the budget would otherwise run out
    local name=$1 limit=$2 left=$((BUDGET - SECONDS - 10)) start=$SECONDS rc
    if [ "$left" -lt 20 ]; then
        echo "== $name: skipped, ${left} s left of the budget"
        printf '%s\t-\tskipped\n' "$name" >> "$OUT/steps.tsv"
        FAILED=1
        return 1
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    echo "== $name: at most $limit s (at $SECONDS s)"
    timeout --kill-after=5 "$limit" bash -c "$name"
    rc=$?
    printf '%s\t%s\t%s\n' "$name" "$((SECONDS - start))" "$rc" >> "$OUT/steps.tsv"
    echo "== $name: exit $rc after $((SECONDS - start)) s"
    [ "$rc" -eq 0 ] || FAILED=1
    return "$rc"
}

site_packages() {  # where the install put kpca_bench
    dirname "$(find "$PREFIX" -type d -name kpca_bench -path '*-packages/*' | head -1)"
}

install() {
    [ "$DRY" = 1 ] || nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version --format=csv
    "$PYTHON" -m pip install -q --no-index --find-links .whl --no-cache-dir --prefix "$PREFIX" . array-api-strict \
        || return
    # In the first seconds: the version of each requirement as installed, and pip check over the image with the
    # prefix (conflicts of the image's own packages show there too, so they are printed, not fatal).
    local site
    site=$(site_packages)
    PYTHONPATH=$site "$PYTHON" - <<'EOF'
from importlib.metadata import PackageNotFoundError, requires, version

from packaging.requirements import Requirement

for requirement in map(Requirement, requires("kpca-bench")):
    if requirement.marker is None:
        try:
            found = version(requirement.name)
        except PackageNotFoundError:
            found = "missing"
        ok = found != "missing" and requirement.specifier.contains(found, prereleases=True)
        print(f"{requirement.name} {found}" + ("" if ok else f": does not meet {requirement}"))
EOF
    PYTHONPATH=$site "$PYTHON" -m pip check
    echo "pip check: exit $?"
}

versions() {
    "$PYTHON" -m pip freeze > "$OUT/pip-freeze.txt"
    cd "$WORK" && "$PYTHON" - <<'EOF'  # outside the checkout: the kpca_bench that was installed
import platform

import kpca_bench
from importlib.metadata import version

print(f"Python {platform.python_version()}; kpca-bench from {kpca_bench.__file__}")
print(", ".join(f"{name} {version(name)}" for name in ("numpy", "scipy", "scikit-learn", "pandas", "array-api-compat")))
from kpca_bench.devices import DeviceError, cuda_library, gpu_model
try:
    xp, device = cuda_library()
    print(f"CUDA through {xp.__name__}: {gpu_model(xp, device)}")
except DeviceError as error:
    print(f"no CUDA device: {error}")
EOF
}

tests() {
    "$PYTHON" -m pytest tests/test_gpu.py -q -rs -p no:cacheprovider
}

config() {
    local device=cuda
    [ "$DRY" = 1 ] && device=cpu
    { cat configs/quickstart.yaml; echo "execution: {device: $device}"; } > "$WORK/quickstart.yaml"
    kpca-bench run "$WORK/quickstart.yaml" --out "$WORK/runs" --trials 1 --quiet || return
    cp "$WORK/runs/quickstart/records.jsonl" "$OUT/records.jsonl"
    "$PYTHON" - "$WORK/runs/quickstart" <<'EOF'
import json
import sys
from pathlib import Path

folder = Path(sys.argv[1])
for line in (folder / "records.jsonl").read_text().splitlines():
    record = json.loads(line)
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

bench() {
    local quick=()
    [ "$DRY" = 1 ] && quick=(--quick)
    KPCA_BENCH_DATA="$PWD/.whl/data" "$PYTHON" benchmarks/bench_gpu.py "${quick[@]}" --out "$OUT/gpu.md" \
        && cat "$OUT/gpu.md"
}

export -f site_packages install versions tests config memory bench
echo "== gpu_check.sh $([ "$DRY" = 1 ] && echo --dry-run) on $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC'), budget $BUDGET s"
finish() {  # finish CODE: exit once tee has written every line to check.log
    exec >&- 2>&-
    wait "$TEE"
    exit "$1"
}

if ! step install 150; then
    echo "== the install failed: nothing else can run"
    finish 1
fi
SITE=$(site_packages)
export PYTHONPATH=$SITE PATH=$PREFIX/bin:$PATH
step versions 60
step tests 180
step config 90
step memory 90
step bench 300
echo "== done in $SECONDS s"
cat "$OUT/steps.tsv"
rm -rf "$WORK"
finish "$FAILED"
