"""The chemistry part of a results page's filter form: the SMARTS error, presets, ester note.

A SMARTS that RDKit cannot read (``COOH``) is the visitor's typing, not a broken URL: the
results page answers it itself (status 400) instead of the full-page 400 of
``web.error_pages``, with the form holding every value typed, the error beside the SMARTS
field (``aria-describedby``) and the table of the view WITHOUT that filter. ``parse`` does
that reading; any other bad value stays the full-page 400, and ``explore.json`` and the
exports keep their answers (they call ``query.parse`` itself).

The page's templates read what this module decides from ``g.chem_form`` (a ``ChemForm``),
set by ``parse``: the results page's render (``results.page``) takes no more arguments
for it, and only the filter form (``share/results/_filters.html``) reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import g
from werkzeug.datastructures import MultiDict

from app.viewer.chem import presets, substructure
from app.viewer.core.errors import BadRequest
from app.viewer.results import query as explore_query


@dataclass(frozen=True)
class ChemForm:
    """What the filter form shows of chemistry: ``typed`` (the SMARTS as typed, shown in
    its box), ``error`` (why RDKit could not read it: completes "<typed> ...", or None) and
    the presets."""

    typed: str = ""
    error: str | None = None

    @property
    def presets(self) -> tuple[presets.Preset, ...]:
        """The named filters offered as links (``chem.presets``)."""
        return presets.PRESETS

    @property
    def acid(self) -> presets.Preset:
        """The carboxylic-acid preset: the one-click switch of the ester note."""
        return presets.ACID

    @property
    def also_matches_esters(self) -> bool:
        """Whether the (readable) SMARTS of the view also finds esters (``presets``)."""
        return self.error is None and presets.also_matches_esters(self.typed or None)


def _smarts_error(typed: str) -> str | None:
    """Return why ``typed`` cannot be read as a substructure ("is not a SMARTS..."), or None."""
    try:
        substructure.parse_query(typed)
    except BadRequest as error:
        return error.message
    return None


def parse(args: MultiDict) -> tuple[explore_query.ExploreQuery, ChemForm]:
    """Read a results page's query; an unreadable SMARTS becomes ``ChemForm.error``.

    The query returned is the view without that SMARTS; every other fault still raises
    ``BadRequest`` (the full 400 page naming it).
    """
    typed = (args.get("smarts") or "").strip()
    error = _smarts_error(typed) if typed else None
    if error is not None:
        args = MultiDict(args)
        args.pop("smarts")
    form = ChemForm(typed=typed, error=error)
    g.chem_form = form
    return explore_query.parse(args), form
