# Quick start: `make demo` runs examples/quickstart.py, `make test` runs the whole test suite.
# Each target creates .venv and installs numgrad into it first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

.PHONY: demo test bench
demo: $(VENV)/.installed
	$(PY) examples/quickstart.py

test: $(VENV)/.installed
	$(PY) -m pytest tests

bench: $(VENV)/.installed
	$(PY) -m pip install --quiet -e ".[bench]"
	cd asv_bench && ../$(VENV)/bin/asv machine --yes >/dev/null && ../$(VENV)/bin/asv run -E existing --quick
