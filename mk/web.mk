# The browser side: the TypeScript client and the demo board in web/, served by
# services/web. Included by the repo-root Makefile.
#
#   make web-install     npm packages of web/ (one workspace: client + app)
#   make web-gen         regenerate web/client/src/gen from protos/ (buf + protoc-gen-es)
#   make web-gen-check   fail if the committed TypeScript code is not what protos/ generates
#   make web-build       type-check the client and the app, build the board into python/griot/board
#                        (the package serves it; wheels and sdists carry it)
#   make web-board       the same, only when a file under web/ changed since the board was built
#   make web-test        vitest: the client and the board's logic
#   make web-e2e         the end-to-end tests in headless Chromium (pytest tests/web/test_e2e.py)
#   make web-serve       python -m griot.services.web on :8080 (the API under /api and the built app at /)
#   make web-dev         Vite's dev server on :5173, proxying /api to :8080

PYTHON ?= python3
WEB_DIR := web
WEB_NPM_FLAGS := --no-audit --no-fund --loglevel=error

.PHONY: web-install web-gen web-gen-check web-build web-board web-test web-e2e web-serve web-dev

# What the board is built from: every file of the client and the app but their packages and
# builds, and the workspace's package files. The built board's index.html is the stamp.
WEB_SOURCES := $(shell find $(WEB_DIR)/client $(WEB_DIR)/app \( -name node_modules -o -name dist \) -prune \
  -o -type f -print 2>/dev/null) $(wildcard $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json)
BOARD_INDEX := python/griot/board/index.html

# `npm ci` refuses a lockfile that cannot list other platforms' optional binaries (rollup's,
# esbuild's, buf's), which the registry reachable here does not serve; `npm install` then installs
# the lockfile's versions.
web-install:
	cd $(WEB_DIR) && (npm ci $(WEB_NPM_FLAGS) || npm install $(WEB_NPM_FLAGS))

# The browser tests' Chromium (make test only; running Griot needs no browser on this machine).
$(STAMPS)/chromium:
	@mkdir -p $(STAMPS)
	@if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then \
	  echo "chromium is not installed: installing Debian's chromium for the browser tests (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	@touch $@

web-gen:
	cd $(WEB_DIR)/client && npm run --silent gen

web-gen-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cd $(WEB_DIR)/client && npx --no-install buf generate ../.. --template buf.gen.yaml -o "$$tmp" && \
	diff -r "$$tmp/src/gen" src/gen && echo "web-gen-check: web/client/src/gen is current"

web-build:
	cd $(WEB_DIR) && npx --no-install tsc --noEmit -p client && npx --no-install tsc --noEmit -p app
	cd $(WEB_DIR)/app && npx --no-install vite build --logLevel warn

$(BOARD_INDEX): $(WEB_SOURCES)
	$(MAKE) web-build
	@touch $@

web-board: $(STAMPS)/web-install $(BOARD_INDEX)

web-test:
	cd $(WEB_DIR) && npx --no-install vitest run

web-e2e:
	$(PYTHON) -m pytest -q tests/web/test_e2e.py -rs

web-serve:
	$(PYTHON) -m griot.services.web

web-dev:
	cd $(WEB_DIR)/app && npx --no-install vite
