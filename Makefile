# Two commands for a newcomer: `make demo` and `make test`. Both install into .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test lint format docs fixtures bench bench-instructions bench-cursors bench-startup bench-memory bench-hostile bench-store bench-callers property-deep soak clean

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
	$(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

docs: $(STAMP)
	$(BIN)/python -m agent_as_model.engine.diagram --write docs/architecture.md
	$(BIN)/python -m tests.doc_examples --write docs/tools-and-structured-output.md
	$(BIN)/python -m tests.wire_capture --write docs/eras.md
	$(BIN)/python -m tests.corpus.parameters --write docs/parameters.md

# Re-record tests/fixtures/transcripts/ with `serve --record` (after a deliberate change on the wire).
fixtures: $(STAMP)
	$(BIN)/python -m tests.fixtures.make_transcripts

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_calls.py

# Deterministic: instructions per call under callgrind (needs valgrind), unmoved by machine noise.
bench-instructions: $(STAMP)
	$(BIN)/python benchmarks/bench_calls.py --instructions

# What a long session-cursor chain costs: server CPU per call of 10-, 100- and 1000-turn
# chat_complete histories passed back with their cursor, as ratios against a plain call.
bench-cursors: $(STAMP)
	$(BIN)/python benchmarks/bench_cursors.py

# Start-up to the first tools/list, in instructions under callgrind, against a bare SDK server.
bench-startup: $(STAMP)
	$(BIN)/python benchmarks/bench_startup.py

# The server's RSS every 1,000 calls over 10,000 calls per era.
bench-memory: $(STAMP)
	$(BIN)/python benchmarks/bench_memory.py

# Does a hostile schema stall the server? A concurrent list_models during each hostile case of
# issue 13, over stdio, against list_models alone.
bench-hostile: $(STAMP)
	$(BIN)/python benchmarks/bench_hostile.py

# What `serve --store` adds per call (SQLite, Redis) against no store, and a 100-turn stored chain
# against the same history passed back (issue 23).
bench-store: $(STAMP)
	$(BIN)/python benchmarks/bench_store.py

# What callers' limits add to a call: memory, SQLite and a real redis-server against no limits.
bench-callers: $(STAMP)
	$(BIN)/python benchmarks/bench_callers.py

# The property tests with twenty times the examples and fresh random draws (CI runs them
# derandomized, at the default scale, inside `make test`).
property-deep: $(STAMP)
	PROPERTY_SCALE=20 $(BIN)/python -m pytest property_tests -q

# Garbage in, on every tool, on both eras, over stdio (issue 13): 20,000 hypothesis-generated calls
# counted as ok / clear error / opaque error / hang / dead, with the server's RSS. Not part of `make test`.
soak: $(STAMP)
	$(BIN)/python benchmarks/soak.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
