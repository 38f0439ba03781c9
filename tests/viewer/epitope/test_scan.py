"""The epitope scan over malformed records: it reads every readable design and finishes."""

from __future__ import annotations

import time

import pytest

from app.viewer.epitope import scan
from tests.support import hostile_records


@pytest.mark.api_extensions  # what a remote API may send, not what the SDK double lets by
@pytest.mark.slow
def test_the_scan_finishes_past_records_it_cannot_read(app, client, org):
    records = hostile_records.seed(app, org)
    app.config["EPITOPE_SCAN"] = True  # off in the other tests (tests/support/apps.py)
    page = f"/share/{records.link}/pipelines/{records.proteins}?sort=-binding_confidence"
    deadline = time.monotonic() + 60
    while True:
        assert client.get(page).status_code == 200  # builds the index, then starts the scan
        with app.app_context():
            progress = scan.progress(records.proteins)
        total = sum(1 for kind, _ in hostile_records.CORPUS.values()
                    if kind == hostile_records.PROTEINS) + hostile_records.HEALTHY_PER_PIPELINE
        if progress is not None and progress.finished_count == total:
            break
        assert time.monotonic() < deadline and not (progress and progress.failure), progress
        time.sleep(0.2)
