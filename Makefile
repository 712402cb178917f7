# Two commands on a fresh machine: `make report` (set up, then build the report from raw/)
# and `make test`. Everything installs into .venv from pinned versions.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export DAGSTER_HOME ?= $(CURDIR)/.dagster_home
UI_HOST ?= 127.0.0.1
UI_PORT ?= 3000

.PHONY: setup system-deps report test ui bench atlas clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

# Debian packages: WeasyPrint's fonts and harfbuzz subsetting, chromium for the browser tests.
system-deps:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  missing=""; for p in chromium libharfbuzz-subset0 fonts-dejavu-core libpango-1.0-0 libpangoft2-1.0-0; do \
	    dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi; \
	else echo "system-deps: not root or no apt-get; install chromium libharfbuzz-subset0 fonts-dejavu-core yourself"; fi

report: $(STAMP)
	$(BIN)/python -m pipelines.cli report

test: $(STAMP) system-deps
	$(BIN)/python -m pytest -q

ui: $(STAMP)
	UI_HOST=$(UI_HOST) UI_PORT=$(UI_PORT) bash scripts/ui.sh

bench: $(STAMP)
	$(BIN)/python -m bench

# The MLPerf price-performance atlas: make atlas MLPERF_DIR=<folder with training_results_v0.7 ... v5.1>
atlas: $(STAMP)
	MLPERF_DIR="$(MLPERF_DIR)" $(BIN)/python -m pipelines.cli atlas

clean:
	rm -rf reports/2* reports/latest reports/index.html reports/.build reports/.store warehouse
