# The single entry point: build, lint, test, bench, run (and protos, web, ops from mk/*.mk).
#
#   make up      install what running needs, then `griot up`: the whole system on this machine
#   make test    install what the tests need, then every test: Rust, TypeScript, Python
#   make dist    the wheel and the sdist in dist/, with the demo board built into them
#
# Installs are remembered in .stamps/ and redone only when their inputs change. What either command
# installs system-wide is said as it happens (and listed in docs/DEVELOPMENT.md).
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
STAMPS := .stamps
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name '*.toml' 2>/dev/null) Cargo.toml Cargo.lock

.PHONY: install install-server build lint test test-rust test-python bench fmt tools dist

## install-server: the package with the server extra (what `griot up` runs), for `make up`
install-server: $(STAMPS)/install-server

$(STAMPS)/install-server: pyproject.toml $(RUST_SOURCES)
	@mkdir -p $(STAMPS)
	$(PIP) install -q 'maturin>=1.7,<2'
	$(PIP) install -q -e '.[server]'
	@touch $@

## install: the package with its test extras, the native core built in release mode
install: $(STAMPS)/install

$(STAMPS)/install: pyproject.toml $(RUST_SOURCES)
	@mkdir -p $(STAMPS)
	$(PIP) install -q 'maturin>=1.7,<2'
	$(PIP) install -q -e '.[test,openspiel]'
	@touch $@

## tools: everything the tests use besides the package (redis-server, rabbitmq-server, deploy
## checkers, web, Chromium)
tools: install $(STAMPS)/redis $(STAMPS)/rabbitmq $(STAMPS)/deploy-tools $(STAMPS)/web-install $(STAMPS)/chromium

$(STAMPS)/redis:
	@mkdir -p $(STAMPS)
	@{ command -v redis-server && command -v redis-cli; } >/dev/null 2>&1 || { \
	  echo "redis-server or redis-cli is not installed: installing Debian's (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools >/dev/null; }
	@touch $@

# The tests start private nodes from the server's own script; Debian's package does not start one
# where no init system runs (policy-rc.d), and a started system node is left alone.
$(STAMPS)/rabbitmq:
	@mkdir -p $(STAMPS)
	@test -x /usr/lib/rabbitmq/bin/rabbitmq-server || { \
	  echo "rabbitmq-server is not installed: installing Debian's rabbitmq-server (apt-get), a broker the tests also run on"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rabbitmq-server >/dev/null; }
	@touch $@

$(STAMPS)/deploy-tools: pyproject.toml mk/ops.mk
	@mkdir -p $(STAMPS)
	$(MAKE) deploy-tools
	@touch $@

$(STAMPS)/web-install: web/package-lock.json
	@mkdir -p $(STAMPS)
	$(MAKE) web-install
	@touch $@

## build: rebuild the native extension after Rust changes
build:
	$(PIP) install -q -e .
	@mkdir -p $(STAMPS) && touch $(STAMPS)/install

## lint: formatting, clippy, ruff, mypy, buf
lint: tools
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(PYTHON) -m ruff check python tests bench services $(wildcard workers)
	$(PYTHON) -m ruff format --check python tests bench services $(wildcard workers)
	$(PYTHON) -m mypy
	$(MAKE) buf-lint
	$(MAKE) web-gen-check

## fmt: format Rust and Python
fmt:
	cargo fmt --all
	$(PYTHON) -m ruff check --fix python tests bench services workers
	$(PYTHON) -m ruff format python tests bench services workers

## test: every test (the README's test command): Rust, TypeScript, then Python (which includes the
## services, workers, launcher and the browser end to end)
test: tools
	$(MAKE) test-rust
	$(MAKE) web-build
	$(MAKE) web-test
	$(MAKE) test-python

test-rust:
	cargo test --workspace --quiet

test-python:
	$(PYTHON) -m pytest -q

## dist: the wheel (release build) and the sdist in dist/, the demo board built into both
dist: $(STAMPS)/web-install
	$(MAKE) web-build
	$(PIP) install -q 'maturin>=1.7,<2'
	$(PYTHON) -m maturin build --release --out dist
	$(PYTHON) -m maturin sdist --out dist

## bench: perft and playout speed against OpenSpiel, the search bench (figures go to bench/README.md)
bench: install
	$(PYTHON) bench/perft_playouts.py
	griot bench

-include mk/*.mk
