"""The CSV writer's cells."""

from __future__ import annotations

from app.domain import KINDS
from app.viewer.exports import csv_writer
from app.viewer.results import table as tables


def test_csv_cells_never_start_a_formula():
    columns = tables.columns_for(KINDS["small_molecule_library_screen"])
    external = next(c for c in columns if c.key == "external_id")
    # Rank, label and id come first; the external id's cell is the fourth.
    assert csv_writer.cells([external], {"external_id": "=HYPERLINK(\"x\")"}) \
        == ["", "", "", "'=HYPERLINK(\"x\")"]
    assert csv_writer.cells([external], {"external_id": "-1.5"})[3] == "-1.5"
    assert csv_writer.cells([external], {"external_id": "L1300-01-A02"})[3] == "L1300-01-A02"
    assert csv_writer.cells([external], {"label": "=cmd", "rank": 1})[:2] == ["1", "'=cmd"]
