# The single entry point: build, lint, test, bench (and protos, from mk/*.mk).
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip

.PHONY: install build lint test test-rust test-python bench fmt

## install: the package with its test extras, the native core built in release mode
install:
	$(PIP) install -q -e '.[test,openspiel]'

## build: rebuild the native extension after Rust changes
build:
	$(PIP) install -q -e .

## lint: formatting, clippy, ruff, mypy
lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(PYTHON) -m ruff check python tests bench
	$(PYTHON) -m mypy
	$(MAKE) buf-lint

## fmt: format Rust and Python
fmt:
	cargo fmt --all
	$(PYTHON) -m ruff check --fix python tests bench

## test: every test, Rust then Python (the README's test command)
test: test-rust test-python

test-rust:
	cargo test --workspace --quiet

test-python:
	$(PYTHON) -m pytest -q

## bench: perft and playout speed against OpenSpiel (figures go to the README)
bench:
	cargo bench -p griot-core --quiet || true
	$(PYTHON) bench/perft_playouts.py

-include mk/*.mk
