# The two commands: `make run` serves the demo diagnosis, `make test` runs every check.
VENV ?= .venv
BIN := $(VENV)/bin
PYTHON ?= python3

.PHONY: run test lint typecheck pytest migrate eval bench lab lab-stack clean

$(BIN)/.synced: pyproject.toml uv.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@test -x $(BIN)/uv || $(BIN)/python -m pip install --quiet uv==0.13.8
	UV_PROJECT_ENVIRONMENT=$(VENV) $(BIN)/uv sync --frozen --quiet
	@touch $@

run: $(BIN)/.synced
	$(BIN)/superbiz migrate
	$(BIN)/superbiz serve

migrate: $(BIN)/.synced
	$(BIN)/superbiz migrate

lint: $(BIN)/.synced
	$(BIN)/ruff check .

typecheck: $(BIN)/.synced
	$(BIN)/mypy .

# pytest exits 5 when it collected nothing: for us that is a failure, not a pass.
pytest: $(BIN)/.synced
	@$(BIN)/pytest $(PYTEST_ARGS); status=$$?; \
	  if [ $$status -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$status

test: lint typecheck pytest

# Benchmarks (bench/, see bench/README.md): prints a Markdown table, writes bench-results/latest.json.
bench: $(BIN)/.synced
	$(BIN)/python -m bench

# The live fault lab (tests/lab, README "Live fault lab"): real faults on a throwaway stack, a verdict table.
lab: $(BIN)/.synced
	$(BIN)/python -m tests.lab

# Only the lab's stack, held until Ctrl-C: prints the settings that point `make run` at it (README).
lab-stack: $(BIN)/.synced
	$(BIN)/python -m tests.lab --stack-only

clean:
	rm -rf $(VENV) var .mypy_cache .pytest_cache .ruff_cache
