# `make report` on a fresh clone: sets up .venv (runtime packages, pinned), builds the report of
# the bundled data and says where it is. `make test` adds the test packages and runs the tests.
# Every target that runs the pipeline is a command of `python -m pipelines.cli` (--help lists them).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
UI_HOST ?= 127.0.0.1
UI_PORT ?= 3000

.PHONY: help venv venv-test setup system-deps report estimate atlas prices ui test bench clean clean-venv FORCE
.DEFAULT_GOAL := help

# A target make does not know: the one probably meant (`make reprot`), not "No rule to make target".
TARGETS := help report estimate atlas prices ui clean test bench venv venv-test clean-venv system-deps
.DEFAULT:
	$(error no target '$@'$(shell $(PYTHON) -c 'import difflib, sys; m = difflib.get_close_matches(sys.argv[1], sys.argv[2:], 1, 0.6); print(f"; did you mean {m[0]!r}?" if m else "")' '$@' $(TARGETS) 2>/dev/null) (make help lists the targets))

# `make help` (or plain `make`): every target with the line after its `##`, and the settings.
help:
	@echo 'usage: make TARGET [SETTING=value ...]   (python -m pipelines.cli --help says more)'
	@echo
	@echo 'targets:'
	@awk -F':.*## ' '/^[a-z][a-z-]*:.*## /{printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo
	@echo 'settings (environment variables or make arguments): RAW_DIR, REPORTS_DIR, WAREHOUSE, DAGSTER_HOME,'
	@echo '  MLPERF_DIR, ATLAS_ROUNDS_DIR, GCP_API_KEY, UI_HOST, UI_PORT, SOURCE_DATE_EPOCH, PYTHON (default python3.11),'
	@echo '  FORCE=1 (make report builds even when up to date), TEST_WORKERS (make test; default cores + 2)'
	@echo '  make prices: PRICE_SOURCES (default skypilot,aws,azure,gcp), SKYPILOT_CLOUDS (default every GPU cloud:'
	@echo '  lambda,nebius,runpod,oci,cudo,vast,verda,hyperstack,hyperbolic,jarvislabs,lium,mithril,primeintellect,'
	@echo '  seeweb,shadeform,spheron,yotta,daytona; aws,gcp,azure on request), SKYPILOT_CATALOG_URL (default'
	@echo '  https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8)'

# ---- the virtual environment ----------------------------------------------------------------------
# .venv is made by one interpreter for one set of pins: when either changes (another PYTHON, a new
# Python release, an edited constraints.txt) it is deleted and made again from scratch. Each step
# leaves a stamp named after that key only when it finished, so a failed or interrupted set-up is
# redone on the next run, never taken for a working one. `make -o venv <target>` skips the set-up
# (the tests do, to run targets in an environment prepared otherwise).
VENV_KEY := $(shell { $(PYTHON) -c 'import sys; print(sys.version, sys.executable)' 2>&1; cat constraints.txt; } | cksum | cut -d' ' -f1)
MADE := $(VENV)/.made-$(VENV_KEY)
RUNTIME := $(VENV)/.runtime-$(VENV_KEY)
TESTING := $(VENV)/.test-$(VENV_KEY)

