#!/usr/bin/env bash
# The tree that a device run call sends (docs/gpu.md, "Checking on a lent GPU"): the checkout's tracked files and the
# untracked ones git does not ignore, plus the carried .whl/, at most 64 MiB. results/ (its committed runs are
# hundreds of MiB) is left out by git's sparse checkout: git keeps every file of it and puts them back on `full`,
# nothing is moved by hand and `git status` stays clean.
#
#   bash benchmarks/gpu_tree.sh slim        # before the run call: results/ leaves the working tree; prints the size
#   bash benchmarks/gpu_tree.sh full        # after it: results/ is back
#   bash benchmarks/gpu_tree.sh size        # what a call would send now; exit 1 over the limit
#   bash benchmarks/gpu_tree.sh copy DIR    # that tree less results/, .whl/ with it, copied into DIR (--dry-run)
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT_MIB=64

travelling() {  # NUL-separated: the files of the checkout that a run call sends (those in the working tree)
    git ls-files -co --exclude-standard -z | while IFS= read -r -d '' file; do
        if [ -f "$file" ] || [ -L "$file" ]; then printf '%s\0' "$file"; fi  # a file git left out is not there
    done
}

size() {
    local checkout wheels=0 total
    checkout=$(travelling | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
    [ -d .whl ] && wheels=$(du -sb .whl | cut -f1)
    total=$((checkout + wheels))
    echo "travels: checkout $((checkout / 1024)) KiB + .whl $((wheels / 1024)) KiB = $((total / 1024 / 1024)) MiB" \
         "of $LIMIT_MIB MiB"
    if [ "$total" -gt $((LIMIT_MIB * 1024 * 1024)) ]; then
        echo "error: more than a run call sends; leave results/ out first: bash benchmarks/gpu_tree.sh slim" >&2
        return 1
    fi
}

case "${1:-}" in
    slim)
        if [ -n "$(git status --porcelain -- results)" ]; then
            echo "error: results/ has changes git would leave in the tree (git status -- results); commit or" \
                 "stash them first" >&2
            exit 2
        fi
        # Not cone mode, which deletes the folders it leaves out that hold only ignored files (a run's cache/, demo/):
        # these patterns leave git's files of results/ out and ignored ones where they are (they do not travel).
        git sparse-checkout set --no-cone '/*' '!/results/'
        size
        ;;
    full)
        git sparse-checkout disable
        ;;
    size)
        size
        ;;
    copy)
        [ -n "${2:-}" ] || { echo "error: copy needs a folder: bash benchmarks/gpu_tree.sh copy DIR" >&2; exit 2; }
        mkdir -p "$2"
        travelling | grep -zv '^results/' | tar --null -T - -cf - | tar -xf - -C "$2"
        [ ! -d .whl ] || cp -r .whl "$2/"
        ;;
    *)
        echo "error: unknown command '${1:-}'; use slim, full, size or copy DIR" >&2
        exit 2
        ;;
esac
