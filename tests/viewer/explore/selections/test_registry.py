"""The selection registry: one owner per query key, the engine looping over it, and no
engine module naming a feature's key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from werkzeug.datastructures import MultiDict

from app.viewer.explore import query as explore_query
from app.viewer.explore.selections import REGISTRY, Registry, Selection

ENGINE = Path(explore_query.__file__).parent
# The modules every view goes through: none may name a selection's key.
ENGINE_MODULES = ("query.py", "answers.py", "index/frame.py", "panel.py", "chips.py")


def _selection(name: str, *keys: str) -> Selection:
    return Selection(name, keys, lambda args: {k: args.get(k) or None for k in keys})


def test_a_key_has_one_owner_and_registering_twice_changes_nothing():
    registry = Registry()
    first = _selection("first", "a", "b")
    registry.register(first)
    registry.register(first)
    assert list(registry) == [first] and registry.keys == ("a", "b")
    with pytest.raises(ValueError, match="already belong"):
        registry.register(_selection("second", "b"))
    with pytest.raises(ValueError, match="two selections"):
        registry.register(_selection("first", "c"))
    assert registry.owner("a") is first and registry.owner("c") is None


def test_every_registered_key_round_trips_through_parse_and_args():
    args = MultiDict({"warnings": "none", "q": "AB", "liabilities": "any", "diverse": "5",
                      "contacts_any": "B:48,B:45", "patch": "B:45,B:46", "patch_min": "1"})
    query = explore_query.parse(args)
    assert query.args()["contacts_any"] == "B:45,B:48"  # normalised by its selection
    again = explore_query.parse(MultiDict({k: str(v) for k, v in query.args().items()}))
    assert again.selection_key() == query.selection_key()
    assert query.has_selection and not query.is_plain
    assert [s.name for s in query.in_force()] == [
        "warnings", "text_search", "liabilities", "diverse", "contacts", "patch"]


def test_keys_that_only_add_a_column_or_pick_rows_are_not_a_selection():
    query = explore_query.parse(MultiDict({"similar_to": "CCO", "group": "scaffold"}))
    assert not query.has_selection and not query.is_plain


def test_the_engine_names_no_selection_key():
    keys = "|".join(REGISTRY.keys)
    named = re.compile(rf"\.(?:{keys})\b|[\"'](?:{keys})[\"']")
    found = {name: named.findall((ENGINE / name).read_text()) for name in ENGINE_MODULES}
    assert {name: hits for name, hits in found.items() if hits} == {}
