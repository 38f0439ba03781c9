"""Expensive work is capped per client and in all; one more is "busy, retry" (issue 22, 3).

The gate never queues: a request over a cap is answered at once with a 503 page (JSON for
``.json`` paths) and ``Retry-After``, ordinary pages keep answering meanwhile, and the slot
of a streamed export is released when its download closes, however it ends.
"""

from __future__ import annotations

import pytest

from app.viewer.runtime.work_gate import WorkGate


def test_the_gate_caps_in_all_and_per_client():
    gate = WorkGate(slots=3, per_client=2)
    assert gate.try_enter("a") and gate.try_enter("a")
    assert not gate.try_enter("a")  # a's own cap
    assert gate.try_enter("b")
    assert not gate.try_enter("c")  # the process's cap
    gate.leave("a")
    assert gate.running == 2
    assert gate.try_enter("c") and gate.running == 3
    assert not gate.try_enter("c")  # c's own cap of 2 is not reached, the total of 3 is
    gate.leave("b")
    assert gate.try_enter("c")


@pytest.fixture
def one_slot(app):
    """The viewer's gate with a single slot (as a busy server would have none left)."""
    app.extensions["work_gate"] = WorkGate(slots=1, per_client=1)
    return app.extensions["work_gate"]


def test_a_second_export_is_busy_while_the_first_streams(client, shared, one_slot):
    export = shared.url(f"/pipelines/{shared.pipelines['protein_design']}/export.csv")
    first = client.get(export, buffered=False)
    assert first.status_code == 200 and one_slot.running == 1

    second = client.get(export)
    assert second.status_code == 503
    assert second.headers["Retry-After"] == "5"
    assert "Busy: please try again in a few seconds" in second.get_data(as_text=True)
    # Ordinary pages do not wait for the export.
    assert client.get(shared.url()).status_code == 200

    first.get_data()
    first.close()
    assert one_slot.running == 0
    again = client.get(export)
    assert again.status_code == 200 and again.get_data(as_text=True).count("\n") > 4
    again.close()
    assert one_slot.running == 0


def test_an_export_abandoned_before_its_first_byte_frees_its_slot(client, shared, one_slot):
    export = shared.url(f"/pipelines/{shared.pipelines['small_molecule_design']}/export.sdf")
    abandoned = client.get(export, buffered=False)
    assert one_slot.running == 1
    abandoned.close()
    assert one_slot.running == 0


def test_busy_json_is_json(app, client, shared, one_slot):
    from flask import jsonify

    from app.viewer.runtime import work_gate

    @app.get("/share/<link_id>/_test/heavy.json")
    def heavy(link_id):
        release = work_gate.enter("substructure")
        try:
            return jsonify(done=True)
        finally:
            release()

    one_slot.try_enter("127.0.0.1")
    busy = client.get(shared.url("/_test/heavy.json"))
    assert busy.status_code == 503 and busy.is_json
    assert "busy" in busy.get_json()["error"]
    one_slot.leave("127.0.0.1")
    assert client.get(shared.url("/_test/heavy.json")).get_json() == {"done": True}
