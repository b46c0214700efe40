# Two commands for a newcomer: `make demo` and `make test`. Both install into .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test lint format docs fixtures bench bench-instructions clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/agent-as-model demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy agent_as_model
	$(BIN)/mypy --strict agent_as_model/engine agent_as_model/states agent_as_model/cursors.py

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

docs: $(STAMP)
	$(BIN)/python -m agent_as_model.engine.diagram --write docs/architecture.md
	$(BIN)/python -m tests.doc_examples --write docs/tools-and-structured-output.md

# Re-record tests/fixtures/transcripts/ with `serve --record` (after a deliberate change on the wire).
fixtures: $(STAMP)
	$(BIN)/python -m tests.fixtures.make_transcripts

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_calls.py

# Deterministic: instructions per call under callgrind (needs valgrind), unmoved by machine noise.
bench-instructions: $(STAMP)
	$(BIN)/python benchmarks/bench_calls.py --instructions

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
