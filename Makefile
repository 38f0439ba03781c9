# The two commands of the README: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# make run: seconds between two runs of purge-expired (retention) beside the server.
PURGE_EVERY ?= 3600
PG_TEST_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test
# Compiled bytecode, pytest's rewritten test modules included, is kept in the venv, not
# beside the sources, even where the environment says not to write any
# (PYTHONDONTWRITEBYTECODE): without it every test process rewrote the assertions of
# every test module it collected (7 of the 15 CPU-seconds of a collection).
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(abspath $(VENV))/pycache

.PHONY: run test test-fast test-sqlite test-postgres lint install install-test chromium haproxy \
	bench test-cluster coverage

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Installed once per change of pyproject.toml, not on every run (stamp files in the venv).
$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet -e '.[test]'
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

# Set up, keep the demo complete and serve on http://127.0.0.1:$(PORT). A taken port stops
# here, naming the variable to set. refresh-demo (app/demo/upkeep.py) seeds the demo the
# first time, and afterwards renews its links or seeds a fresh one when retention took or
# is about to take part of it; the links are printed by the first gunicorn worker once it
# can answer (gunicorn.conf.py, post_worker_init), for the port served.
run: install
	@$(BIN)/python -c 'import socket; s = socket.socket(); \
		s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int("$(PORT)")))' \
		2>/dev/null || { echo "make run: cannot serve on port $(PORT) of 127.0.0.1: it is in use" \
		"(another server?) or not a port. Choose another with PORT, e.g.: make run PORT=8001" >&2; \
		exit 1; }
	@FLASK_PUBLIC_URL=http://127.0.0.1:$(PORT) $(BIN)/flask --app app init-db
	@FLASK_PUBLIC_URL=http://127.0.0.1:$(PORT) $(BIN)/flask --app app refresh-demo instance/demo.json
	@# Beside the server, stopped with it: gzip and brotli copies of the static files (once
	@# per file version, ~10 s of brotli the first time; until they exist the app serves gzip
	@# made on demand), and retention: purge-expired, then refresh-demo (which prints new
	@# links if it had to re-seed), at start and every PURGE_EVERY seconds (counts in
	@# instance/purge.log). Deployments: cron or a systemd timer (docs/deploy.md). Each step
	@# runs in the background and is waited for, so that the loop's trap stops it at once (a
	@# shell defers its traps while a foreground child runs). gunicorn runs in a process
	@# group of its own (SHARE_VIEWER_OWN_PROCESS_GROUP): Ctrl-C reaches only make and this
	@# shell, whose trap hands it to gunicorn's master, which stops its workers and their
	@# children in order (under 2 s) instead of every process of the tree at once.
	@$(BIN)/flask --app app compress-static > instance/compress-static.log 2>&1 & compressor=$$!; \
	( job=; nap=; trap 'kill $$job $$nap 2>/dev/null; exit 0' TERM; while :; do \
		$(BIN)/flask --app app purge-expired >> instance/purge.log 2>&1 & job=$$!; wait $$job; \
		FLASK_PUBLIC_URL=http://127.0.0.1:$(PORT) $(BIN)/flask --app app refresh-demo --banner \
			instance/demo.json 2>> instance/purge.log & job=$$!; wait $$job; \
		sleep $(PURGE_EVERY) & nap=$$!; wait $$nap; done ) & purger=$$!; \
	trap 'kill $$purger $$compressor 2>/dev/null' EXIT; \
	SHARE_VIEWER_ANNOUNCE=instance/demo.json SHARE_VIEWER_OWN_PROCESS_GROUP=1 \
		FLASK_PUBLIC_URL=http://127.0.0.1:$(PORT) \
		$(BIN)/gunicorn -c gunicorn.conf.py --bind 127.0.0.1:$(PORT) wsgi:app & server=$$!; \
	trap 'kill -INT $$server 2>/dev/null' INT; trap 'kill -TERM $$server 2>/dev/null' TERM HUP; \
	wait $$server; code=$$?; \
	if [ $$code -gt 128 ]; then wait $$server; code=$$?; fi; exit $$code

