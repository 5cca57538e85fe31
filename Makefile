# Two commands for a fresh machine:  `make demo` (the default benchmark) and `make test`;
# `make docs` builds the documentation site into docs/site/_build/html.
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed
# Offline datasets: the shared folder beside this checkout, unless REWIREKIT_DATA says otherwise.
export REWIREKIT_DATA ?= $(abspath ../shared/datasets)

.PHONY: install demo test docs

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'
	touch $@

demo: $(STAMP)
	$(BIN)/rewirekit bench

test: $(STAMP)
	$(BIN)/pytest -q -n 2 --durations=15

$(DOCS_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[docs]'
	touch $@

# Offline (MathJax comes in the docs extra), warnings are errors. The API pages are generated
# anew each time, so a module that was renamed or removed leaves no stale page behind.
docs: $(DOCS_STAMP)
	rm -rf docs/site/generated
	$(BIN)/sphinx-build -q -W --keep-going -b html docs/site docs/site/_build/html
	@echo "built docs/site/_build/html/index.html"
