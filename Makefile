# Two commands for a fresh machine:  `make demo` (the default benchmark) and `make test`.
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Offline datasets: the shared folder beside this checkout, unless REWIREKIT_DATA says otherwise.
export REWIREKIT_DATA ?= $(abspath ../shared/datasets)

.PHONY: install demo test

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'
	touch $@

demo: $(STAMP)
	$(BIN)/rewirekit bench

test: $(STAMP)
	$(BIN)/pytest -q -n 2 --durations=15
