# `make play` and `make test` both build .venv from pyproject.toml when it is missing or stale.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/sheepshead play

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

# Benchmarks print their figures; they are run by hand, never by `make test`.
bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/table.py
	$(BIN)/python bench/floor.py
	$(BIN)/python bench/server.py --mode closed
	$(BIN)/python bench/floor.py --pace 1 --tables 2000 --seconds 20
	$(BIN)/python bench/server.py --mode human
	$(BIN)/python bench/client.py
	$(BIN)/python bench/bots.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
