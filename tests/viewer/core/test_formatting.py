"""Pure helpers of the viewer: number and date formatting, page links, the id filter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from werkzeug.datastructures import MultiDict

from app import domain
from app.domain import KINDS
from app.viewer.core import formatting, paging
from app.viewer.core.errors import BadRequest
from app.viewer.exports import csv_writer
from app.viewer.results import table as tables

NOW = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("value", "decimals", "text"), [
    (0.12345, 3, "0.123"), (1, 2, "1.00"), (12345.5, 1, "12\u2009345.5"),
    (None, 3, "\u2013"), (float("nan"), 3, "\u2013"), (float("inf"), 2, "\u2013"),
    ("high-risk", 2, "high-risk"), (-0.5, 2, "-0.50"),
])
def test_format_number(value, decimals, text):
    assert formatting.format_number(value, decimals) == text


def test_metric_decimals_follow_the_catalogue():
    assert formatting.format_metric(3.14159, "min_interaction_pae") == "3.14"
    assert formatting.format_metric(0.98765, "iptm") == "0.988"


@pytest.mark.parametrize(("delta", "phrase"), [
    (timedelta(days=3, hours=2), "expires in 3 days"),
    (timedelta(hours=5), "expires in 5 hours"),
    (timedelta(minutes=1), "expires in 1 minute"),
    (timedelta(seconds=20), "expires in less than a minute"),
    (-timedelta(hours=2), "expired 2 hours ago"),
])
def test_expiry_phrase(delta, phrase):
    when = (NOW + delta).isoformat()
    assert formatting.expiry_phrase(when, now=NOW) == phrase


def test_dates_are_shown_in_utc():
    assert formatting.format_datetime("2026-05-04T13:07:00+02:00") == "2026-05-04 11:07 UTC"
    assert formatting.format_datetime("2026-05-04T13:07:00") == "2026-05-04 13:07 UTC"
    assert formatting.format_datetime("not a date") == ""


def test_entity_summary_counts_chains_and_length():
    summary = formatting.entity_summary([
        {"type": "protein", "chain_ids": ["A"], "value": "MKT"},
        {"type": "dna", "chain_ids": ["B", "C"], "value": "ACGT"},
        {"type": "ligand_ccd", "chain_ids": ["D"], "value": "ATP"},
    ])
    assert summary["length"] == 3 and summary["chain_count"] == 4
    assert summary["text"] == "A: 3 aa \u00b7 B,C: 4 nt \u00b7 D: ATP"


def test_sizes():
    assert formatting.format_size(512) == "512 bytes"
    assert formatting.format_size(1536) == "1.5 KB"
    assert formatting.format_size(3 * 1024**3) == "3.0 GB"


def test_cells_escape_what_the_api_sends():
    columns = tables.columns_for(KINDS["small_molecule_library_screen"])
    (row,) = tables.rows_for([{
        "id": "res_1", "smiles": "<script>alert(1)</script>", "external_id": '"><b>x',
        "metrics": {}, "warnings": [{"code": "<i>", "message": "&"}],
    }], columns)
    assert "<script>" not in row.cells and "<b>" not in row.cells and "<i>" not in row.cells
    assert "&lt;script&gt;" in row.cells


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
    with pytest.raises(BadRequest):
        paging.parse_ids("ok, not/ok")


def test_metric_quality_bands():
    quality, metric = domain.quality, domain.metric
    assert quality(metric("binding_confidence"), 0.85) == "strong"
    assert quality(metric("binding_confidence"), 0.49) == "weak"
    assert quality(metric("binding_confidence"), 0.6) == ""
    assert quality(metric("min_interaction_pae"), 3.2) == "strong"
    assert quality(metric("min_interaction_pae"), 16.0) == "weak"
    assert quality(metric("helix_fraction"), 0.9) == ""
    assert quality(metric("something_new"), 0.9) == ""


def test_csv_cells_never_start_a_formula():
    columns = tables.columns_for(KINDS["small_molecule_library_screen"])
    external = next(c for c in columns if c.key == "external_id")
    # Rank, label and id come first; the external id's cell is the fourth.
    assert csv_writer.cells([external], {"external_id": "=HYPERLINK(\"x\")"}) \
        == ["", "", "", "'=HYPERLINK(\"x\")"]
    assert csv_writer.cells([external], {"external_id": "-1.5"})[3] == "-1.5"
    assert csv_writer.cells([external], {"external_id": "L1300-01-A02"})[3] == "L1300-01-A02"
    assert csv_writer.cells([external], {"label": "=cmd", "rank": 1})[:2] == ["1", "'=cmd"]
