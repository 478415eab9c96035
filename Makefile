# croupier: `make demo` and `make test` work on a fresh machine (they create .venv).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint proto bench clean install chromium node-deps sandbox-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,cluster]'
	touch $(STAMP)

install: $(STAMP)

DEMO := demo-out

# Two short ladders among the example bots (XIX, and Xactika at tables of four), each in its own
# SQLite file under demo-out/; each prints its standings, then every deal and record is checked.
demo: $(STAMP)
	rm -rf $(DEMO)
	$(BIN)/croupier ladder run examples/ladders/xix.toml \
		--database $(DEMO)/xix.sqlite --records $(DEMO)/xix
	$(BIN)/croupier ladder run examples/ladders/xactika.toml \
		--database $(DEMO)/xactika.sqlite --records $(DEMO)/xactika
	$(BIN)/croupier ladder verify $(DEMO)/xix.sqlite
	$(BIN)/croupier ladder verify $(DEMO)/xactika.sqlite

# The HTML viewer's tests drive Debian's chromium headless (through Playwright, which never
# downloads a browser here); install it when it is absent.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the HTML viewer tests"; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			chromium fonts-liberation fonts-dejavu-core; }

# Launched bots run in bubblewrap's sandbox (docs/bots.md); the cheat suite needs it, and
# util-linux's prlimit that sets the bots' limits. Install them when absent.
sandbox-deps:
	@command -v bwrap >/dev/null 2>&1 && command -v prlimit >/dev/null 2>&1 || { \
		echo "installing Debian's bubblewrap for the bot sandbox"; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			bubblewrap util-linux; }

# The Node SDK's dependencies, from its lockfile; its tests skip on a machine without node.
node-deps:
	@if command -v node >/dev/null 2>&1; then \
		cd sdk/node && npm ci --no-audit --no-fund --loglevel=error; \
	else \
		echo "node not found: skipping the Node SDK's dependencies (its tests will skip)"; \
	fi

test: $(STAMP) lint chromium node-deps sandbox-deps
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

proto: $(STAMP)
	$(BIN)/python scripts/protogen.py

bench: $(STAMP)
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
