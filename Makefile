# The two commands: `make run` (the app with a demo at http://127.0.0.1:8000, on the embedded
# PostgreSQL and Valkey under var/) and `make test`.
PYTHON ?= python
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run stop test lint unit unit-rest systems browser bench fuzz slow clean restore standby

# The Python first (a plain message, not a resolver error), then the pinned packages.
$(BIN)/.installed: requirements-dev.lock .python-version
	@./scripts/check-python "$(PYTHON)"
	@echo "Installing the pinned packages (requirements-dev.lock) into $(VENV) with uv:" \
	  "about a minute the first time."
	$(PYTHON) -m pip install -q --disable-pip-version-check uv
	$(PYTHON) -m uv venv --allow-existing -q $(VENV) --python "$$($(PYTHON) -c 'import sys; print(sys.executable)')"
	UV_PYTHON_DOWNLOADS=never $(PYTHON) -m uv pip sync -q --compile-bytecode -p $(BIN)/python requirements-dev.lock
	touch $@

run: $(BIN)/.installed
	./scripts/serve

# The night from a standby copy (STANDBY_DIR of `make run`, or `make standby`'s folder), up to its
# last committed write: FROM=<folder>, FORCE=1 to keep an existing var/ database aside
# (standby/restore.py). Then `make run` goes on with the night.
restore: $(BIN)/.installed
	@test -n "$(FROM)" || { echo "Usage: make restore FROM=<the standby copy's folder> [FORCE=1]" >&2; exit 2; }
	$(BIN)/python -m standby.restore "$(FROM)" $(if $(FORCE),--force)

# A second laptop's standby copy of the night another laptop runs (`make run` with STANDBY_ALLOW
# prints the command): PRIMARY=<address>:<port>, STANDBY_DIR=<folder> (default
# var/standby-copy); the password is typed when asked, or read from PASSWORD_FILE=<file>, never
# taken on the command line, which the process list shows to every account (standby/follow.py).
standby: $(BIN)/.installed
	@test -n "$(PRIMARY)" || { echo "Usage: make standby PRIMARY=<address>:<port> [PASSWORD_FILE=<file>] [STANDBY_DIR=<folder>]" >&2; exit 2; }
	@test -z "$(filter command line,$(origin PASSWORD))" || { echo "make standby: PASSWORD=... would show in the process list for the whole night: leave it out and type the password when asked, or give PASSWORD_FILE=<a file holding it>." >&2; exit 2; }
	$(BIN)/python -m standby.follow "$(PRIMARY)" $(if $(STANDBY_DIR),--dir "$(STANDBY_DIR)") $(if $(PASSWORD_FILE),--password-file "$(PASSWORD_FILE)")

# Stops the embedded servers left running by a `manage.py` command (`make run` stops its own).
stop: $(BIN)/.installed
	$(BIN)/python -m syndicate.embedded stop

# PostgreSQL and Redis: the URLs when set, else the local servers on the standard ports, else the
# embedded ones in a throwaway folder (EMBEDDED=1: always those). Lint, then the unit and browser
# suites side by side, each on its own test database and Redis database (scripts/test-all).
test: $(BIN)/.installed
	./scripts/with-services ./scripts/test-all

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/python manage.py check
	$(BIN)/python manage.py makemigrations --check --dry-run

unit: $(BIN)/.installed
	$(BIN)/python -m pytest -m "not browser"

# The unit tests that start servers and processes of their own (standby copies, the deploy
# scripts, faults), the engine's longest single tests (its stateful runs and the staff
# migration's, near three minutes of the unit lane together) and the API fuzz (about three
# minutes): `make test` runs them in the browser
# suite's lane, after it, so that the two lanes take about as long (`unit-rest` is the rest of
# `make unit`; docs/performance.md, "The test suite's time"). The browser suite's test database,
# which is free by then.
SYSTEMS := tests/standby tests/deploy tests/faults tests/fuzz \
  tests/events/test_stateful.py tests/events/test_staff_migration.py

unit-rest: $(BIN)/.installed
	$(BIN)/python -m pytest -m "not browser" $(addprefix --ignore=,$(SYSTEMS))

systems: $(BIN)/.installed
	TEST_DATABASE_NAME=$${BROWSER_TEST_DATABASE_NAME:-test_browser} \
	  $(BIN)/python -m pytest -o cache_dir=.pytest_cache/systems -m "not browser" $(SYSTEMS)

# Browser tests: a separate pytest run, Debian's Chromium driven by Playwright (no downloads), with
# a test database and a pytest cache (its last failures) of their own: `make test` runs them beside
# the unit tests.
browser: $(BIN)/.installed
	command -v chromium >/dev/null || ./scripts/install-chromium
	TEST_DATABASE_NAME=$${BROWSER_TEST_DATABASE_NAME:-test_browser} \
	  $(BIN)/python -m pytest -o cache_dir=.pytest_cache/browser -m browser tests/browser

# Schemathesis against /api/schema/: the answers and the request schemas. `make unit` runs the
# same at the CI budget; FUZZ_EXAMPLES raises it.
fuzz: $(BIN)/.installed
	./scripts/with-services env FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-30} $(BIN)/python -m pytest tests/fuzz

# Nightly-style: the engine's stateful test and the API fuzz at larger budgets.
slow: $(BIN)/.installed
	./scripts/with-services env STATEFUL_EXAMPLES=$${STATEFUL_EXAMPLES:-200} \
	  $(BIN)/python -m pytest tests/events/test_stateful.py
	./scripts/with-services env FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-100} $(BIN)/python -m pytest tests/fuzz

bench: $(BIN)/.installed
	./scripts/with-services $(BIN)/python bench/evaluator.py

# Keeps var/ (the embedded servers' data: the events); stop them and remove it to start afresh.
clean:
	rm -rf $(VENV) staticfiles .mypy_cache .pytest_cache .ruff_cache
