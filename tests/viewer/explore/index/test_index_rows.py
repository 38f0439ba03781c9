"""A page's index columns (``page_rows``) are what ``index_values`` gives record by record."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pytest

from app.viewer.explore.index import index_rows

RECORDS = [
    {"id": "res_1", "created_at": "2026-01-01T00:00:00Z", "type": "binder",
     "external_id": "E" * 300, "smiles": None,
     "entities": [{"type": "protein", "value": "MKNGSDGCCWYNLTAAxB"},
                  {"type": "protein", "value": "ACDEFGHIK"}],
     "metrics": {"iptm": 0.75, "binding_confidence": 1, "ptm": float("nan"),
                 "zz_unknown": 2.5, "helix_fraction": True},
     "warnings": [{"code": "clash"}, {"code": "clash"}, {"code": " "}, {}],
     "artifacts": {"structure": {"url": "https://x/y"}}},
    {"id": 7, "metrics": [1, 2], "adme": {"solubility": 3, "lipophilicity": True,
                                         "permeability": 1.5},
     "smiles": "CCO", "entities": [{"type": "ligand", "value": "CCO"}]},
    {"id": "res_3", "smiles": "not a smiles",
     "entities": [{"type": "protein", "value": ""}, {"type": "protein", "value": "P"}]},
    {"id": "res_4", "entities": [{"type": "protein", "value": "XXBZ"}], "adme": {}},
    {},
]


def _same(left, right) -> bool:
    both_nan = isinstance(left, float) and isinstance(right, float) \
        and math.isnan(left) and math.isnan(right)
    return both_nan or (left == right and type(left) is type(right))


def _columns_are_index_values(records: list[dict]):
    columns, stored = index_rows.page_rows(records, 40)
    expected = []
    for offset, record in enumerate(records):
        values = index_rows.index_values(record)
        values["position"] = 40 + offset
        expected.append(values)
    assert list(columns) == list(expected[0])
    for key, column in columns.items():
        assert len(column) == len(records)
        for got, row in zip(column, expected, strict=True):
            assert _same(got, row[key]), (key, got, row[key])
    assert stored == [(row["result_id"], index_rows.stored_record(record))
                      for row, record in zip(expected, records, strict=True)]
    return columns


def _protein(rid: str, **metrics) -> dict:
    return {"id": rid, "entities": [{"type": "protein", "value": "MKV"}], "metrics": metrics}


@pytest.mark.parametrize("records", [
    # A protein page (no ADME, no SMILES), metrics all finite floats, or with gaps.
    [_protein("a", iptm=0.5, ptm=0.25), _protein("b", iptm=0.75), _protein("c")],
    # One column's values of every kind: an int, a bool, NaN, infinities, text, None.
    [_protein("a", iptm=0.5), _protein("b", iptm=1), _protein("c", iptm=True),
     _protein("d", iptm=float("nan")), _protein("e", iptm=float("inf")),
     _protein("f", iptm=-float("inf")), _protein("g", iptm="0.5"), _protein("h", iptm=None),
     _protein("i", iptm=-0.0), _protein("j", iptm=1e308)],
    # Floats and None only, not all finite.
    [_protein("a", iptm=0.5), _protein("b", iptm=float("nan")), _protein("c"),
     _protein("d", iptm=float("-inf"))],
    # One record of the page has ADME, another a SMILES.
    [_protein("a"), {"id": "b", "adme": {"lipophilicity": 2}}, {"id": "c", "smiles": "CCO"}],
])
def test_every_pages_columns_are_each_records_index_values(records):
    columns = _columns_are_index_values(records)
    assert all(type(v) in (float, type(None)) for v in columns["iptm"])


def test_a_pages_columns_are_each_records_index_values():
    columns = _columns_are_index_values(RECORDS)
    assert columns["warning_codes"][0] == ";clash;"  # once, blank codes left out
    assert columns["extra_metrics"][0] == '{"zz_unknown":2.5}'
    assert columns["length"][:3] == [18, None, 0]


def test_an_empty_page_has_empty_columns():
    columns, stored = index_rows.page_rows([], 0)
    assert stored == []
    assert all(column == [] for column in columns.values())


def test_pages_of_different_shapes_are_stored_as_their_records_say(tmp_path):
    """A column no record of a page has is left out of that page's insert: its rows
    still read NULL, and the next page that has values stores them."""
    import sqlalchemy as sa

    from app.platform.db import make_engine
    from app.viewer import store
    from app.viewer.store import result_index
    from app.viewer.store.schema import indexed_results

    engine = make_engine(f"sqlite:///{tmp_path}/viewer.sqlite")
    store.migrate(engine)
    now, lease = datetime(2026, 1, 1), timedelta(minutes=1)
    proteins = [{"id": "res_a", "entities": [{"type": "protein", "value": "MKNG"}]}]
    molecules = [{"id": "res_b", "smiles": "CCO", "adme": {"lipophilicity": 1.5}}]
    with engine.begin() as conn:
        result_index.claim(conn, "pl", kind="k", target_count=2, status="done",
                           owner="me", now=now, lease=lease)
        for position, page in enumerate((proteins, molecules)):
            columns, stored = index_rows.page_rows(page, position)
            assert result_index.append(conn, "pl", owner="me", columns=columns,
                                       records=stored, last_id=page[0]["id"], now=now,
                                       lease=lease)
        rows = conn.execute(sa.select(indexed_results).order_by(
            indexed_results.c.position)).mappings().all()
    engine.dispose()
    assert [row["result_id"] for row in rows] == ["res_a", "res_b"]
    assert rows[0]["smiles"] is None and rows[0]["lipophilicity"] is None
    assert rows[0]["length"] == 4 and rows[0]["liability_deamidation"] == 1
    assert rows[1]["smiles"] == "CCO" and rows[1]["lipophilicity"] == 1.5
    assert rows[1]["mol_weight"] is not None and rows[1]["length"] is None
