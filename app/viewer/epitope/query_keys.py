"""The epitope keys of the exploration query: ``contacts=`` and ``contacts_any=``.

``contacts=B:45,B:48`` keeps the designs that contact every listed target residue,
``contacts_any=B:45,B:48`` those that contact at least one. A residue is
``<chain>:<residue number>``: the chain id as the run's input names it, the number the
position in that chain's sequence (1-based). Validated here (a 400 naming the key),
normalised (sorted, without repeats) so that equal selections share a cache key, and
registered with the exploration engine by ``explore.selections.contacts``.
"""

from __future__ import annotations

import re

from app.viewer.core.errors import BadRequest

NAMES = ("contacts", "contacts_any")
MAX_RESIDUES = 50
_RESIDUE = re.compile(r"([A-Za-z0-9]{1,4}):(\d{1,6})")


def residues(text: str | None) -> tuple[tuple[str, int], ...]:
    """Return the (chain, number) pairs of a validated ``contacts`` value."""
    if not text:
        return ()
    return tuple((c, int(n)) for c, n in (part.split(":") for part in text.split(",")))


def parse_residues(name: str, raw: str | None) -> str | None:
    """Return the residues of the query key ``name`` (``raw``) normalised, or None when
    empty; a ``BadRequest`` naming ``name`` when malformed."""
    text = (raw or "").strip()
    if not text:
        return None
    found: set[tuple[str, int]] = set()
    for part in (p.strip() for p in text.split(",")):
        match = _RESIDUE.fullmatch(part)
        if match is None or int(match.group(2)) < 1:
            raise BadRequest(f"'{name}' lists residues as <chain>:<residue number>, "
                             f"such as B:45,B:48; not '{part[:40]}'.")
        found.add((match.group(1), int(match.group(2))))
    if len(found) > MAX_RESIDUES:
        raise BadRequest(f"'{name}' lists at most {MAX_RESIDUES} residues.")
    return ",".join(f"{c}:{n}" for c, n in sorted(found))


def parse(args) -> dict[str, str | None]:
    """Return ``contacts`` and ``contacts_any`` of the query string, normalised."""
    return {name: parse_residues(name, args.get(name)) for name in NAMES}
