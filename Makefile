# kpca-bench: `make demo` runs the quickstart, `make test` runs the test suite.
# Both create the virtual environment .venv and install the package on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
JOBS ?= 1

.PHONY: demo test check install clean

$(BIN)/kpca-bench: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@

install: $(BIN)/kpca-bench

demo: install
	$(BIN)/kpca-bench run configs/quickstart.yaml --jobs $(JOBS)

test: install
	$(BIN)/python -m pytest

check: install
	$(BIN)/kpca-bench check --profile quick --jobs $(JOBS) --quiet

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
