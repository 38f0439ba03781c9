"""``core.loaders``: test data is known from the records' ``livemode``, not a field of ours."""

from __future__ import annotations

from app.viewer.core.loaders import is_test_data


def test_test_data_is_a_record_with_livemode_false():
    live = {"id": "pl_1", "livemode": True}
    test = {"id": "pred_1", "livemode": False}
    assert is_test_data({"pipelines": [live], "predictions": [test]})
    assert is_test_data({"pipelines": [{**live, "livemode": False}], "predictions": []})
    assert not is_test_data({"pipelines": [live], "predictions": [{**test, "livemode": True}]})
    # A top-level livemode is not the SDK's: it is not read; a record without one is live.
    assert not is_test_data({"livemode": False, "pipelines": [{"id": "pl_2"}]})
    assert not is_test_data({"pipelines": None, "predictions": ["junk"]})
