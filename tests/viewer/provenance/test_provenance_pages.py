"""The real overview and pipeline pages say what was run (the ``shared`` link)."""

from __future__ import annotations

import html
import re

import pytest

from app.viewer.core import run_kinds
from app.viewer.provenance import run_title


def text(response) -> str:
    """Return a page's body as text, its status checked."""
    assert response.status_code == 200
    return response.get_data(as_text=True)


def share_read(app, shared) -> dict:
    """Return the link's share read as the viewer gets it."""
    with app.test_request_context():
        return app.extensions["compute_api"].share(shared.link_id, None)


def test_overview_cards_carry_provenance_and_no_workspace_id(app, client, shared):
    body = text(client.get(shared.url()))
    read = share_read(app, shared)
    assert read["workspace_id"] not in body
    cards = body.count('class="provenance prov-compact"')
    assert cards == len(read["pipelines"]) + len(read["predictions"])
    assert "Generated " in body and " requested" in body
    assert "Engine" in body and "Model" in body
    assert re.search(r'class="copy-btn mini" data-copy="[A-Z]{10,}"', body)


@pytest.mark.slow
def test_results_page_says_what_was_run_in_full(app, client, shared):
    read = share_read(app, shared)
    for record in read["pipelines"]:
        body = text(client.get(shared.url(f"/pipelines/{record['id']}")))
        assert 'id="provenance-heading">What was run' in body, record["id"]
        assert "Engine" in body
        key = run_kinds.pipeline_kind_key(record)
        if key == "protein_design":
            title = run_title(record, key)
            assert " \u00b7 target " in title
            assert "<h3>Target</h3>" in body and "<h3>Binder</h3>" in body
            target = next(e for e in record["input"]["target"]["entities"])
            sequence = (target.get("entity") or target).get("value")
            if sequence:
                assert f'data-copy="{html.escape(sequence)}"' in body