$(MADE):
	@command -v $(PYTHON) >/dev/null || { echo "setup: $(PYTHON) not found. Install Python 3.11 or run make PYTHON=<python3.11>." >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(None if sys.version_info[:2] == (3, 11) else "setup: the pipeline needs Python 3.11; $(PYTHON) is " + sys.version.split()[0] + ". Install 3.11 or run make PYTHON=<python3.11>.")'
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	touch $@

# runtime packages only (make report, make ui); reinstalled in place when pyproject.toml changes
$(RUNTIME): $(MADE) pyproject.toml
	$(BIN)/python -m pip install --quiet -c constraints.txt -e .
	touch $@

# plus the test packages (pytest, Playwright, the official MLPerf summarizer, pandas for bench)
$(TESTING): $(RUNTIME)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $@

venv: $(RUNTIME) ## the virtual environment .venv with the runtime packages
venv-test: $(TESTING) ## .venv with the test packages too
setup: venv

# Remove the virtual environment (make clean keeps it); the next target makes it again.
clean-venv: ## remove .venv (the next target makes it again)
	rm -rf $(VENV)

# ---- the pipeline ------------------------------------------------------------------------------------
# builds what Dagster reports stale or missing (pipelines/freshness.py); FORCE=1 builds everything
report: venv ## build and publish the report of RAW_DIR (default: the bundled data; FORCE=1 even if unchanged)
	$(BIN)/python -m pipelines.cli report $(if $(FORCE),--force)

# Your model's cost from the built warehouse: make estimate PARAMETERS=8e9 TOKENS=15e12 SEQUENCE_LENGTH=8192 [LAYERS=32
# HIDDEN_SIZE=4096] [TOTAL_PARAMETERS=N (a mixture of experts; PARAMETERS: its active ones)] [PRECISION=fp8]
# [ACCELERATORS=N] [DEADLINE_DAYS=D] [KIND=lora] [FORMAT=csv]
estimate: venv ## a described model's budget on its ten first offers (PARAMETERS, TOKENS, SEQUENCE_LENGTH; after make report)
	$(BIN)/python -m pipelines.cli estimate --parameters $(or $(PARAMETERS),8e9) --tokens $(or $(TOKENS),15e12) \
		--sequence-length $(or $(SEQUENCE_LENGTH),8192) $(if $(ACCELERATORS),--accelerators $(ACCELERATORS)) \
		$(if $(LAYERS),--layers $(LAYERS)) $(if $(HIDDEN_SIZE),--hidden-size $(HIDDEN_SIZE)) \
		$(if $(TOTAL_PARAMETERS),--total-parameters $(TOTAL_PARAMETERS)) $(if $(PRECISION),--precision $(PRECISION)) \
		$(if $(DEADLINE_DAYS),--deadline-days $(DEADLINE_DAYS)) $(if $(KIND),--kind $(KIND)) $(if $(FORMAT),--format $(FORMAT))

# The MLPerf atlas: make atlas MLPERF_DIR=<folder holding training_results_v0.7 ... v5.1>
atlas: venv ## the MLPerf atlas of MLPERF_DIR (remembered for the data set after a first run)
	$(BIN)/python -m pipelines.cli atlas

# Today's prices into RAW_DIR/prices (needs the internet; GCP needs GCP_API_KEY; PRICE_SOURCES, SKYPILOT_CLOUDS choose).
prices: venv ## download today's GPU cloud catalogs and price lists into RAW_DIR/prices (needs the internet)
	$(BIN)/python -m pipelines.cli prices fetch

# The UI runs until stopped: Ctrl-C, or SIGTERM/SIGINT/SIGHUP to make, stops everything it started.
# make forwards SIGTERM to its recipe but SIGINT to nobody; on either it deletes the target file
# of the recipe it interrupts, and the UI stops when that file goes (pipelines/ui.py). `exec`: the
# UI is make's own child, not a shell's that would die alone.
UI_RUNNING := .ui-$(UI_PORT).pid
ui: $(UI_RUNNING) ## the Dagster UI and daemon on UI_HOST:UI_PORT; Ctrl-C stops everything
$(UI_RUNNING): venv FORCE
	@exec $(BIN)/python -m pipelines.cli ui --host '$(UI_HOST)' --port '$(UI_PORT)' --stop-file '$@'

# The data set's published reports and warehouse (of RAW_DIR: the bundled data by default); the
# command needs no package beyond Python's own, so it runs before any set-up too.
clean: ## remove the data set's published reports and warehouse (keeps .venv and run history)
	$(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON)) -m pipelines.cli clean

# ---- tests and benchmarks --------------------------------------------------------------------------
# Debian packages: WeasyPrint's fonts and harfbuzz subsetting, chromium for the browser tests.
system-deps: ## Debian packages for the PDF and the browser tests (as root)
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  missing=""; for p in chromium libharfbuzz-subset0 fonts-dejavu-core libpango-1.0-0 libpangoft2-1.0-0; do \
	    dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi; \
	else echo "system-deps: not root or no apt-get; install chromium libharfbuzz-subset0 fonts-dejavu-core yourself"; fi

# Both cores (pytest-xdist): each worker starts on its half of the tests in file order and takes the other's when
# it runs out; the builds many tests read are made once for both (tests/shared_builds.py).
# Two pytest workers more than cores: the UI, browser and command-line tests spend much of their time waiting
# (a sensor's tick, a subprocess, a shared build another worker is making), and the extra workers use it
# (on 2 cores: 3 workers 850 s, 4 workers 786 s, 5 workers 790 s, the same tests).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 2 )))

# Bytecode caching on (__pycache__, git-ignored) even where the environment sets PYTHONDONTWRITEBYTECODE: the suite
# starts some 150 Python processes (workers, command lines, servers), each of which would compile the project's
# modules again and each worker rewrite every test module's asserts (collection 9.6-11.3 s of CPU against 5.2-5.3 s).
test: venv-test system-deps ## install the test packages and run every test on every core (11-13 min on 2 cores: 653 s in a checkout, 735 s on a clean clone)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal --durations=25

bench: venv-test ## the benchmarks of BENCHMARKS.md
	$(BIN)/python -m bench
