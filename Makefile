# The two commands of the README: `make serve` and `make test`. Each installs what it needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test serve lint bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check rules protocol server floe_cli tests bench
	$(BIN)/mypy rules protocol server floe_cli

test: $(STAMP) lint
	$(BIN)/pytest

# The match server on http://127.0.0.1:8000 with the embedded store.
serve: $(STAMP)
	$(BIN)/floe serve --host 127.0.0.1 --port 8000

bench: $(STAMP)
	$(BIN)/python -m bench.kick_speed

clean:
	rm -rf $(VENV)
