# Quick start: `make demo` runs examples/quickstart.py, `make test` runs the whole test suite.
# Each target creates .venv and installs numgrad into it first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# `make test REFERENCE=` leaves PyTorch out: the tests that compare with it then skip.
REFERENCE ?= reference

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e .
	touch $@

# The cross-checks compare with the PyTorch release pinned in setup.cfg's `reference` extra. Where it
# cannot be installed (offline, or no wheel for this platform) they skip, except under CI.
$(VENV)/.test-installed: $(VENV)/.installed
	$(PY) -m pip install --quiet -e ".[test,distributed]"
	[ -z "$(REFERENCE)" ] || $(PY) -m pip install --quiet -e ".[test,distributed,$(REFERENCE)]" || \
		{ [ -z "$$CI" ] && echo "PyTorch not installed: the comparisons with it will be skipped"; }
	touch $@

.PHONY: demo test test-pythons bench
demo: $(VENV)/.installed
	$(PY) examples/quickstart.py

test: $(VENV)/.test-installed
	$(PY) -m pytest -rs tests

# The built wheel, in a fresh venv per installed CPython 3.10-3.13 other than .venv's: the tests
# that cover the tutorials, autograd, nn/optim and save/load.
test-pythons: $(VENV)/.test-installed
	PY=$(PY) .ci/other-pythons

bench: $(VENV)/.installed
	$(PY) -m pip install --quiet -e ".[bench]"
	cd asv_bench && ../$(VENV)/bin/asv machine --yes >/dev/null && ../$(VENV)/bin/asv run -E existing --quick
