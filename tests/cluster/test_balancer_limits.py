"""What the balancer (``deploy/haproxy.cfg``) passes on to the nodes: every request a node
serves, however long its request line, up to the nodes' own bound."""

from __future__ import annotations

import httpx
import pytest

from tests.support.servers import raw_request

pytestmark = pytest.mark.xdist_group("cluster")

REQUEST_LINE_LIMIT = 32 * 1024  # gunicorn.conf.py: the longest request line a node serves
# What a browser sends beside the request line (about 1 KB): the balancer's buffer holds both.
BROWSER_HEADERS = [
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36",
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
    "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    "Accept-Language: en-GB,en-US;q=0.9,en;q=0.8,de;q=0.7,fr;q=0.6",
    "Accept-Encoding: gzip, deflate, br, zstd",
    "Cookie: share_viewer_session=" + "s" * 300,
    'Sec-Ch-Ua: "Chromium";v="131", "Not_A Brand";v="24"',
    "Sec-Ch-Ua-Mobile: ?0", 'Sec-Ch-Ua-Platform: "Linux"', "Sec-Fetch-Dest: document",
    "Sec-Fetch-Mode: navigate", "Sec-Fetch-Site: same-origin", "Sec-Fetch-User: ?1",
    "Upgrade-Insecure-Requests: 1",
]


def test_the_longest_request_line_a_node_serves_passes_the_balancer(cluster, demo):
    path = f"/compute/v1/share/{demo.public_id}/pipelines/{demo.pipeline_id}/results?pad="
    fill = REQUEST_LINE_LIMIT - len(f"GET {path} HTTP/1.1")
    host = cluster.url.split("//")[1]
    statuses = []
    for extra in (0, 1):
        head = [f"GET {path}{'x' * (fill + extra)} HTTP/1.1", f"Host: {host}",
                *BROWSER_HEADERS, "Connection: close"]
        statuses.append(raw_request(cluster.url, "\r\n".join(head), 30))
    # The node's answers, not the balancer's 400 for a request larger than its buffer.
    assert statuses == [200, 414]


def test_the_largest_ids_filter_passes_the_balancer(cluster, demo):
    # 200 ids of 64 characters, the demo's result among them: the rest match nothing.
    ids = [demo.result_id, *(f"res_{n:060d}" for n in range(199))]
    with httpx.Client(base_url=cluster.url, timeout=30,
                      headers=dict(line.split(": ", 1) for line in BROWSER_HEADERS)) as http:
        page = http.get(f"/share/{demo.public_id}/pipelines/{demo.pipeline_id}",
                        params={"ids": ",".join(ids)})
        api = http.get(f"/compute/v1/share/{demo.public_id}/pipelines/{demo.pipeline_id}"
                       "/results", params={"ids": ",".join(ids)})
    assert page.status_code == 200, page.text[:300]
    assert "1 of the 200 pasted found" in page.text
    assert api.status_code == 200 and [r["id"] for r in api.json()["data"]] == [demo.result_id]
