# kpca-bench: `make demo` runs the quickstart from scratch into results/demo/, `make test` runs the test suite.
# Both create the virtual environment .venv and install the package on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
JOBS ?= 1

.PHONY: demo test test-quick lint check all-figures variants analyses install clean

$(BIN)/kpca-bench: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,dask]"
	touch $@

install: $(BIN)/kpca-bench

# Into a fresh, git-ignored folder, so that the demo computes every cell on this machine.
demo: install
	rm -rf results/demo
	$(BIN)/kpca-bench run configs/quickstart.yaml --jobs $(JOBS) --out results/demo

# One worker per core; a test file's tests stay on one worker, so its module fixtures are built once.
test: install
	$(BIN)/python -m pytest -n auto --dist loadfile --durations=15

# While you work: the suite less its tests marked slow (end-to-end runs, a sweep's cases beyond its first).
test-quick: install
	$(BIN)/python -m pytest -n auto --dist loadfile -m "not slow" -q

# pyflakes and pycodestyle's errors, and ruff's formatting, over the package, its tests, benchmarks, reproductions and
# migrations ([tool.ruff]; `ruff format` on those folders fixes the formatting); mypy over the package and the reproductions ([tool.mypy]).
lint: install
	$(BIN)/ruff check kpca_bench tests benchmarks reproductions migrations
	$(BIN)/ruff format --check kpca_bench tests benchmarks reproductions migrations
	$(BIN)/mypy

# The committed records tables all of cell-key schema 2, each record planned, each generic summary what its records
# give (migrations/cell_keys.py); then the papers' numbers recomputed at the quick profile against the blessed ones.
check: install
	$(BIN)/python migrations/cell_keys.py --check results
	$(BIN)/python -m reproductions check --profile quick --jobs $(JOBS) --quiet

# Every paper config whose data are here, at the full profile (finished cells are reused), then
# results/REPORT.md (python -m reproductions: the reproduction framework, outside the library). Configs whose data
# are missing are named on stderr and skipped.
all-figures: install
	configs=$$($(BIN)/python -m reproductions report --list-configs) || exit $$?; \
	for config in $$configs; do $(BIN)/kpca-bench run $$config --jobs $(JOBS) --quiet || exit $$?; done
	$(MAKE) analyses
	$(BIN)/python -m reproductions report

# The variant runs (reproductions/<paper>/configs/variants/: one reading of a paper each), whose numbers REPORT.md
# sets beside the headline's.
variants: install
	for config in reproductions/*/configs/variants/*.yaml; do $(BIN)/kpca-bench run $$config --jobs $(JOBS) --quiet || exit $$?; done

# The papers' tables, figures and write-ups drawn from the finished runs (Li's Fig. 3 draws its own sample).
analyses: install
	$(BIN)/python -m reproductions analyse --all

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
