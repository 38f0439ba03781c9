"""The results table's paging: its query string, the previous and next links, pasted ids."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from app.viewer.core import paging
from app.viewer.core.errors import BadRequest


def parse(**args) -> paging.PageRequest:
    return paging.parse(MultiDict(args))


def test_links_walking_forward_and_back():
    page = {"first_id": "b", "last_id": "c", "has_more": True}
    first = paging.links(page, parse())
    assert first.prev is None and first.next == {"after_id": "c"}
    middle = paging.links(page, parse(after_id="a", limit="25"))
    assert middle.prev == {"limit": 25, "before_id": "b"}
    assert middle.next == {"limit": 25, "after_id": "c"}
    end = paging.links({**page, "has_more": False}, parse(after_id="a"))
    assert end.next is None and end.prev == {"before_id": "b"}
    back_to_start = paging.links({**page, "has_more": False}, parse(before_id="d"))
    assert back_to_start.prev is None and back_to_start.next == {"after_id": "c"}
    empty = paging.links({"first_id": None, "last_id": None, "has_more": False},
                         parse(after_id="z"))
    assert empty.prev is None and empty.next is None


def test_pasted_ids_keep_order_and_drop_repeats():
    assert paging.parse_ids("b, a\nb;c  a") == ("b", "a", "c")
    # A label as the pages show it is one entry; what cannot be an id is kept, to be
    # named beside the field (explore.pasted), not refused for the whole page.
    assert paging.parse_ids("#3 WGK2, QPZ9\n#12\tX7Y8 not/ok #4") == \
        ("#3 WGK2", "QPZ9", "#12 X7Y8", "not/ok", "#4")
    assert paging.id_shaped(("#3 WGK2", "QPZ9", "not/ok")) == ["QPZ9"]
    with pytest.raises(BadRequest):
        paging.parse_ids(",".join(f"#{i} T{i}" for i in range(201)))


@pytest.mark.parametrize("cursor", ["res_\u00e901", "res_02.x", "a b", "<x>", "x" * 64])
def test_a_cursor_is_any_id_the_api_serves(cursor):
    assert parse(after_id=cursor).after_id == cursor
    assert parse(before_id=cursor).before_id == cursor


@pytest.mark.parametrize("cursor", ["x" * 65, "res\x00"])
def test_a_cursor_no_id_can_be_is_a_400(cursor):
    with pytest.raises(BadRequest):
        parse(after_id=cursor)
