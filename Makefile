# Two commands set everything up on a fresh Debian machine (as root) and are idempotent:
#   make demo   the package with its runtime dependencies only, then the end-to-end demo (native engine:
#               no R, no browser, no torch, spaCy or Playwright)
#   make test   everything the tests need (R with ordinal/emmeans, Chromium, torch CPU, spaCy,
#               Playwright), then ruff and mypy, then the whole test suite; CI runs exactly this (.ci/run)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet
APT_INSTALL := DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends
# r-base-dev: headers and toolchain for building rpy2 (a recommend of r-base-core, not pulled without recommends)
R_PACKAGES := r-base-core r-base-dev r-cran-ordinal r-cran-emmeans
BROWSER_PACKAGES := chromium fonts-dejavu-core
DEMO_OUT ?= humaneval-demo

.PHONY: demo test setup system-packages r-packages browser-packages lint

demo: $(VENV)/.demo
	@echo "to run a study on Prolific: $(BIN)/python -m pip install -e '.[prolific]' (docs/prolific.md)"
	$(BIN)/humaneval demo --out $(DEMO_OUT)

# one pytest worker per core (pytest-xdist), each with one BLAS/OpenMP thread so that the workers do not
# oversubscribe the cores: the suite is CPU-bound and its tests independent
test: setup lint
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m pytest -n auto

lint: setup
	$(BIN)/ruff check humaneval tests benchmarks simulations
	$(BIN)/mypy

setup: system-packages $(VENV)/.installed

system-packages: r-packages browser-packages

# skipped when R can already load ordinal and emmeans (however R was installed)
r-packages:
	@if ! Rscript -e 'library(ordinal); library(emmeans)' >/dev/null 2>&1; then \
		echo "installing $(R_PACKAGES) with apt-get"; \
		apt-get update -qq && $(APT_INSTALL) $(R_PACKAGES); \
	fi

browser-packages:
	@if ! dpkg -s $(BROWSER_PACKAGES) >/dev/null 2>&1; then \
		echo "installing $(BROWSER_PACKAGES) with apt-get"; \
		apt-get update -qq && $(APT_INSTALL) $(BROWSER_PACKAGES); \
	fi

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip

# the demo: runtime dependencies only
$(VENV)/.demo: pyproject.toml | $(VENV)/bin/python
	$(PIP) -e .
	touch $@

# the tests: every extra the suite exercises (torch's CPU build first, for the NLI scorer tests)
$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(PIP) torch==2.13.0
	$(PIP) -e ".[r,dev,nlp,nli]"
	touch $@ $(VENV)/.demo
