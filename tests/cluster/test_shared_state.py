"""Two nodes behind HAProxy behave as one: sessions, limits, archiving and the
exploration index are shared state, never one node's private opinion.

Each test reaches node A and node B directly (their own ports) where it matters which node
answers, and the balancer where it does not.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.viewer.explore.index import frame_files
from tests.cluster.conftest import archive, ask_for_code, new_public_link
from tests.support.error_pages import without_reference

pytestmark = pytest.mark.xdist_group("cluster")

# The default per-address limit: 5 messages per 15 minutes (app.viewer.signin.limits).
ADDRESS_LIMIT = 5
SORTED = "sort=-iptm,binding_confidence"


def gone_page(base: str) -> httpx.Response:
    """Return the 404 any unknown link gets at ``base``: every gone thing looks like it."""
    response = httpx.get(f"{base}/share/sl_{'x' * 32}", timeout=30)
    assert response.status_code == 404
    return response


def test_a_visitor_signed_in_through_node_a_reads_through_node_b(cluster, demo, signed_in):
    a, b = cluster.nodes["a"].url, cluster.nodes["b"].url
    # A stranger on node B is asked to sign in: node B does know the link is email-mode.
    with httpx.Client(timeout=30) as stranger:
        refused = stranger.get(f"{b}/share/{demo.email_id}")
    assert refused.status_code in (302, 303)
    assert "/sign-in" in refused.headers["location"]

    # The visitor's session (signed in on A, kept in Redis) opens the link on B.
    page = signed_in.get(f"{b}/share/{demo.email_id}")
    assert page.status_code == 200, page.text[:300]
    assert demo.addresses[0] in page.text  # "signed in as ..."
    results = signed_in.get(f"{b}/share/{demo.email_id}/pipelines/{demo.pipeline_id}")
    assert results.status_code == 200
    assert demo.result_id in results.text
    # And through the balancer, whichever node answers.
    for _ in range(4):
        assert signed_in.get(f"{cluster.url}/share/{demo.email_id}").status_code == 200
    assert signed_in.get(f"{a}/share/{demo.email_id}").status_code == 200


def test_sign_in_limits_count_once_across_both_nodes(cluster, demo, inbox):
    a, b = cluster.nodes["a"].url, cluster.nodes["b"].url
    address = demo.addresses[1]
    statuses = []
    # Alternate nodes: A, B, A, B, A each send a message, the sixth (on B) is refused.
    for turn in range(ADDRESS_LIMIT + 1):
        with httpx.Client(timeout=30) as browser:
            statuses.append(ask_for_code(browser, (a, b)[turn % 2], demo.email_id, address))
    assert statuses == [302] * ADDRESS_LIMIT + [429], statuses
    # The refused request sent nothing: exactly the limit of messages arrived.
    inbox.wait_for(address, ADDRESS_LIMIT)
    assert len(inbox.to(address)) == ADDRESS_LIMIT
    # And node A refuses too: the count is one count, not one per node.
    with httpx.Client(timeout=30) as browser:
        assert ask_for_code(browser, a, demo.email_id, address) == 429


def test_a_link_archived_through_node_a_is_gone_on_node_b_at_once(cluster, demo):
    a, b = cluster.nodes["a"].url, cluster.nodes["b"].url
    link_id = new_public_link(cluster, demo)
    page = f"/share/{link_id}/pipelines/{demo.pipeline_id}/results/{demo.result_id}"
    download = f"{page}/artifacts/archive"
    # Node B has served the link (any cache it keeps is warm).
    assert httpx.get(f"{b}/share/{link_id}", timeout=30).status_code == 200
    assert httpx.get(f"{b}{page}", timeout=30).status_code == 200
    fetched = httpx.get(f"{b}{download}", timeout=30)
    assert fetched.status_code == 200 and fetched.content[:2] == b"PK"

    archive(a, demo, link_id)

    gone = gone_page(b)
    for path in (f"/share/{link_id}", page, download):
        response = httpx.get(f"{b}{path}", timeout=30)
        assert response.status_code == 404, path
        assert without_reference(response.text) == without_reference(gone.text), path
    # The balancer has no opinion either: both nodes answer the same 404.
    for _ in range(2):
        assert httpx.get(f"{cluster.url}{download}", timeout=30).status_code == 404


def test_the_exploration_index_of_one_node_never_serves_a_refused_request(cluster, demo,
                                                                          signed_in):
    a, b = cluster.nodes["a"].url, cluster.nodes["b"].url
    link_id = new_public_link(cluster, demo)
    view = f"/share/{link_id}/pipelines/{demo.pipeline_id}?{SORTED}"
    # A sorted view makes node A build the pipeline's index (shared) and its frame cache
    # (node A's); node B then serves the same view from the shared index.
    assert httpx.get(f"{a}{view}", timeout=60).status_code == 200
    assert demo.result_id in httpx.get(f"{b}{view}", timeout=60).text
    # Node B built nothing: it mapped the very frame node A saved in the shared store
    # (each node's frame files are named by that saved frame's version and byte size).
    saved = {name: sorted(p.name for p in frame_files._folder(
        Path(node.env["FLASK_INSTANCE_PATH"], "frame-cache"), demo.pipeline_id).iterdir())
        for name, node in cluster.nodes.items()}
    assert saved["a"] and saved["a"] == saved["b"], saved

    archive(a, demo, link_id)
    gone = gone_page(b)
    for base in (b, a):
        response = httpx.get(f"{base}{view}", timeout=30)
        assert response.status_code == 404, base
        assert without_reference(response.text) == without_reference(gone.text)
        export = httpx.get(f"{base}/share/{link_id}/pipelines/{demo.pipeline_id}/export.csv"
                           f"?{SORTED}", timeout=30)
        assert export.status_code == 404, base

    # An email-mode link's index, built for a signed-in visitor on A, gives a visitor
    # without a session on B the sign-in page, never the rows.
    email_view = f"/share/{demo.email_id}/pipelines/{demo.pipeline_id}?{SORTED}"
    assert signed_in.get(f"{a}{email_view}").status_code == 200
    with httpx.Client(timeout=30) as stranger:
        refused = stranger.get(f"{b}{email_view}")
    assert refused.status_code in (302, 303)
    assert "/sign-in" in refused.headers["location"]
    assert demo.result_id not in refused.text


def test_no_share_id_reaches_the_balancer_or_node_logs(cluster, demo, signed_in):
    # Share ids are bearer credentials in URL paths: HAProxy's log format leaves the URI out,
    # the nodes redact theirs. Every test above has put link URLs through both by now.
    assert signed_in.get(f"{cluster.url}/share/{demo.email_id}").status_code == 200
    assert httpx.get(f"{cluster.url}/share/{demo.public_id}", timeout=30).status_code == 200
    logs = {"haproxy": cluster.balancer.log_text(),
            **{name: node.log_text() for name, node in cluster.nodes.items()}}
    assert "nodes/node_a" in logs["haproxy"] and "GET" in logs["haproxy"]
    for name, text in logs.items():
        assert demo.public_id not in text, name
        assert demo.email_id not in text, name
