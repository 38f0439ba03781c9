"""Every exploration parameter and key the results query accepts is documented (issue 20
loose end: keys were added without their lines). The parameters are those ``query.parse``
reads, recorded from a real call; the keys those of ``explore.fields`` and the vocabulary's
metrics. They must be in docs/viewer.md's "Exploring results" (the table's first column,
the keys' list) and named in the README's exploration paragraph."""

from __future__ import annotations

import re
from pathlib import Path

from werkzeug.datastructures import MultiDict

from app import domain
from app.viewer.explore import fields, query

ROOT = Path(__file__).resolve().parents[3]


class _Recording(MultiDict):
    """Query-string values that remember every name the parser asks for."""

    def __init__(self):
        super().__init__()
        self.asked: set[str] = set()

    def get(self, key, *args, **kwargs):
        self.asked.add(key)
        return super().get(key, *args, **kwargs)

    def getlist(self, key, *args, **kwargs):
        self.asked.add(key)
        return super().getlist(key, *args, **kwargs)


def _parameters() -> set[str]:
    args = _Recording()
    query.parse(args)
    assert {"sort", "alert_family", "similar_to", "liability"} <= args.asked  # it records
    return args.asked


def _keys() -> set[str]:
    return {*fields.KEYS, *domain.METRICS, "similarity"}


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end > 0 else None]


def test_docs_viewer_documents_every_parameter_and_key():
    section = _section((ROOT / "docs/viewer.md").read_text(), "## Exploring results")
    rows = re.findall(r"^\| (`[^|]+`) \|", section, re.M)
    in_table = {name for row in rows for name in re.findall(r"`([a-z_]+)", row)}
    assert _parameters() - in_table == set()
    ticked = set(re.findall(r"`([a-z_]+)`", section))
    assert _keys() - ticked == set()
    for op in query.OPERATORS:
        assert f"__{op}" in section


def test_readme_names_every_parameter_and_key():
    readme = (ROOT / "README.md").read_text()
    paragraph = _section(readme, "**Exploring results.**")
    paragraph = paragraph[:paragraph.index("\n\n")]
    ticked = set(re.findall(r"`([a-z_]+)", paragraph))
    assert _parameters() - ticked == set()
    # Every key but the metrics ("the metrics": their own table, linked from there).
    assert (_keys() - set(domain.METRICS)) - ticked == set()
