"""The ``diverse=N`` key of the exploration query: the best-ranked design of N families.

Validated here and carried by ``explore.query.ExploreQuery`` (``args()``, ``selection_key``);
``explore.diverse_answers`` answers it. N is a whole number from 1 to ``MAX_DIVERSE``;
``group=scaffold`` already shows one row per family (its scaffold), so the two together
are refused rather than stacked. A bad value is a 400 naming the key.
"""

from __future__ import annotations

from app.viewer.core.errors import BadRequest

NAME = "diverse"
MAX_DIVERSE = 100


def parse(args) -> int | None:
    """Return ``diverse`` of the query string (None when absent or empty)."""
    raw = (args.get(NAME) or "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_DIVERSE:
        raise BadRequest(f"'diverse' is a whole number of families from 1 to {MAX_DIVERSE}, "
                         f"not '{raw[:40]}'.")
    if args.get("group"):
        raise BadRequest("'diverse' and 'group' both pick one row per family: use one of "
                         "them (diverse=N: N families by similarity; group=scaffold: one "
                         "row per scaffold).")
    return int(raw)
