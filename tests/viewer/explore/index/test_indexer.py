"""The exploration index's builder as a request meets it (``app.viewer.explore.index.indexer``)."""

from __future__ import annotations

import time

from flask import g

from app.viewer.core import api_client
from app.viewer.explore.index import indexer


def test_an_export_after_an_in_request_build_gets_a_whole_api_deadline(
        app, client, shared, monkeypatch):
    """The first export of a sorted view builds a small index inside the request; what the
    export then reads from the API has a deadline of its own (it was a 504 once the build's
    chemistry had spent the page's)."""
    build = indexer.Build.run

    def slow_build(self) -> None:
        build(self)
        # As a page of new molecules in the chemistry child can: the request's deadline for
        # API answers is spent by the time the build returns.
        setattr(g, api_client._DEADLINE_KEY, time.monotonic())

    monkeypatch.setattr(indexer.Build, "run", slow_build)
    kind = "small_molecule_design"
    response = client.get(shared.url(f"/pipelines/{shared.pipelines[kind]}/export.sdf"))
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.get_data().count(b"$$$$") == len(shared.results[kind])
