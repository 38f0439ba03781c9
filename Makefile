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

# Set up, seed the demo once and serve on http://127.0.0.1:$(PORT); the share URL is printed
# by the first gunicorn worker once it can answer (gunicorn.conf.py, post_worker_init).
run: install
	@FLASK_PUBLIC_URL=http://127.0.0.1:$(PORT) $(BIN)/flask --app app init-db
	@# gzip and brotli copies of the static files, once per file version: ~10 s of brotli the
	@# first time, so in the background (until they exist the app serves gzip made on demand).
	@$(BIN)/flask --app app compress-static > instance/compress-static.log 2>&1 &
	@test -s instance/demo.json || FLASK_PUBLIC_URL=http://127.0.0.1:$(PORT) \
		$(BIN)/flask --app app seed-demo --json > instance/demo.json
	@# Retention: purge-expired at start and every PURGE_EVERY seconds in a loop beside the
	@# server, stopped with it (counts in instance/purge.log). Deployments: cron or a systemd
	@# timer (docs/deploy.md). The loop's own trap stops its sleep too. gunicorn runs in the
	@# background and is waited for: a shell defers its traps while a foreground child
	@# runs, so a SIGTERM to make (or this shell) would otherwise stop nothing.
	@( trap 'kill $$nap 2>/dev/null; exit 0' TERM; while :; do \
		$(BIN)/flask --app app purge-expired >> instance/purge.log 2>&1; \
		sleep $(PURGE_EVERY) & nap=$$!; wait $$nap; done ) & purger=$$!; \
	trap 'kill $$purger 2>/dev/null' EXIT; \
	SHARE_VIEWER_ANNOUNCE=instance/demo.json FLASK_PUBLIC_URL=http://127.0.0.1:$(PORT) \
		$(BIN)/gunicorn -c gunicorn.conf.py --bind 127.0.0.1:$(PORT) wsgi:app & server=$$!; \
	trap 'kill $$server 2>/dev/null' INT TERM; \
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
# only the fields the official SDK declares (test-sdk-double, tests/sdk_double.py), and
# the cluster suite (HAProxy, two gunicorn nodes, PostgreSQL, Redis) alone, so that its
# timings (health checks every 500 ms) do not compete with the rest of the suite.
test: install-test chromium haproxy lint test-sqlite test-postgres test-sdk-double test-cluster

lint:
	$(BIN)/ruff check .

test-sqlite:
	$(BIN)/python -m pytest -n 2 -q --ignore=tests/cluster

test-postgres:
	TEST_DATABASE_URL=$(PG_TEST_URL) $(BIN)/python -m pytest -n 2 -q tests/service tests/store

# The viewer reading the embedded API through tests/sdk_double.py: each share read and results
# page validated strictly with the SDK's models and cut to the fields they declare (an
# answer they reject is a 502, so the test reading it fails).
SDK_DOUBLE_TESTS := tests/test_sdk_double.py tests/viewer/pages tests/viewer/results \
	tests/viewer/exports tests/viewer/structure tests/viewer/depictions \
	tests/viewer/web/test_embeds.py tests/signin/test_email_flow.py

test-sdk-double:
	SHARE_VIEWER_API_DOUBLE=sdk $(BIN)/python -m pytest -n 2 -q $(SDK_DOUBLE_TESTS)

test-cluster:
	$(BIN)/python -m pytest -q tests/cluster

# The scripts that need nothing but this checkout; bench_api_page.py and bench_viewer_ab.py
# compare it with an older one (see their docstrings).
bench: install-test
	@for script in bench_results_pages bench_auth bench_usage bench_viewer code_shape; do \
		echo "== $$script"; $(BIN)/python bench/$$script.py; done
