# Two commands do everything on a fresh machine with Python >= 3.11 and make:
#   make run   - create .venv, install, start quizzer
#   make test  - create .venv (with dev extras), lint (ruff), type-check (mypy), check the layering (lint-imports),
#                run the whole suite, one pytest-xdist worker per core (with bytecode writing allowed even where
#                PYTHONDONTWRITEBYTECODE is set: pytest keeps its assertion-rewritten test modules only as
#                bytecode, and rewriting all of them again cost each worker ~3.5 s of every run)
#   make bench-load - 50 simulated learners on PostgreSQL (a throwaway local server), then SQLite
#   make bench-serve - quizzer serve's memory per session and latency, at 10, 50 and 100 sessions (or the machine's limit)
# The first interpreter that actually runs and is >= 3.11 (pyenv shims may exist but fail).
PYTHON ?= $(shell for p in python3 python3.11 python3.12 python3.13; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench bench-load bench-serve clean compiled

# The project's own modules compiled ahead: an editable install leaves them uncompiled, and where
# PYTHONDONTWRITEBYTECODE is set no process writes them, so each of the suite's hundreds of quizzer
# processes (and every start of the app) would compile them again (~20 ms a process).
compiled: $(STAMP)
	@$(BIN)/python -m compileall -q quizzer engine

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "quizzer needs Python >= 3.11 (none found on PATH)" >&2; exit 2; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: compiled
	$(BIN)/quizzer

test: compiled
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n auto --dist worksteal

bench: compiled
	$(BIN)/python bench/run.py

# Minutes, not seconds: LOAD_ARGS="--learners 20 --seconds 10" for a shorter run.
bench-load: $(STAMP)
	.ci/with-postgres $(BIN)/python bench/bench_load.py $(LOAD_ARGS)

# quizzer serve's capacity: memory per session and enter-to-verdict latency at 10, 50, 100 sessions
# (SERVE_ARGS="--sessions 10 --browsers 1" for a short run). Minutes, and gigabytes at 100.
bench-serve: $(STAMP)
	$(BIN)/python bench/bench_serve.py $(SERVE_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache .mypy_cache build *.egg-info
