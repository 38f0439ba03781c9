# The two commands of the README: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# make run: seconds between two runs of purge-expired (retention) beside the server.
PURGE_EVERY ?= 3600
PG_TEST_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test

.PHONY: run test test-sqlite test-postgres test-sdk-double lint install install-test chromium haproxy \
	bench test-cluster

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
# here, naming the variable to set. refresh-demo (app/demo_upkeep.py) seeds the demo the
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

# Set up and run every test: the whole suite on SQLite, the service suite on PostgreSQL,
# the viewer's page, exploration, export and 3D tests again against an API double that sends
# only the fields the official SDK declares (test-sdk-double, tests/support/sdk_double.py), and
# the cluster suite (HAProxy, two gunicorn nodes, PostgreSQL, Redis) alone, so that its
# timings (health checks every 500 ms) do not compete with the rest of the suite.
test: install-test chromium haproxy lint test-sqlite test-postgres test-sdk-double test-cluster

lint:
	$(BIN)/ruff check .

# --dist loadfile: each test module runs whole on one xdist worker, so a module's fixtures
# (a seeded site, gunicorn, a mail server) start once, not once on each worker, and the
# shared browser site checks its data once per module (xdist's default distribution
# interleaves modules: a run with it went at half the pace). --durations: where the time
# goes, in the CI log.
test-sqlite:
	$(BIN)/python -m pytest -n 2 --dist loadfile -q --durations=25 --ignore=tests/cluster

# Beside the service and its store: the viewer's index built while the API serves pages
# (the same answers as the API's), by the page child, the index-served page and exports,
# and shared frames.
PG_VIEWER_TESTS := tests/viewer/results/test_index_build.py \
	tests/viewer/results/test_page_child.py tests/viewer/results/test_index_served.py \
	tests/viewer/exports/test_index_exports.py tests/viewer/results/test_frame_files.py

test-postgres:
	TEST_DATABASE_URL=$(PG_TEST_URL) $(BIN)/python -m pytest -n 2 --dist loadfile -q \
		tests/service tests/store $(PG_VIEWER_TESTS)

# The viewer reading the embedded API through tests/support/sdk_double.py: each share read and results
# page validated strictly with the SDK's models and cut to the fields they declare (an
# answer they reject is a 502, so the test reading it fails). Only the tests of these
# folders that build the app run again (tests/conftest.py deselects the others, about a
# third): the double lives in the ``app`` fixture, so a test without it (a pure function,
# its own fake API) can read no answer through the double and would repeat the SQLite run.
SDK_DOUBLE_TESTS := tests/test_sdk_double.py tests/viewer/pages tests/viewer/results \
	tests/viewer/exports tests/viewer/structure tests/viewer/depictions \
	tests/viewer/web/test_embeds.py tests/signin/test_email_flow.py

test-sdk-double:
	SHARE_VIEWER_API_DOUBLE=sdk $(BIN)/python -m pytest -n 2 --dist loadfile -q $(SDK_DOUBLE_TESTS)

test-cluster:
	$(BIN)/python -m pytest -q tests/cluster

# The scripts that need nothing but this checkout; bench_api_page.py and bench_viewer_ab.py
# compare it with an older one (see their docstrings).
bench: install-test
	@for script in bench_results_pages bench_auth bench_usage bench_viewer code_shape; do \
		echo "== $$script"; $(BIN)/python bench/$$script.py; done
