# StormScope — newcomers: `make run`, then `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SAMPLE_WS := $(VENV)/sample_workspace.duckdb

.PHONY: install run test lint golden schema-doc bench soak stress clean

install: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

# Opens StormScope on the sample captures (a workspace of its own under .venv/). Two captures need
# what their files cannot say (see sample_traces/README.md): the interval of `iostat -d 2`, and -y.
run: install
	@$(PY) main.py import sample_traces/capped_200iops_iostat-d.txt --interval 2 -w $(SAMPLE_WS) >/dev/null || true
	@$(PY) main.py import sample_traces/storm_fast_iostat-xt.txt sample_traces/storm_slow_iostat-xt.txt \
		--first-report interval -w $(SAMPLE_WS) >/dev/null || true
	$(PY) main.py gui sample_traces -w $(SAMPLE_WS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

test: lint
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n 2

# Regenerate the golden files of the corpus tests (review the diff by eye before committing).
golden: install
	STORMSCOPE_REGEN_GOLDEN=1 $(PY) -m pytest -q tests/test_golden_*.py

# Regenerate docs/schema.md from the table specs in parsers/schema.py (a test fails while it is stale).
schema-doc: install
	$(PY) -m app.schema_doc

bench: install
	$(PY) benchmarks/bench_import.py
	QT_QPA_PLATFORM=offscreen $(PY) benchmarks/bench_grid.py
	$(PY) benchmarks/bench_startup.py

# The long soak: the real window offscreen through 20,000 interactions (make test runs 2,000).
soak: install
	QT_QPA_PLATFORM=offscreen $(PY) tests/soak_window.py 20000 11

# The reliability suite's heavy variants (issue 17), run once, printing figures (62 min on 2 busy cores): 100 import kills,
# as many fuzz cases as fit in 15 min, round trips, disk-full and permission cases, hostile workspaces.
stress: install
	$(PY) -m tests.stress --fuzz-minutes 15

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
