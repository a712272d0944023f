# roundlab: `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(abspath $(VENV))/bin
# TensorFlow build: cpu (default) or gpu (CUDA wheels, for NVIDIA GPUs).
TF     ?= cpu
STAMP  := $(VENV)/.installed-$(TF)
# Where `make ui` listens (127.0.0.1: this machine only).
UI_HOST ?= 127.0.0.1
UI_PORT ?= 5000

# Stage commands of dvc.yaml call `python`: make them find the environment's one.
export PATH := $(BIN):$(PATH)
export TF_CPP_MIN_LOG_LEVEL ?= 2

.PHONY: help setup browser test test-fast wheel-check repro lint format bench ui clean

help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'
	@echo "  Variables: TF=cpu|gpu (TensorFlow build), PYTHON=$(PYTHON), UI_HOST, UI_PORT (make ui)"

setup: $(STAMP) ## Create .venv and install roundlab with its dev tools (quick when nothing changed)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools==84.2.1 wheel==0.48.0
	$(BIN)/python -m pip install --quiet -e ".[$(TF),dev]"
	@rm -f $(VENV)/.installed-*
	@touch $@

# The report's browser test renders report.html in headless chromium; without one it is skipped.
browser: ## Install Debian's chromium for the report's browser test when absent (as root; else says how)
	@if command -v chromium >/dev/null || command -v chromium-browser >/dev/null || [ -n "$$CHROMIUM" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "browser: installing Debian's chromium (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; \
	else \
	  echo "browser: no chromium, so the report's browser test will be skipped; install it with"; \
	  echo "  sudo apt-get install chromium   (or set CHROMIUM=/path/to/chromium)"; \
	fi

test: setup browser ## Run every test, the slow end-to-end ones included, then wheel-check
	$(BIN)/python -m pytest
	$(MAKE) --no-print-directory wheel-check

test-fast: setup ## Run the tests without the slow end-to-end ones
	$(BIN)/python -m pytest -m "not slow"

# After the tests, not as one of them: it installs a whole environment (minutes, most of it
# pip; quick with pip's cache warm from `make setup`), once per `make test`.
wheel-check: setup ## Build the sdist and wheel, twine-check them, install the wheel in a fresh venv and run it from an empty directory
	.ci/wheel-check $(BIN)/python

repro: setup ## Run the DVC pipeline: data, sweeps, report (reports/report.html)
	$(BIN)/dvc repro

lint: setup ## ruff: lint and format check
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

format: setup ## ruff: fix what can be fixed and format
	$(BIN)/ruff check --fix src tests bench
	$(BIN)/ruff format src tests bench

bench: setup ## Run the benchmarks under bench/
	$(BIN)/python bench/activations.py
	$(BIN)/python bench/numpy_cost.py
	$(BIN)/python bench/stacked_engine.py
	$(BIN)/python bench/sweep.py
	$(BIN)/python bench/memory.py --json bench/memory.json
	$(BIN)/python bench/compaction.py
	$(BIN)/python bench/recording.py
	$(BIN)/python bench/resume.py
	$(BIN)/python bench/worker_start.py
	$(BIN)/python bench/stages.py

# One server worker (mlflow starts 4 by default, which took about 46 s to answer on 2 cores) and
# no job executor (it runs GenAI scoring jobs; browsing runs needs none).
ui: setup ## Browse the runs: mlflow ui (one worker) on the project's store at http://UI_HOST:UI_PORT (127.0.0.1:5000)
	@url=http://$(UI_HOST):$(UI_PORT); store="$${MLFLOW_TRACKING_URI:-sqlite:///$${ROUNDLAB_ROOT:-$(CURDIR)}/mlflow.db}"; \
	echo "mlflow ui: starting… $$url (store $$store; Ctrl-C stops it)"; \
	server=$$$$; ( for i in $$(seq 120); do sleep 1; kill -0 $$server 2>/dev/null || exit 0; \
	    $(BIN)/python -c "import urllib.request as u; u.urlopen('$$url/health', timeout=1)" \
	      2>/dev/null && { echo "mlflow ui: up at $$url"; exit 0; }; done ) & \
	MLFLOW_SERVER_ENABLE_JOB_EXECUTION=$${MLFLOW_SERVER_ENABLE_JOB_EXECUTION:-false} \
	  exec $(BIN)/mlflow ui --workers 1 --host $(UI_HOST) --port $(UI_PORT) --backend-store-uri "$$store"

# reports/metrics and reports/plots stay: git tracks them (DVC compares revisions with them).
clean: ## Remove caches and generated outputs (data/, results/, reports/ but its git-tracked headline, metrics and plots, outputs/, multirun/, mlflow.db); keeps .venv
	rm -rf .pytest_cache .ruff_cache .hypothesis outputs multirun results data mlflow.db mlflow.db-wal mlflow.db-shm mlartifacts
	find reports -mindepth 1 -maxdepth 1 ! -name .gitkeep ! -name headline.json ! -name metrics ! -name plots -exec rm -rf {} +
	find . -name __pycache__ -type d -not -path './$(VENV)/*' -exec rm -rf {} +
