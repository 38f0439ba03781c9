"""The results table's cells."""

from __future__ import annotations

from app.domain import KINDS
from app.viewer.results import table as tables


def test_cells_escape_what_the_api_sends():
    columns = tables.columns_for(KINDS["small_molecule_library_screen"])
    (row,) = tables.rows_for([{
        "id": "res_1", "smiles": "<script>alert(1)</script>", "external_id": '"><b>x',
        "metrics": {}, "warnings": [{"code": "<i>", "message": "&"}],
    }], columns)
    assert "<script>" not in row.cells and "<b>" not in row.cells and "<i>" not in row.cells
    assert "&lt;script&gt;" in row.cells
