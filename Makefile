# croupier: `make demo` and `make test` work on a fresh machine (they create .venv).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint proto bench clean install

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

DEMO := demo-out

demo: $(STAMP)
	rm -rf $(DEMO)
	$(BIN)/croupier match xix --games 100 --records $(DEMO)/xix \
		--bot "$(BIN)/python examples/python/random_bot.py" \
		--bot "$(BIN)/python examples/python/xix_heuristic.py"
	$(BIN)/croupier replay --verify $(DEMO)/xix/*.jsonl

test: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

proto: $(STAMP)
	$(BIN)/python scripts/protogen.py

bench: $(STAMP)
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
