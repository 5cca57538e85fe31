# Commands for a fresh machine: `make demo` (the default benchmark), `make test`, `make lint`,
# `make docs` (the documentation site, into docs/site/_build/html).
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed
# Offline datasets: the shared folder beside this checkout, unless REWIREKIT_DATA says otherwise.
export REWIREKIT_DATA ?= $(abspath ../shared/datasets)

.PHONY: install demo test lint docs tables

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test,lint,singlecell,certify,distributed]'
	# The curvature reference the tests compare with. GraphRicciCurvature 0.6.1 pins
	# scipy<=1.13.1, which it does not need: --no-deps keeps the environment as it is.
	$(BIN)/pip install --quiet -c constraints.txt --no-deps GraphRicciCurvature==0.6.1 networkit==11.3 python-louvain==0.16
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

# Every reproduction table in docs/, from the committed per-split rows alone (no training).
tables: $(STAMP)
	$(BIN)/python benchmarks/reproduce_papers.py --all --stored-only --runs-file docs/reproduction_runs.csv.gz

$(DOCS_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[docs]'
	touch $@

# Offline (MathJax comes in the docs extra), warnings are errors. The API pages are generated
# anew each time, so a module that was renamed or removed leaves no stale page behind.
docs: $(DOCS_STAMP)
	rm -rf docs/site/generated
	$(BIN)/sphinx-build -q -W --keep-going -b html docs/site docs/site/_build/html
	@echo "built docs/site/_build/html/index.html"
