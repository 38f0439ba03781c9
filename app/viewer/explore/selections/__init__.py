"""The selections of the exploration engine: query keys that narrow, extend or pick a view.

A ``Selection`` is one family of query keys (``warnings``/``warning``, ``smarts``,
``contacts``/``contacts_any``, ...), declared once in a module of this package and
registered once by the viewer's factory (``register``). It says everything the rest needs,
so that the engine (``query``, ``answers``), the filter form, the chips, the exports and
the result page's walk loop over the registry and never name a feature:

- ``keys`` and ``parse``: the query keys it owns and their validation (a ``BadRequest``
  naming the key), giving each key's value or None;
- ``families``: the kinds of results it applies to (a key given for another kind is a 400);
- ``keep``: the rows of the view's frame it keeps (a boolean mask), or None for a
  selection that does not narrow by rows;
- ``extend``: the frame with the columns it adds (``columns``: ``similarity``), before
  anything reads it; filters and sorts by those columns go when its key goes;
- ``pick``: the rows the view shows after ordering (one per scaffold, one per family);
- ``facets``: its counts over the view's rows, for the page's facets and explore.json;
- ``scope``: what besides the query decides its answer (the epitope scan's progress), a
  part of the view's cache key;
- ``narrows``: whether it narrows the set (a view with it is a selection, its exports
  are named so); ``validate``: checks across keys once the whole query is parsed;
- ``export_columns`` and ``export``: the columns it adds beside each record in exports
  (CSV columns, JSON keys) and their values for a batch of result ids;
- ``describe``: the chip's words for one key in force; ``form_keys``: the keys the filter
  form shows as controls (every other key in force is carried by the form as is);
- ``cache_value``: what of a key's value decides the answer (``q`` ignores case).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

BOTH = ("protein", "small_molecule")
PROTEINS = ("protein",)
SMALL_MOLECULES = ("small_molecule",)
_FAMILY_WORDS = {"protein": "protein designs", "small_molecule": "small molecules"}
_RESULTS_WORDS = {"protein": "proteins", "small_molecule": "small molecules"}


@dataclass(frozen=True)
class ViewContext:
    """What a selection reads: the pipeline's index state and the view's frame."""

    state: Any  # results.store's IndexState of the pipeline
    frame: Any  # explore.index.frame.Frame, with the columns the view's selections add


def _same(_key: str, value: Any) -> Any:
    return value


def _key_equals_value(key: str, value: Any) -> str:
    return f"{key}: {value}"


@dataclass(frozen=True)
class Selection:
    """One family of query keys and what it does to a view (module docstring)."""

    name: str
    keys: tuple[str, ...]
    parse: Callable[[Any], dict[str, Any]]
    families: tuple[str, ...] = BOTH
    keep: Callable[[Any, Any], Any] | None = None
    extend: Callable[[Any, Any, Any], Any] | None = None
    columns: tuple[str, ...] = ()
    pick: Callable[[Any, Any, Any], Any] | None = None
    scope: Callable[[Any], Any] | None = None
    facets: Callable[[Any, Any], dict[str, dict[str, int]]] | None = None
    narrows: bool = True
    export_columns: tuple[str, ...] = ()
    export: Callable[[Any, Any, list[str]], dict[str, dict[str, Any]]] | None = None
    validate: Callable[[Any], None] | None = None
    describe: Callable[[str, Any], str] = _key_equals_value
    form_keys: tuple[str, ...] = ()
    cache_value: Callable[[str, Any], Any] = field(default=_same)

    def applies_to(self, family: str) -> bool:
        """Whether its keys make sense for results of ``family``."""
        return family in self.families

    def wrong_family(self, key: str, family: str) -> str:
        """The 400's words for ``key`` given for results of ``family``."""
        wanted = " and ".join(_FAMILY_WORDS[f] for f in self.families)
        return (f"'{key}' is for {wanted}, and this pipeline's results are "
                f"{_RESULTS_WORDS.get(family, family)}.")


class Registry:
    """The registered selections, in registration order (the order of links' keys)."""

    def __init__(self) -> None:
        self._selections: dict[str, Selection] = {}
        self._owners: dict[str, Selection] = {}

    def register(self, *selections: Selection) -> None:
        """Add ``selections``; registering the same one again changes nothing."""
        for selection in selections:
            known = self._selections.get(selection.name)
            if known is selection:
                continue
            if known is not None:
                raise ValueError(f"two selections are called {selection.name!r}")
            taken = [key for key in selection.keys if key in self._owners]
            if taken:
                raise ValueError(f"query keys {taken} already belong to a selection")
            self._selections[selection.name] = selection
            self._owners.update(dict.fromkeys(selection.keys, selection))

    def __iter__(self):
        return iter(tuple(self._selections.values()))

    @property
    def keys(self) -> tuple[str, ...]:
        """Every registered query key, in registration order."""
        return tuple(self._owners)

    def owner(self, key: str) -> Selection | None:
        """Return the selection that owns query key ``key`` (None for another key)."""
        return self._owners.get(key)

    def export_columns(self) -> tuple[str, ...]:
        """Every column a selection may add to exports, in registration order."""
        return tuple(c for s in self for c in s.export_columns)

    def in_force(self, values: Iterable[tuple[str, Any]]) -> list[Selection]:
        """Return the selections with a key among ``values`` (pairs), in registry order."""
        given = {key for key, _ in values}
        return [s for s in self if any(key in given for key in s.keys)]


REGISTRY = Registry()


def export_values(state: Any, query: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Return {column: {result id: value}} of the columns the query's selections add to
    its exports, for the results ``ids``."""
    out: dict[str, dict[str, Any]] = {}
    for selection in query.in_force():
        if selection.export is not None:
            out.update(selection.export(state, query, ids))
    return out


def register(*selections: Selection) -> None:
    """Register ``selections`` with the engine (the viewer's factory calls this)."""
    REGISTRY.register(*selections)
