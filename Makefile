# The single entry point: build, lint, test, bench, run (and protos, web, ops from mk/*.mk).
#
#   make up      install what is needed, then `griot up`: the whole system on this machine
#   make test    install what is needed, then every test: Rust, TypeScript, Python
#
# Installs are remembered in .stamps/ and redone only when their inputs change.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
STAMPS := .stamps
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name '*.toml' 2>/dev/null) Cargo.toml Cargo.lock

.PHONY: install build lint test test-rust test-python bench fmt tools

## install: the package with its test extras, the native core built in release mode
install: $(STAMPS)/install

$(STAMPS)/install: pyproject.toml $(RUST_SOURCES)
	@mkdir -p $(STAMPS)
	$(PIP) install -q 'maturin>=1.7,<2'
	$(PIP) install -q -e '.[test,openspiel]'
	@touch $@

## tools: everything the tests use besides the package (redis-server, rabbitmq-server, deploy checkers, web)
tools: install $(STAMPS)/redis $(STAMPS)/rabbitmq $(STAMPS)/deploy-tools $(STAMPS)/web-install

$(STAMPS)/redis:
	@mkdir -p $(STAMPS)
	command -v redis-server >/dev/null 2>&1 || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null)
	@touch $@

# The tests start private nodes from the server's own script; Debian's package does not start one
# where no init system runs (policy-rc.d), and a started system node is left alone.
$(STAMPS)/rabbitmq:
	@mkdir -p $(STAMPS)
	test -x /usr/lib/rabbitmq/bin/rabbitmq-server || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rabbitmq-server >/dev/null)
	@touch $@

$(STAMPS)/deploy-tools: pyproject.toml
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

## bench: perft and playout speed against OpenSpiel, the search bench (figures go to the README)
bench: install
	$(PYTHON) bench/perft_playouts.py
	griot bench

-include mk/*.mk
