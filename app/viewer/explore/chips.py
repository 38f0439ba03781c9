"""The filters in force of a view as chips: what each says, and the view without it.

One chip per number or text filter (``ipTM ≥ 0.8``), per registered selection key in force
(its ``Selection.describe``: ``Without warnings``, ``Contacts all of B:45``) and for a
pasted list of ids. Removing a chip keeps every other key in force and the order; removing
a key also drops the filters and sort keys on the columns its selection adds (without
``similar_to`` there is no ``similarity`` to filter by). The results, plot and result pages
show them (``share/results/_chips.html``).
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask
from werkzeug.datastructures import MultiDict

from app.viewer.explore import fields
from app.viewer.explore.query import ExploreQuery, parse, value_text
from app.viewer.explore.selections import REGISTRY

SYMBOLS = {"gte": "≥", "gt": ">", "lte": "≤", "lt": "<", "eq": "="}


@dataclass(frozen=True)
class Chip:
    """One filter in force: its query key, its words, and the view's args without it."""

    key: str
    label: str
    removed: dict


def _without(args: dict, key: str, columns: tuple[str, ...] = ()) -> dict:
    kept = {k: v for k, v in args.items()
            if k != key and k.rpartition("__")[0] not in columns}
    if columns and "sort" in kept:
        sort = ",".join(part for part in str(kept["sort"]).split(",")
                        if part.lstrip("-+") not in columns)
        kept = {k: v for k, v in kept.items() if k != "sort"} | ({"sort": sort} if sort else {})
    return kept


def chips(query: ExploreQuery) -> list[Chip]:
    """Return the chips of ``query``'s filters in force, in the order of its links."""
    args = query.args(page=1)
    found = [Chip(f"{item.key}__{item.op}",
                  f"{fields.label(item.key)} {SYMBOLS[item.op]} {value_text(item.value)}",
                  _without(args, f"{item.key}__{item.op}")) for item in query.filters]
    for key, value in query.selected:
        selection = REGISTRY.owner(key)
        found.append(Chip(key, selection.describe(key, value),
                          _without(args, key, selection.columns)))
    if query.ids:
        count = len(query.ids)
        found.append(Chip("ids", f"{count} listed result{'s' if count != 1 else ''}",
                          _without(args, "ids")))
    return found


def chips_of_args(args: dict) -> list[Chip]:
    """Return the chips of a view given by its query args (a result page's view)."""
    return chips(parse(MultiDict(args)))


def init_app(app: Flask) -> None:
    """Offer ``view_chips`` (an ExploreQuery) and ``args_chips`` (args) to the templates."""
    app.jinja_env.globals.update(view_chips=chips, args_chips=chips_of_args)
