"""Request ids: a recipient's "reference" on an error page finds the request in the logs.

Every answer carries ``X-Request-Id``; the log lines written while it was handled start
with ``[req <id>]``; error pages print it; gunicorn's access line ends with it. A client
cannot choose its own id (it could pass for another request's); the viewer's in-process
API call carries the page's id to the API.
"""

from __future__ import annotations

import logging
import re

import httpx

from tests.support.servers import LiveServer

ID = re.compile(r"[0-9a-f]{16}")


def test_every_answer_has_an_id_and_a_client_cannot_choose_it(client):
    first = client.get("/healthz")
    chosen = client.get("/healthz", headers={"X-Request-Id": "chosen-by-the-client"})
    assert ID.fullmatch(first.headers["X-Request-Id"])
    assert ID.fullmatch(chosen.headers["X-Request-Id"])
    assert chosen.headers["X-Request-Id"] != "chosen-by-the-client"
    assert chosen.headers["X-Request-Id"] != first.headers["X-Request-Id"]


def test_a_behind_proxy_deployment_keeps_the_proxy_id_if_plain(app):
    app.config["TRUSTED_PROXY_COUNT"] = 1
    with app.test_client() as client:
        kept = client.get("/healthz", headers={"X-Request-Id": "haproxy-0a1b2c3d"})
        odd = client.get("/healthz", headers={"X-Request-Id": "bad id <script>"})
    assert kept.headers["X-Request-Id"] == "haproxy-0a1b2c3d"
    assert ID.fullmatch(odd.headers["X-Request-Id"])


def test_log_lines_of_a_request_carry_its_id(app, caplog):
    @app.get("/_test/logs-a-line")
    def logs_a_line():
        logging.getLogger("app.test").warning("something to find for %s", "the operator")
        return "ok"

    with caplog.at_level(logging.WARNING, logger="app.test"):
        answer = app.test_client().get("/_test/logs-a-line")
    request_id = answer.headers["X-Request-Id"]
    lines = [r.getMessage() for r in caplog.records if r.name == "app.test"]
    assert lines == [f"[req {request_id}] something to find for the operator"]


def test_the_error_page_quotes_the_reference_in_the_header(client):
    answer = client.get("/share/sl_" + "x" * 30)
    assert answer.status_code == 404
    request_id = answer.headers["X-Request-Id"]
    assert f"quote reference <code>{request_id}</code>" in answer.get_data(as_text=True)


def test_gunicorn_access_lines_end_with_the_id(live_server: LiveServer):
    answer = httpx.get(f"{live_server.url}/healthz", timeout=10)
    request_id = answer.headers["X-Request-Id"]
    for _ in range(50):  # the access line is written just after the answer
        if f"req={request_id}" in live_server.log_text():
            break
        httpx.get(f"{live_server.url}/healthz", timeout=10)
    line = next(line for line in live_server.log_text().splitlines() if request_id in line)
    assert line.endswith(f"req={request_id}")
    assert '"GET /healthz' in line
