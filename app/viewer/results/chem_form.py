"""The chemistry part of a results page's filter form: SMARTS and similar_to errors, presets.

A SMARTS that RDKit cannot read (``COOH``) is the visitor's typing, not a broken URL: the
results page answers it itself (status 400) instead of the full-page 400 of
``web.error_pages``, with the form holding every value typed, the error beside the SMARTS
field (``aria-describedby``) and the table of the view WITHOUT that filter. ``parse`` does
that reading. A ``similar_to`` that is neither a result id nor a SMILES RDKit reads is the
same (its error beside the similarity field, the view without ``similar_to`` and the
``similarity`` sort and filters that need it); whether it names a result is known only
from the index, so the page's own ``BadRequest`` naming ``similar_to`` is turned into that
view by ``without_similar``. Any other bad value stays the full-page 400, and
``explore.json`` and the exports keep their answers (they call ``query.parse`` itself).

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
from app.viewer.explore import query as explore_query
from app.viewer.explore.selections.similarity import MAX_SIMILAR_TO


@dataclass(frozen=True)
class ChemForm:
    """What the filter form shows of chemistry: ``typed`` (the SMARTS as typed, shown in
    its box), ``error`` (why RDKit could not read it: completes "<typed> ...", or None) and
    the presets."""

    typed: str = ""
    error: str | None = None
    similar_typed: str = ""  # a similar_to the page could not use, as typed
    similar_error: str | None = None  # why (completes "<typed> ..."), or None

    @property
    def failed(self) -> bool:
        """Whether a typed value was not applied (the page answers 400)."""
        return self.error is not None or self.similar_error is not None

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
    ``BadRequest`` (the full 400 page naming it). A ``similar_to`` longer than any SMILES
    is dropped the same way (``similar_error``).
    """
    typed = (args.get("smarts") or "").strip()
    error = _smarts_error(typed) if typed else None
    if error is not None:
        args = MultiDict(args)
        args.pop("smarts")
    similar = (args.get("similar_to") or "").strip()
    similar_error = None
    if len(similar) > MAX_SIMILAR_TO:
        similar_error = f"is longer than {MAX_SIMILAR_TO} characters"
        args = _drop_similar(args)
    form = ChemForm(typed=typed, error=error, similar_typed=similar if similar_error else "",
                    similar_error=similar_error)
    g.chem_form = form
    return explore_query.parse(args), form


def _drop_similar(args: MultiDict) -> MultiDict:
    """Return ``args`` without ``similar_to`` and what needs it (sort and filters by
    ``similarity``): the view the page shows instead."""
    kept = MultiDict()
    for name, value in args.items(multi=True):
        if name == "similar_to" or name.startswith("similarity__"):
            continue
        if name == "sort":
            value = ",".join(part for part in value.split(",")
                             if part.strip().lstrip("-+") != "similarity")
        kept.add(name, value)
    return kept


def without_similar(args: MultiDict, error: BadRequest
                    ) -> tuple[explore_query.ExploreQuery, ChemForm] | None:
    """Return the view without ``similar_to`` and the form showing why, when ``error`` is
    the page's refusal of that ``similar_to`` (neither a result id nor a readable SMILES);
    None for any other error (the caller re-raises it)."""
    prefix = "'similar_to' "
    typed = (args.get("similar_to") or "").strip()
    if not typed or not error.message.startswith(prefix):
        return None
    query, form = parse(_drop_similar(args))
    form = ChemForm(typed=form.typed, error=form.error, similar_typed=typed,
                    similar_error=error.message.removeprefix(prefix).rstrip("."))
    g.chem_form = form
    return query, form
