# StormScope — newcomers: `make run`, then `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SAMPLE_WS := $(VENV)/sample_workspace.duckdb
DIST_STAMP := $(VENV)/.installed-dist
# the desktop build: the .app on macOS, else the folder of both programs (packaging/smoke_test.py knows each layout)
DIST_APP := $(if $(filter Darwin,$(shell uname -s)),dist/StormScope.app,dist/StormScope)
VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml | head -1)

.PHONY: install run test test-slow lint golden schema-doc bench soak stress clean dist deb install-check library-spark

install: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

# Opens StormScope on the sample captures (a workspace of its own under .venv/). Two captures need
# what their files cannot say (see sample_traces/README.md): the interval of `iostat -d 2`, and -y.
run: install
	@$(PY) packaging/check_qt_libs.py
	@$(PY) main.py import sample_traces/capped_200iops_iostat-d.txt --interval 2 -w $(SAMPLE_WS) >/dev/null || true
	@$(PY) main.py import sample_traces/storm_fast_iostat-xt.txt sample_traces/storm_slow_iostat-xt.txt \
		--first-report interval -w $(SAMPLE_WS) >/dev/null || true
	$(PY) main.py gui sample_traces -w $(SAMPLE_WS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

test: lint
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n 2 -m "not slow" --durations=15

# The heavy variants make test leaves out (a whole corpus, every command over the received files, the soak, the
# disk-full and kill runs: tests/conftest.py SLOW); .ci/run runs them after make test.
test-slow: install
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n 2 -m slow

# Regenerate the golden files of the corpus tests (review the diff by eye before committing).
golden: install
	STORMSCOPE_REGEN_GOLDEN=1 $(PY) -m pytest -q tests/parsers/test_golden_*.py

# Regenerate docs/schema.md from the table specs in parsers/schema.py (a test fails while it is stale).
schema-doc: install
	$(PY) -m app.schema_doc

# The engagement library read by Spark (local mode, its own venv, Java from the system) gets the same figures as
# DuckDB and as StormScope's comparison (tests/library_spark.py); about 3 minutes here, most of it Spark's start.
SPARK_VENV := .venv-spark
library-spark: install
	test -x $(SPARK_VENV)/bin/python || $(PYTHON) -m venv $(SPARK_VENV)
	$(SPARK_VENV)/bin/python -m pip install --quiet -r requirements-spark.txt
	rm -rf build/library-spark
	$(PY) tests/library_spark.py prepare build/library-spark
	$(SPARK_VENV)/bin/python tests/library_spark.py spark build/library-spark
	$(PY) tests/library_spark.py check build/library-spark

bench: install
	$(PY) benchmarks/bench_formats.py
	$(PY) benchmarks/bench_import.py
	QT_QPA_PLATFORM=offscreen $(PY) benchmarks/bench_grid.py
	$(PY) benchmarks/bench_startup.py

# The long soak: the real window offscreen through 20,000 interactions (make test runs 1,000).
soak: install
	QT_QPA_PLATFORM=offscreen $(PY) tests/soak_window.py 20000 11

# What `pipx install .` gives a user: `pip install .` into a throwaway venv, then `stormscope --version`, an import
# and a report run from / (packaging/install_check.sh).
install-check:
	PYTHON=$(PYTHON) packaging/install_check.sh

# The desktop app (PyInstaller one-folder build, packaging/stormscope.spec) in dist/, then its smoke test:
# --version, the sample traces imported (the same answer as the checkout), a report, the window offscreen.
# Build time, size and start-up figures: packaging/README.md.
dist: install $(DIST_STAMP)
	rm -rf dist/StormScope dist/StormScope.app build/pyinstaller
	$(VENV)/bin/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller \
		packaging/stormscope.spec
	$(PY) packaging/smoke_test.py $(DIST_APP)
	@du -sh $(DIST_APP)

# The Linux installer: a .deb of the desktop build (built first when there is none), then its smoke test -- control
# data, the menu entry, every library resolved, and the smoke test on the build as the .deb unpacks it
# (packaging/deb.py; nothing is installed).
deb: install $(DIST_STAMP)
	test -x dist/StormScope/stormscope-cli || $(MAKE) dist
	$(PY) packaging/deb.py build dist/StormScope dist
	$(PY) packaging/deb.py check dist/stormscope_$(VERSION)_$(shell dpkg --print-architecture).deb

$(DIST_STAMP): requirements-dist.txt $(STAMP)
	$(PY) -m pip install --quiet -r requirements-dist.txt
	touch $(DIST_STAMP)

# The reliability suite's heavy variants (issue 17), run once, printing figures (62 min on 2 busy cores): 100
# import kills, as many fuzz cases as fit in 15 min, round trips, disk-full and permission cases, hostile workspaces.
stress: install
	$(PY) -m tests.stress --fuzz-minutes 15

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis .import_linter_cache build dist *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
