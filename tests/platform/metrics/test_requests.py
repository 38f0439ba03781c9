"""Requests are counted by route template, method and status, in a bounded set of series.

A client chooses the method (a server takes any token as one): a method HTTP does not
define is counted as ``OTHER``, so invented methods never add series to ``/metrics``.
"""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from app.platform.metrics.requests import METHODS, OTHER


def _requests(client) -> dict[tuple[str, str, str], float]:
    text = client.get("/metrics").get_data(as_text=True)
    return {(s.labels["route"], s.labels["method"], s.labels["status"]): s.value
            for family in text_string_to_metric_families(text)
            if family.name == "share_viewer_http_requests"
            for s in family.samples if s.name.endswith("_total")}


def test_invented_methods_are_one_other_series(client):
    client.open("/healthz", method="BREWCOFFEE")
    _requests(client)  # the scrape's own series exists from here on
    before = _requests(client)
    for n in range(200):
        client.open("/healthz", method=f"INVENTED{n:04d}")
    after = _requests(client)
    assert {method for _route, method, _status in after} <= METHODS | {OTHER}
    assert after.keys() == before.keys()
    invented = [key for key in after if key[1] == OTHER]
    assert sum(after[key] - before.get(key, 0) for key in invented) == 200


def test_the_methods_http_defines_keep_their_names(client):
    client.open("/healthz", method="DELETE")
    client.get("/healthz")
    methods = {method for _route, method, _status in _requests(client)}
    assert {"GET", "DELETE"} <= methods
