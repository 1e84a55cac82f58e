# Two entry points: `make run` (the main job) and `make test` (every check).
# Each creates the virtual environment and installs what is needed when absent.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# Two installs into the same venv: `make run` installs only what `quintet serve` needs
# (the 'serve' extra, under 400 MB), `make test` everything ('dev': every extra and the
# tools). The second is a superset of the first, so it stamps both.
RUN_STAMP  = $(VENV)/.installed-serve
PLAY_STAMP = $(VENV)/.installed-play
TEST_STAMP = $(VENV)/.installed-dev
# `make play` plays in the terminal (the 'play' extra): GAME=quintus ARGS='--variant bidding'.
GAME ?= quinto
ARGS ?=

.PHONY: run play test lint types pytest chromium bench clean

# After installing, `quintet warm-up` compiles the solver's numba kernels into numba's
# on-disk cache (tens of seconds, once), so the first `quintet solve`, bot or test is fast
# (a failure there leaves the install usable: the solver then compiles on first use).
# $(call install,EXTRA)
define install
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(1)]'
	@$(BIN)/quintet warm-up || echo "make: the solver warm-up failed: the first solve compiles it" >&2
	@echo 'make: installed quintet-cards[$(1)] into $(VENV); to type `quintet` instead of $(BIN)/quintet:'
	@echo '  export PATH="$(abspath $(BIN)):$$PATH"    (or: source $(BIN)/activate)'
endef

$(RUN_STAMP): pyproject.toml
	$(call install,serve)
	touch $(RUN_STAMP)

$(PLAY_STAMP): pyproject.toml
	$(call install,play)
	touch $(PLAY_STAMP)

$(TEST_STAMP): pyproject.toml
	$(call install,dev)
	touch $(TEST_STAMP) $(RUN_STAMP) $(PLAY_STAMP)

run: $(RUN_STAMP)
	$(BIN)/quintet serve

play: $(PLAY_STAMP)
	$(BIN)/quintet play $(GAME) $(ARGS)

test: lint types pytest

lint: $(TEST_STAMP)
	$(BIN)/ruff check quintet tests bench
	$(BIN)/ruff format --check quintet tests bench

types: $(TEST_STAMP)
	$(BIN)/mypy

# Four workers on this project's 2-core machines: a third of the suite's time is waiting
# (servers starting, browsers, the server tests' clients), which two workers left idle
# (10 min with `-n auto`, 9 with 4, same tests); `worksteal` evens out the tail, where a
# module's long tests would otherwise queue behind one worker.
PYTEST_WORKERS ?= 4
pytest: $(TEST_STAMP) chromium
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal

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

bench: $(TEST_STAMP)
	$(BIN)/python bench/playout.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis test-artifacts
