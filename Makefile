# Two entry points: `make run` (the main job) and `make test` (every check).
# Each creates the virtual environment and installs what is needed when absent.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: run test lint types pytest bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quintet serve

test: lint types pytest

lint: $(STAMP)
	$(BIN)/ruff check quintet tests bench
	$(BIN)/ruff format --check quintet tests bench

types: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -n auto

bench: $(STAMP)
	$(BIN)/python bench/playout.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
