"""The viewer's number, date, size and chain-summary formatting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.viewer.core import formatting

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
