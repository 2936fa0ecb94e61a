# `make play` and `make test` both build .venv from pyproject.toml when it is missing or stale.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test lint typecheck pytest compiled compiled-test bench clean

# Each module's bytecode (and pytest's rewritten test modules) is written once and read by every
# later process: the tests start many (test workers, served servers, bench scripts), and with an
# inherited PYTHONDONTWRITEBYTECODE each would compile the sources again (six server test files
# on two workers: 37 CPU seconds with it, 30 without).
unexport PYTHONDONTWRITEBYTECODE

EXTRAS := .[dev,rl,cluster,openspiel]

# uv (Astral's installer, itself one wheel) sets the project up in a few seconds where pip took
# about 40 of a fresh clone's `make test` (a CPU's worth of resolving, unpacking and compiling
# the bytecode of every installed module, most of which no test imports). pip is kept as the
# fallback where uv cannot be had.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	( $(BIN)/python -m pip install -q uv && $(BIN)/uv pip install -q --python $(BIN)/python -e '$(EXTRAS)' ) \
		|| $(BIN)/python -m pip install -q -e '$(EXTRAS)'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/sheepshead play

# Everything at once on the two cores: the mypyc build (C compiler, one process) from the
# start, beside the plain tests (mostly waiting on sockets and timers) and mypy; then ruff, and
# the compiled tests as soon as their build is there. Started after mypy, the build was starved
# by the plain tests' workers and its tests ended last (a fresh clone: build from 10 s to 135 s,
# its tests to 230 s, the plain ones at 215 s). A lint or type error still fails the run, with
# the tests' results printed too. The runs share nothing (their own temporary directories,
# servers on port 0); each one's output is printed whole when it ends (--output-sync).
test: $(STAMP)
	$(MAKE) --no-print-directory -j3 --output-sync=target compiled-test pytest typecheck lint

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# A test file to a worker at a time: a file's tests (network namespaces, restarts) never run
# beside each other. Most tests wait on sockets and timers, so more workers than cores keep the
# two busy: the plain tests in 257 s with four workers, 198 s with six (a fresh clone's make
# test); the compiled ones, fewer and waiting more, take three. A test worker that dies (a test
# that ends its process) ends the run, naming the test: with --dist loadfile, xdist's
# replacement worker got no tests and the run waited for good (a fresh clone's make test, before
# tests/botkit/test_tournament_workers.py ran its tournaments in processes of their own).
PYTEST_WORKERS ?= 6
COMPILED_WORKERS ?= 3
PYTEST_JOBS ?= -n $(PYTEST_WORKERS) --dist loadfile --max-worker-restart 0
COMPILED_JOBS ?= -n $(COMPILED_WORKERS) --dist loadfile --max-worker-restart 0

# Niced a little: beside them the one-process mypyc build got a fourth of a core from six busy
# workers (165 s for 42 s of work) and the compiled tests ended last.
# First one collection alone: it rewrites every test module's asserts once and stores the result
# (__pycache__), so the workers read it; started together on a fresh clone, each of the six
# rewrote them all (42 CPU seconds to collect in six workers, 19 once stored). Fresh clones of
# the same code: 4 min 55 s and 5 min 10 s without it, 4 min 39 s with it. Not niced: the plain
# tests after it end the run, and niced beside the build and mypy it took some 50 s.
pytest: $(STAMP)
	$(BIN)/pytest --collect-only -q -p no:cacheprovider > /dev/null || true
	nice -n 5 $(BIN)/pytest $(PYTEST_JOBS)

# The server's hot path compiled with mypyc (setup.py), beside the checkout: put it first on
# PYTHONPATH to run it (README.md, "Hosting"). Rebuilt when a package's file changes; mypyc
# rewrites only the C files whose code changed, so a change outside the compiled modules costs
# seconds, not the full minute.
COMPILED := build/compiled

