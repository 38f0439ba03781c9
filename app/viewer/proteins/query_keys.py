"""The liability keys of the exploration query: ``liabilities=none|any``, ``liability=<name>``.

Validated here (a bad value is a 400 naming the key, like the rest of the contract) and
registered with the exploration engine by ``explore.selections.liabilities``.
"""

from __future__ import annotations

from app.viewer.core.errors import BadRequest
from app.viewer.proteins.liabilities import LIABILITIES

NAMES = ("liabilities", "liability")


def parse(args) -> dict[str, str | None]:
    """Return ``liabilities`` ("none"/"any") and ``liability`` (a name) of the query string."""
    found = {name: args.get(name) or None for name in NAMES}
    if found["liabilities"] not in (None, "none", "any"):
        raise BadRequest("'liabilities' is 'none' or 'any'.")
    if found["liability"] not in (None, *LIABILITIES):
        raise BadRequest(f"'liability' is one of {', '.join(LIABILITIES)}.")
    return found