# Chromium for the browser tests, from Debian's packages (needs root, as on CI).
chromium:
	@test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium)

# HAProxy for the two-node cluster tests (tests/cluster), from Debian's packages (needs root).
haproxy:
	@test -x /usr/sbin/haproxy || (apt-get update -qq && apt-get install -y -qq haproxy)

# Set up and run every test: the whole suite on SQLite (in process but for what real HTTP,
# JavaScript or a real server is the subject of), the tests that depend on the database's
# dialect again on PostgreSQL, and the cluster suite (HAProxy, two gunicorn nodes,
# PostgreSQL, Redis) alone, so that its timings (health checks every 500 ms) do not compete
# with the rest. Every viewer test reads the API through the SDK-fields-only double
# (tests/support/sdk_double.py), so no pass repeats the viewer's tests behind it.
test: install-test chromium haproxy lint test-sqlite test-postgres test-cluster

# The inner loop: SQLite, in process, no browser, no server process, no cluster (1,751
# tests; a folder takes seconds). One folder:
# `make test-fast TESTS=tests/viewer/results`; one test:
# `.venv/bin/python -m pytest tests/viewer/results/test_views.py::test_name`.
TESTS ?= tests
test-fast: install-test
	$(BIN)/python -m pytest -n 2 --dist loadfile -q -m "not slow and not browser" --ignore=tests/cluster $(TESTS)

lint:
	$(BIN)/ruff check .

# --dist loadfile: each test module runs whole on one xdist worker, so a module's fixtures
# (a seeded site, gunicorn, a mail server) start once, not once on each worker, and the
# shared browser site checks its data once per module (xdist's default distribution
# interleaves modules: a run with it went at half the pace). --durations: where the time
# goes, in the CI log.
test-sqlite:
	$(BIN)/python -m pytest -n 2 --dist loadfile -q --durations=25 --ignore=tests/cluster

# What depends on the database: the tests marked `dialect` (the stores, the viewer's index
# build, page child, frames and index-served pages and exports, locks, SKIP LOCKED, time
# zones, JSON, bulk writes). Everything else runs once, on SQLite. Only the modules that
# name the mark are collected (DIALECT_TESTS: collecting all of them cost each worker
# seconds of imports); tests/conftest.py refuses a dialect test elsewhere.
DIALECT_TESTS = $(shell grep -rl --include='test_*.py' 'mark\.dialect' tests | sort)
test-postgres:
	TEST_DATABASE_URL=$(PG_TEST_URL) $(BIN)/python -m pytest -n 2 --dist loadfile -q -m dialect \
		$(DIALECT_TESTS)

test-cluster:
	$(BIN)/python -m pytest -q tests/cluster

# Line and branch coverage of app/ over the SQLite and PostgreSQL passes (htmlcov/ and a
# summary per file); coverage of code run in server processes (gunicorn) is not counted.
coverage: install-test
	rm -f .coverage
	$(BIN)/python -m pytest -n 2 --dist loadfile -q --cov=app --cov-branch --cov-report= \
		--ignore=tests/cluster
	TEST_DATABASE_URL=$(PG_TEST_URL) $(BIN)/python -m pytest -n 2 --dist loadfile -q -m dialect \
		$(DIALECT_TESTS) --cov=app --cov-branch --cov-append --cov-report=
	$(BIN)/python -m coverage report --skip-covered
	$(BIN)/python -m coverage html -q

# The scripts that need nothing but this checkout; bench_api_page.py and bench_viewer_ab.py
# compare it with an older one (see their docstrings).
bench: install-test
	@for script in bench_results_pages bench_auth bench_usage bench_viewer code_shape; do \
		echo "== $$script"; $(BIN)/python bench/$$script.py; done
