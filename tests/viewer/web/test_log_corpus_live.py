"""A corpus of encoded share ids sent through a real gunicorn: its log holds none of them.

Raw sockets, so each request target reaches gunicorn byte for byte as written (a client
library would normalise it); httpx itself for the way it encodes ``next=``; a few malformed
requests, which gunicorn answers itself and reports in its error log with the request line
quoted. Access log, error log and the app's records share one file here, and the judge
(``tests/log_corpus.offending_lines``) decodes every line at every depth.
"""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support.links import seed_link
from tests.support.log_corpus import encodings, offending_lines, request_targets
from tests.support.servers import raw_request, start_gunicorn, stop_gunicorn

API_KEY = "bz_test_" + "Qx7_" * 8


def sample(share_id: str) -> list[tuple[str, str]]:
    """Every position and every spelling at least once: about 60 requests, not 336."""
    targets = request_targets(share_id, API_KEY)
    forms = list(encodings(share_id))
    positions = list(dict.fromkeys(name.split("/")[0] for name, _target in targets))
    chosen = {f"{positions[i % len(positions)]}/{forms[i % len(forms)]}"
              for i in range(2 * len(forms))}
    chosen |= {f"signin_next/{form}" for form in forms}  # the issue's own example
    return [(name, target) for name, target in targets if name in chosen]


def send_corpus(url: str, share_id: str) -> list[int]:
    """Send the corpus to the server at ``url``; return the statuses."""
    forms = list(encodings(share_id).values())
    statuses = []
    for index, (_name, target) in enumerate(sample(share_id)):
        form = forms[index % len(forms)]
        head = [f"GET {target} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
        if index % 4 == 0:  # headers too (the access format has the User-Agent), not always
            head += [f"User-Agent: probe ref=%22{form}", f"Referer: http://x/share/{form}"]
        statuses.append(raw_request(url, "\r\n".join(head)))
    with httpx.Client(base_url=url, timeout=10) as client:
        for path in (f"/share/{share_id}/sign-in", "/compute/v1/share/x"):
            params = {"next": f"/share/{share_id}/pipelines", "ref": f'"{share_id}'}
            statuses.append(client.get(path, params=params).status_code)
    for head in (f"GET /share/{forms[1]}\x01 HTTP/1.1",  # bad request line
                 f"G{forms[0]}T /share/{forms[3]} HTTP/1.1",  # bad method
                 f"GET /share/x HTTP/1.1\r\nX-{forms[5]}@: 1"):  # bad header name
        statuses.append(raw_request(url, head))
    return statuses


@pytest.mark.slow  # starts gunicorn
def test_no_log_line_holds_any_spelling_of_a_share_id(app, org, db_url, tmp_path):
    shared = seed_link(app, org)
    instance = tmp_path / "instance"
    server = start_gunicorn({
        "FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "live-secret",
        "FLASK_ARTIFACT_DIR": app.config["ARTIFACT_DIR"], "FLASK_INSTANCE_PATH": str(instance),
    }, tmp_path, workers=1)
    try:
        statuses = send_corpus(server.url, shared.link_id)
        # One worker answers in order: once the marker's line is written, all lines are.
        httpx.get(f"{server.url}/healthz?corpus-done", timeout=10)
        deadline = time.monotonic() + 10
        while "corpus-done" not in server.log_text() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        stop_gunicorn(server)
    log = server.log_text()
    leaked = offending_lines(log, [shared.link_id, API_KEY])
    print(f"\nlog corpus: {len(statuses)} requests, {len(log.splitlines())} log lines, "
          f"{len(leaked)} lines with an id")
    assert 200 in statuses and 400 in statuses  # real pages and gunicorn's own refusals
    assert "corpus-done" in log and log.count('"GET ') >= len(statuses) - 3
    assert "Invalid request from ip=" in log  # the error log was exercised
    assert leaked == [], f"{len(leaked)} lines leak a share id, e.g.\n" + "\n".join(leaked[:5])