# The copy `make test` runs its compiled tests on: the same modules and run-time checks, with the
# C compiler's optimisation off, which halves the build's CPU (42 s against 75 s of one core on
# a fresh clone, where it competes with the plain tests for the two cores).
TEST_BUILD := build/compiled-test
$(COMPILED)/.built: OPT_LEVEL := 3
$(TEST_BUILD)/.built: OPT_LEVEL := 0

# A new setup.py (another list of compiled modules) starts afresh, so no stale extension stays.
# Kept (not an intermediate file make deletes): without it the next make would start afresh.
.PRECIOUS: build/%/.setup
build/%/.setup: setup.py $(STAMP)
	rm -rf build/$* build/$*-mypyc build/$*-temp
	mkdir -p build/$*
	touch $@

# Every file of the packages, subpackages and the client's stylesheet too: the copy holds them
# all, and a stale client screen there would run under `PYTHONPATH=build/compiled sheepshead join`.
PACKAGE_FILES := $(shell find engine protocol server client botkit -name '*.py' -o -name '*.tcss')

build/%/.built: build/%/.setup $(PACKAGE_FILES)
	@echo "compiling the server with mypyc into build/$* (about a minute when compiled code changed)..."
	SHEEPSHEAD_COMPILE=1 SHEEPSHEAD_OPT_LEVEL=$(OPT_LEVEL) SHEEPSHEAD_MYPYC_DIR=build/$*-mypyc \
		$(BIN)/python setup.py -q build --build-lib build/$* --build-temp build/$*-temp
	touch $@

compiled: $(COMPILED)/.built

# The engine's and the server's own tests again, on the compiled build (--import-mode=append
# keeps the checkout behind it on sys.path): a compiled module checks its annotations at run
# time, so a wrong type from a file or the wire is a TypeError there unless checked first. Of the
# end-to-end tests, those that feed the compiled server stored rows (restarts, restores) and
# hostile frames; the rest play the flows the server's own tests and the plain run already play
# (14 CPU seconds of the compiled run, which runs beside the plain tests that end the run). Not
# run again: the doors', the store's and the standings' tests, whose code is not compiled, and
# the restore fuzz (10 CPU seconds of server processes; the compiled restore is the restore and
# crash tests' and its logic the plain run's fuzz).
COMPILED_E2E := test_server_restore test_server_crash \
	test_server_attacks test_server_fuzz test_server_table_fuzz test_server_limits \
	test_server_chat_kept
COMPILED_TESTS := tests/engine tests/server tests/test_compiled.py \
	$(patsubst %,tests/e2e/%.py,$(COMPILED_E2E))
NOT_COMPILED := tests/server/test_ssh_door.py tests/server/test_web_door.py \
	tests/server/test_door_kit.py tests/server/test_serve_doors.py tests/server/test_store.py \
	$(wildcard tests/server/test_standings*.py)

compiled-test: $(TEST_BUILD)/.built
	SHEEPSHEAD_EXPECT_COMPILED=1 PYTHONPATH=$(TEST_BUILD) $(BIN)/pytest $(COMPILED_JOBS) \
		-p no:cacheprovider --import-mode=append $(COMPILED_TESTS) \
		$(addprefix --ignore=,$(NOT_COMPILED))

# Benchmarks print their figures; they are run by hand, never by `make test`.
bench: $(STAMP) $(COMPILED)/.built
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/table.py
	$(BIN)/python bench/table.py --compiled
	$(BIN)/python bench/floor.py
	$(BIN)/python bench/server.py --mode closed
	$(BIN)/python bench/server.py --mode closed --compiled
	$(BIN)/python bench/floor.py --pace 1 --tables 2000 --seconds 20
	$(BIN)/python bench/server.py --mode human
	$(BIN)/python bench/server.py --mode human --compiled
	$(BIN)/python bench/client.py
	$(BIN)/python bench/bots.py

clean:
	rm -rf $(VENV) build .mypy_cache .pytest_cache .ruff_cache
