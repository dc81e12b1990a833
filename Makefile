# flockgym: the two commands a fresh machine needs are `make demo` and `make test`.
# Each creates the virtual environment and installs the pinned dependencies first.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: install compiler browser demo watch play test test-slow test-min test-rllib bench benchmark soak golden lint constraints clean

$(STAMP): pyproject.toml constraints.txt | compiler
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e ".[train,dev,play,torchrl,openspiel]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

## The compiled engines again whenever a C++ source changed (an editable install does
## not rebuild its extensions by itself).
NATIVE_SOURCES := $(wildcard envs/*/native/*.cpp envs/*/native/*.hpp)
NATIVE_STAMP := $(VENV)/.native-$(shell cat $(NATIVE_SOURCES) setup.py /dev/null | cksum | cut -d' ' -f1)

$(NATIVE_STAMP): $(STAMP) $(NATIVE_SOURCES) setup.py
	$(PY) -m pip install --quiet --no-deps -e .
	rm -f $(VENV)/.native-*
	touch $(NATIVE_STAMP)

install: $(STAMP) $(NATIVE_STAMP)

## The main job: about a minute of MaskablePPO self-play on Asrus, then an evaluation.
demo: install
	$(VENV)/bin/flockgym train configs/quickstart.yaml

## Watch the heuristic bot play a seeded Asrus game against random bots.
watch: install
	$(PY) -m flockgym.envs.demo --env asrus_v0 --players 5 --seed 0 --bots heuristic,random

## The compiled engines (C++17, pybind11; setup.py) need a C++ compiler and Python's
## headers: Debian's g++ and python3-dev are installed here when missing (as root, or
## with sudo). Without them the install still works and the Python engines run.
CXX ?= g++
compiler:
	@if [ -n "$$FLOCKGYM_SKIP_COMPILER" ] || { command -v $(CXX) >/dev/null && \
		$(PYTHON) -c "import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"; }; then \
		exit 0; \
	elif [ "$$(id -u)" = 0 ]; then \
		DEBIAN_FRONTEND=noninteractive apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q g++ python3-dev; \
	elif command -v sudo >/dev/null; then \
		sudo apt-get update -q && sudo apt-get install -y -q g++ python3-dev; \
	else \
		echo "The compiled engines need a C++17 compiler: apt-get install -y g++ python3-dev" \
			"(or FLOCKGYM_SKIP_COMPILER=1 to run the Python engines only)"; exit 1; \
	fi

## Play in a browser: one local server for every env, the shipped checkpoints and any
## run trained under runs/ as opponents (open the address it prints; PORT=... to change).
PORT ?= 8000
play: install
	$(VENV)/bin/flockgym serve --port $(PORT) $(if $(wildcard runs),--models runs)

## The test suite (fast; slow checks are excluded).
test: install browser
	$(PY) -m pytest -n 2 -q

## The browser tests drive Debian's Chromium through Playwright (Playwright's own
## browser download is not used): installed here when missing (as root, or with sudo).
CHROMIUM ?= /usr/bin/chromium
browser:
	@if [ -n "$$FLOCKGYM_SKIP_BROWSER" ] || [ -n "$$FLOCKGYM_CHROMIUM" ] || [ -x $(CHROMIUM) ]; then \
		exit 0; \
	elif [ "$$(id -u)" = 0 ]; then \
		DEBIAN_FRONTEND=noninteractive apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	elif command -v sudo >/dev/null; then \
		sudo apt-get update -q && sudo apt-get install -y -q chromium; \
	else \
		echo "The browser tests need Debian's chromium: apt-get install -y chromium" \
			"(or FLOCKGYM_SKIP_BROWSER=1 to skip them)"; exit 1; \
	fi

## The env tests on the lowest dependency versions pyproject.toml declares (no
## training extra): the floors users rely on are checked, not guessed.
MIN_VENV ?= .venv-min
test-min: compiler
	$(PYTHON) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(MIN_VENV)/bin/python -m pip install --quiet $$($(PYTHON) .ci/min_requirements.py)
	$(MIN_VENV)/bin/python -m pip install --quiet --no-deps -e .
	$(MIN_VENV)/bin/python -m pytest -n 2 -q -p no:cacheprovider --ignore=tests/training \
		--ignore=tests/serve

## The rllib_ppo learner's tests, slow ones included, in a venv of its own (.venv-rllib):
## ray[rllib] 2.60.0 pins gymnasium 1.2.2, below constraints.txt's 1.4.0, so the rllib
## extra installs with constraints-rllib.txt (torch stays the CPU 2.13.0).
RLLIB_VENV ?= .venv-rllib
RLLIB_PY := $(RLLIB_VENV)/bin/python
RLLIB_STAMP := $(RLLIB_VENV)/.installed-$(shell cat pyproject.toml constraints-rllib.txt | cksum | cut -d' ' -f1)

$(RLLIB_STAMP): pyproject.toml constraints-rllib.txt | compiler
	$(PYTHON) -m venv $(RLLIB_VENV)
	$(RLLIB_PY) -m pip install --quiet --upgrade pip
	$(RLLIB_PY) -m pip install --quiet -c constraints-rllib.txt -e ".[train,dev,rllib]"
	rm -f $(RLLIB_VENV)/.installed-*
	touch $(RLLIB_STAMP)

test-rllib: $(RLLIB_STAMP)
	$(RLLIB_PY) -m pytest -q -p no:cacheprovider -m "slow or not slow" tests/training/test_rllib.py

## The full benchmark grid (docs/benchmark.md): MaskablePPO, RLlib's PPO and the masked DQN on all four
## games, 5 seeds each, measured against random, heuristic and shipped bots; about an
## hour on 2 cores (measured, docs/benchmark.md). In .venv-rllib; run again, it resumes.
benchmark: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/flockgym benchmark benchmarks/specs/full.yaml

## Slow checks: thousands of random games per env, a short soak, longer training checks.
test-slow: install
	HYPOTHESIS_PROFILE=thorough $(PY) -m pytest -n 2 -q -m slow

## Throughput against PettingZoo's and OpenSpiel's envs (installs the bench extra).
bench: install
	$(PY) -m pip install --quiet -c constraints.txt -e ".[bench]"
	$(PY) benchmarks/throughput.py

## Legal play of every env at every player count and option sample, at random, heuristic
## and mixed tables, with the contract and the observations checked against a fresh load of
## the state (1,000,000 steps per env; SOAK_STEPS=... to change).
SOAK_STEPS ?= 1000000
soak: install
	$(PY) benchmarks/soak.py --steps $(SOAK_STEPS)

golden: install
	$(PY) -m flockgym.envs.core.playthrough tests/golden

## Style and types: ruff, and mypy on the env package (settings in pyproject.toml).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

constraints: install
	head -n 3 constraints.txt > constraints.txt.new
	$(PY) -m pip freeze --exclude-editable | sed 's/+cpu//' >> constraints.txt.new
	mv constraints.txt.new constraints.txt

clean:
	rm -rf $(VENV) $(MIN_VENV) $(RLLIB_VENV) runs .pytest_cache .ruff_cache .hypothesis
