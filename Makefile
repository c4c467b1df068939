# Two commands set everything up on a fresh Debian machine (as root) and are idempotent:
#   make demo   installs R, Chromium and the Python environment, then runs the end-to-end demo
#   make test   the same setup, then the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
APT_PACKAGES := r-base-core r-cran-ordinal r-cran-emmeans chromium fonts-dejavu-core
DEMO_OUT ?= humaneval-demo

.PHONY: demo test setup system-packages lint

demo: setup
	$(BIN)/humaneval demo --out $(DEMO_OUT)

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check humaneval tests benchmarks simulations
	$(BIN)/mypy

setup: system-packages $(VENV)/.installed

system-packages:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
		echo "installing $(APT_PACKAGES) with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); \
	fi

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[r,dev,nlp,nli]"
	touch $@
