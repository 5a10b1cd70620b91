# kpca-bench: `make demo` runs the quickstart, `make test` runs the test suite.
# Both create the virtual environment .venv and install the package on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
JOBS ?= 1

.PHONY: demo test check all-figures install clean

$(BIN)/kpca-bench: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,dask]"
	touch $@

install: $(BIN)/kpca-bench

demo: install
	$(BIN)/kpca-bench run configs/quickstart.yaml --jobs $(JOBS)

test: install
	$(BIN)/python -m pytest

check: install
	$(BIN)/kpca-bench check --profile quick --jobs $(JOBS) --quiet

# Every paper config at the full profile (finished cells are reused), then results/REPORT.md.
PAPER_CONFIGS = $(shell grep -l '^reference:' configs/*.yaml)
all-figures: install
	for config in $(PAPER_CONFIGS); do $(BIN)/kpca-bench run $$config --jobs $(JOBS) --quiet || exit $$?; done
	$(BIN)/kpca-bench report

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
