# Commands for a fresh machine: `make demo` (the default benchmark), `make test`, `make lint`.
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Offline datasets: the shared folder beside this checkout, unless REWIREKIT_DATA says otherwise.
export REWIREKIT_DATA ?= $(abspath ../shared/datasets)

.PHONY: install demo test lint

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test,lint]'
	touch $@

demo: $(STAMP)
	$(BIN)/rewirekit bench

test: $(STAMP)
	$(BIN)/pytest -q -n 2 --durations=15

# Rules and paths are in pyproject.toml ([tool.ruff], [tool.mypy]).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
