# The API's targets (protos, generated code, rules service). Included by the repo-root Makefile.
#
#   make protos        regenerate python/griot/v1 from protos/griot/v1
#   make protos-check  fail if the committed generated code is not what protos/ generates
#   make buf-lint      lint protos/ with buf (STANDARD rules, buf.yaml)
#   make rules-serve   run the rules service on GRIOT_RULES_PORT (default 50051)
#   make rules-test    the service tests (real server on loopback)
#   make rules-load-build  build the Rust load generator bench/rules-load (its own cargo workspace)
#   make rules-bench   the ApplyMove load benchmark (bench/RESULTS-rules.md): Rust and Python generators

PYTHON ?= python3
BUF_DIR := tools/buf
BUF := $(BUF_DIR)/node_modules/.bin/buf

.PHONY: protos protos-check buf-lint rules-serve rules-test rules-bench rules-load-build

protos:
	PYTHON=$(PYTHON) scripts/gen_protos.sh

protos-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	PYTHON=$(PYTHON) scripts/gen_protos.sh "$$tmp" >/dev/null && \
	diff -r -x __pycache__ "$$tmp/griot/v1" python/griot/v1 && \
	echo "protos-check: python/griot/v1 is current"

$(BUF):
	cd $(BUF_DIR) && npm install --no-audit --no-fund --loglevel=error

buf-lint: $(BUF)
	$(BUF) lint
	$(BUF) format --diff --exit-code

rules-serve:
	$(PYTHON) -m griot.services.rules

rules-test:
	$(PYTHON) -m pytest -q tests/services

rules-load-build:
	cargo build --release --manifest-path bench/rules-load/Cargo.toml

rules-bench: rules-load-build
	$(PYTHON) bench/rules_load.py
