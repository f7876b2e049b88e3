# ETG firmware: every target works on a fresh machine with only Python 3.11.
# What each target installs, and when (README, "What make installs"):
# - `make run`: .venv with the table and the demo's automatic players (the `bench` extra);
#   nothing outside .venv.
# - `make setup` (and every other target): .venv with the `dev` extra (every tool and
#   extra); as root, the Debian packages the floor's tests use when they are missing.
# .venv is (re)installed only when pyproject.toml changed.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO   := $(VENV)/.installed-demo
AOT    := $(VENV)/.installed-sp80090b-aot
MATHAOT := $(VENV)/.installed-math-aot
ETG    := $(BIN)/etg
# Tests draw with SDL's dummy driver and never need a display.
TESTENV := SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy PYGAME_HIDE_SUPPORT_PROMPT=1
JOBS   ?= 2

.PHONY: setup system-packages run test test-hil lint bench rng-check sample-report pi-check clean par rules-doc

setup: system-packages $(STAMP) $(AOT) $(MATHAOT)

# Debian packages the floor's tests use (Mosquitto, PostgreSQL, chromium): installed with
# apt when missing and we are root; a quick check when they are there.
system-packages:
	@sh deploy/system-packages.sh

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP) $(DEMO)

# `etg cert entropy`'s non-IID kernels compiled ahead of time (numba's AOT compiler, for
# this machine's CPU) so that an assessment starts without numba (docs/cert.md, "Speed");
# rebuilt when a kernel changes; without a C compiler the JIT kernels are used.
$(AOT): $(STAMP) $(wildcard rng/cert/sp80090b/compiled.py rng/cert/sp80090b/kernels/*.py)
	$(BIN)/python -m rng.cert.sp80090b.kernels.aot
	@touch $(AOT)

# `etg par`'s dealer-law kernel compiled ahead of time into .venv's site-packages (numba's
# AOT compiler, this CPU) so that a PAR calculation starts without importing numba
# (docs/math.md, "Speed"); without a C compiler the JIT kernel gives the same figures.
$(MATHAOT): $(STAMP) $(wildcard firmware/math/dealer/removed_cards_kernel.py firmware/math/dealer/removed_cards_aot.py)
	$(BIN)/python -m firmware.math.dealer.removed_cards_aot
	@touch $(MATHAOT)

# The demo's own environment: the table (pyserial, pygame, cryptography) and numpy for the
# automatic players' basic strategy. A full `make setup` (newer) covers it.
$(DEMO): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[bench]'
	@touch $(DEMO)

# A simulated table: a window when there is a display, headless auto-play otherwise.
# VARIANT picks the game (blackjack, split-to-double, bingo, free-bet, spanish21), e.g.
# `make run VARIANT=free-bet`; in the window F2 steps to the next game, F1 lists the keys.
VARIANT ?=
run: $(DEMO)
	$(ETG) run --demo $(if $(VARIANT),--variant $(VARIANT))

test: setup
	$(TESTENV) $(BIN)/python -m pytest -n $(JOBS) tests

# Every scenario file at both depths, compared (make test runs a subset of them in hil).
test-hil: setup
	$(TESTENV) ETG_HIL_ALL=1 $(BIN)/python -m pytest -n $(JOBS) -q tests/bench_hil/test_hil_equivalence.py

# The shipped PAR sheets (docs/par/) and docs/rules.md's settings table, written again from
# the rules files and the math (tests/math/test_math_docs_current.py fails while stale).
par: setup
	$(BIN)/python -m firmware.math.par.published par

rules-doc: setup
	$(BIN)/python -m firmware.math.par.published rules-doc

lint: setup
	$(BIN)/ruff check etgcore firmware drivers ui rng deploy lab benchmarks tests
	$(BIN)/mypy

bench: setup
	$(TESTENV) $(BIN)/python -m benchmarks

# docs/sample-report: the committed sample of `etg cert run`, seeded so it reproduces
# (tests/cert/test_sample_report.py fails when the code or the inputs it was made from
# changed); the draw files and stream.bin it writes are not committed
SAMPLE_SEED = 5eed000102030405060708090a0b0c0d
sample-report: setup
	rm -rf docs/sample-report
	$(BIN)/etg --set table.variant=bingo cert run --draws 1000000 --out docs/sample-report --seed $(SAMPLE_SEED) --no-progress
	rm -rf docs/sample-report/draws docs/sample-report/stream.bin

rng-check: setup
	bash deploy/rng-check.sh

# The signed release on Debian Bookworm arm64 under qemu-user-static (root; minutes; the
# root file system is built once and cached in /var/cache/etg-pi-check). docs/deploy.md.
pi-check: setup
	bash deploy/pi-check.sh

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
