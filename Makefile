# croupier: `make demo` and `make test` work on a fresh machine (they create .venv).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo demo-next test test-load lint proto bench clean install chromium node-deps sandbox-deps language-deps other-languages buf check

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,cluster]'
	touch $(STAMP)

install: $(STAMP)

DEMO := demo-out

# Two short ladders among the example bots (XIX, and Xactika at tables of four), each in its own
# SQLite file under demo-out/; each prints its standings, then every deal and record is checked.
demo: $(STAMP) sandbox-deps
	rm -rf $(DEMO)
	$(BIN)/croupier ladder run examples/ladders/xix.toml \
		--database $(DEMO)/xix.sqlite --records $(DEMO)/xix
	$(BIN)/croupier ladder run examples/ladders/xactika.toml \
		--database $(DEMO)/xactika.sqlite --records $(DEMO)/xactika
	$(BIN)/croupier ladder verify $(DEMO)/xix.sqlite
	$(BIN)/croupier ladder verify $(DEMO)/xactika.sqlite
	@$(MAKE) --no-print-directory demo-next

# What to do after the demo: look at one of its matches, and at a ladder's pages
# (tests/test_demo_next.py runs what it prints).
demo-next:
	@record=$$(ls $(DEMO)/xix/*.jsonl | head -n 1); \
	echo; \
	echo "next: look at a match, and at the ladder's pages"; \
	echo "  $(BIN)/croupier replay $$record"; \
	echo "  $(BIN)/croupier replay $$record --html $(DEMO)/match.html"; \
	echo "  $(BIN)/croupier ladder report $(DEMO)/xix.sqlite --html $(DEMO)/xix-report"; \
	echo "then open $(DEMO)/match.html or $(DEMO)/xix-report/index.html in a browser;"; \
	echo "docs/bots.md says how to write a bot, docs/ladders.md how to run a ladder of your own"

# The HTML viewer's tests drive Debian's chromium headless (through Playwright, which never
# downloads a browser here); install it when it is absent.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the HTML viewer tests"; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			chromium fonts-liberation fonts-dejavu-core; }

# Launched bots run in bubblewrap's sandbox (docs/bots.md); the cheat suite needs it, util-linux's
# prlimit and setpriv that set the bots' limits and user, and libseccomp (its filter). Install
# them when absent.
sandbox-deps:
	@command -v bwrap >/dev/null 2>&1 && command -v prlimit >/dev/null 2>&1 && \
		command -v setpriv >/dev/null 2>&1 && \
		ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || { \
		echo "installing Debian's bubblewrap, util-linux and libseccomp2 for the bot sandbox"; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			bubblewrap util-linux libseccomp2; }

# The Node SDK's dependencies, from its lockfile, and the TypeScript example's (with its
# compiler), which it is built with; their tests skip on a machine without node.
node-deps:
	@if command -v node >/dev/null 2>&1; then \
		(cd sdk/node && npm ci --no-audit --no-fund --loglevel=error) && \
		cd examples/typescript && npm ci --no-audit --no-fund --loglevel=error && \
		node node_modules/typescript/bin/tsc -p .; \
	else \
		echo "node not found: skipping the Node SDK's dependencies (its tests will skip)"; \
	fi

# The bots in other languages (examples/cpp, examples/go, examples/java), so that a name clash in
# any generator fails the tests: Debian's compilers and gRPC packages, installed when absent
# (golang-github-golang-protobuf-1-5-dev: the protobuf-go 1.3 that golang-google-grpc-dev pulls
# otherwise cannot encode what protoc-gen-go 1.28 generates; libgrpc-java depends on none of
# the jars it runs on, examples/java/Makefile names them).
LANGUAGE_PACKAGES := g++ make pkg-config protobuf-compiler protobuf-compiler-grpc libgrpc++-dev \
	libprotobuf-dev golang-go protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev \
	golang-github-golang-protobuf-1-5-dev default-jdk-headless libprotobuf-java libgrpc-java \
	protobuf-compiler-grpc-java-plugin libnetty-java libgoogle-gson-java libperfmark-java \
	libguava-java libgeronimo-annotation-1.3-spec-java

language-deps:
	@missing=$$(for p in $(LANGUAGE_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian's" $$missing "for the other-language tests"; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			$$missing; \
	fi

# Cached under examples/*/build: a second run rebuilds nothing.
other-languages: language-deps
	$(MAKE) -C examples/cpp
	$(MAKE) -C examples/go
	$(MAKE) -C examples/java

test: $(STAMP) lint chromium node-deps sandbox-deps other-languages
	$(BIN)/python -m pytest -n 2 -q --durations=15

# The suite beside two busy processes (HOGS=N for more, NICE=19 to run the suite niced), as a
# loaded developer machine runs CI: no test may fail because the machine is busy (issue 50).
HOGS ?= 2
NICE ?= 0
test-load: $(STAMP) chromium node-deps sandbox-deps other-languages
	$(BIN)/python scripts/with_load.py --hogs $(HOGS) --nice $(NICE) -- \
		$(BIN)/python -m pytest -n 2 -q --durations=15

# The inner loop: the linters that need no npm, and the tests that need nothing `make install`
# does not bring (no browser, Node, compilers, nor the sandbox escape suites).
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -n 2 -q -m "not system" --durations=15

# buf (npm @bufbuild/buf, pinned in tools/package-lock.json) lints the protos and checks them
# against the previous release's (buf.yaml says which rules and why the exceptions).
BUF := tools/node_modules/.bin/buf

$(BUF): tools/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
		echo "installing Debian's npm for buf"; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			nodejs npm; }
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	touch $@

buf: $(BUF)
	$(BUF) lint
	$(BUF) breaking --against tools/buf/baseline.binpb

lint: $(STAMP) buf
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
