"""A PostgreSQL restart under load: 503s with ``Retry-After`` while it is down, never a
500 or a 502, one log line per failure and no traceback, ``/readyz`` says so, and the
app recovers by itself once the database is back.

The database is the test's own PostgreSQL server (``private_postgres``), so restarting it
disturbs no other test. gunicorn serves the composed app with two workers: the load hits
the API (``/compute/v1/share/...``) and the viewer's pages (which read that API).
"""

from __future__ import annotations

import httpx
import pytest
import sqlalchemy as sa

from app.platform.db import migrate
from app.viewer import store as viewer_store
from tests.support import restart_scenario
from tests.support.apps import make_org, make_test_app
from tests.support.databases import dispose_engines
from tests.support.links import seed_link
from tests.support.servers import start_gunicorn, stop_gunicorn

pytestmark = pytest.mark.slow


@pytest.fixture
def seeded_postgres(private_postgres, tmp_path):
    """The private server, migrated, with a public link over a few pipelines."""
    engine = sa.create_engine(private_postgres.url)
    migrate(engine)
    viewer_store.migrate(engine)
    engine.dispose()
    app = make_test_app(private_postgres.url, tmp_path)
    shared = seed_link(app, make_org(app), counts={"protein_design": 3})
    dispose_engines(app)
    return private_postgres, shared


def _ready(base: str) -> int:
    try:
        return httpx.get(f"{base}/readyz", timeout=10).status_code
    except httpx.HTTPError:
        return 0


def test_a_postgres_restart_under_load_answers_503_and_recovers(seeded_postgres, tmp_path):
    postgres, shared = seeded_postgres
    server = start_gunicorn({
        "FLASK_DATABASE_URL": postgres.url, "FLASK_SECRET_KEY": "live-secret",
        "FLASK_INSTANCE_PATH": str(tmp_path / "instance"),
        "FLASK_ARTIFACT_DIR": str(tmp_path / "artifacts"),
        # No epitope scan: it calls the API in the background, and under this load each
        # call first waits for the worker to be idle (up to 1 s), so one may land in the
        # outage and log its own line with no response of the load's to count it against.
        "FLASK_EPITOPE_SCAN": "false",
    }, tmp_path, workers=2)
    seen_while_down = {}

    def while_down() -> None:
        seen_while_down["readyz"] = _ready(server.url)
        seen_while_down["healthz"] = httpx.get(f"{server.url}/healthz", timeout=10).status_code

    try:
        assert _ready(server.url) == 200
        urls = restart_scenario.targets(server.url, shared.link_id,
                                        shared.pipelines["protein_design"])
        outcome = restart_scenario.run(postgres, urls, while_down=while_down)
        ready_after = _ready(server.url)
    finally:
        stop_gunicorn(server)

    load = outcome.load
    statuses = load.statuses()
    print(f"\nPostgreSQL restart under load: {dict(sorted(statuses.items()))}; "
          f"by target: {dict(sorted(load.counts.items()))}")
    assert seen_while_down == {"readyz": 503, "healthz": 200}
    assert ready_after == 200
    assert outcome.before and all(status == 200 for _label, status in outcome.before)
    assert statuses[503] > 0, "the outage was never seen"
    assert set(statuses) <= {200, 503}, statuses
    # Recovered without a restart of the app: only 200s once the database is back.
    recovered = outcome.recovered()
    assert recovered and all(status == 200 for _label, status in recovered), recovered

    for (label, status), response in load.samples.items():
        if status != 503:
            continue
        assert response.headers["Retry-After"].isdigit(), label
        if label.startswith("api"):
            body = response.json()
            assert body["statusCode"] == 503 and body["error"] == "Service Unavailable"
        else:
            assert response.headers["Content-Type"].startswith("text/html")
            assert "Try again" in response.text

    log = server.log_text()
    assert "Traceback" not in log
    # One line per failure: the API's own, plus the viewer's when a page met it; a page
    # may also meet its own store (the exploration index, sessions) down first.
    api_lines = log.count("database unavailable (")
    store_lines = log.count("viewer store unavailable (")
    page_lines = log.count("compute API failure (503)")
    pages_503 = sum(n for (label, status), n in load.counts.items()
                    if status == 503 and label.startswith("page"))
    assert api_lines + store_lines == statuses[503], (api_lines, store_lines, statuses[503])
    assert page_lines + store_lines == pages_503, (page_lines, store_lines, pages_503)
