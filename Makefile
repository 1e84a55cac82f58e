# Two entry points: `make run` (the main job) and `make test` (every check).
# Each creates the virtual environment and installs what is needed when absent.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: run test lint types pytest chromium bench clean

# After installing, `quintet warm-up` compiles the solver's numba kernels into numba's
# on-disk cache (tens of seconds, once), so the first `quintet solve`, bot or test is fast
# (a failure there leaves the install usable: the solver then compiles on first use).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@$(BIN)/quintet warm-up || echo "make: the solver warm-up failed: the first solve compiles it" >&2
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quintet serve

test: lint types pytest

lint: $(STAMP)
	$(BIN)/ruff check quintet tests bench
	$(BIN)/ruff format --check quintet tests bench

types: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP) chromium
	$(BIN)/pytest -n auto

# tests/test_browser.py drives Debian's chromium through Playwright, never a downloaded
# browser (no `playwright install`). Install it with apt-get when it is missing: as root
# (CI) or through sudo without a password. Elsewhere the browser tests say why they are
# skipped; under CI they fail.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; \
	  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	  else echo "make: chromium is missing and cannot be installed here (not root, no sudo): the browser tests will be skipped" >&2; exit 0; fi; \
	  echo "make: installing Debian's chromium for the browser tests" >&2; \
	  { $$sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q chromium; } \
	    || { echo "make: could not install chromium" >&2; [ -z "$$CI$$QUINTET_REQUIRE_BROWSER" ] || exit 1; }; }

bench: $(STAMP)
	$(BIN)/python bench/playout.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis test-artifacts
