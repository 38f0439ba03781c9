"""The markup of a molecule on a page: its signed depiction, or its text and a note.

``molecule_html`` is what the results table's SMILES cells hold; templates reach the same
figure through the ``molecule`` macro (``templates/share/_partials/molecule.html``), which
calls the ``molecule_figure`` global that ``init_app`` installs.
"""

from __future__ import annotations

from flask import Flask
from markupsafe import Markup, escape

from app.viewer.chem import alert_atoms, alerts, depict, identifiers, properties, verdict
from app.viewer.depictions.signing import depiction_url


def molecule_html(link_id: str, smiles: str | None, highlight: str | None = None,
                  size: str = "row", caption: bool = False) -> str:
    """Return the markup of a molecule: its depiction, or its text and a note.

    Never a blank box: a SMILES RDKit cannot draw shows as text with "could not be
    drawn". ``caption`` puts the SMILES under the drawing (the results tables).
    """
    smiles = smiles or ""
    width, height = depict.SIZES[size]
    text = escape(smiles)
    if not depict.drawable(smiles):
        note = "no SMILES" if not smiles else "could not be drawn"
        return (f'<figure class="mol mol-{size} mol-undrawn">'
                f'<code class="smiles">{text}</code>'
                f'<figcaption class="mol-note">Structure {note}</figcaption></figure>')
    url = escape(depiction_url(link_id, smiles, highlight, size))
    alt = "2D structure" if caption else f"2D structure of {smiles}"
    image = (f'<img src="{url}" width="{width}" height="{height}" loading="lazy" '
             f'decoding="async" alt="{escape(alt)}">')
    tail = f'<figcaption class="smiles">{text}</figcaption>' if caption else ""
    return f'<figure class="mol mol-{size}">{image}{tail}</figure>'


def molecule_figure(link_id: str, smiles: str | None, highlight: str | None = None,
                    size: str = "row") -> Markup:
    """The ``molecule`` macro's body: ``molecule_html`` without a caption, as Markup."""
    return Markup(molecule_html(link_id, smiles, highlight, size))  # noqa: S704 - escaped


def api_alert_codes(record: dict) -> tuple[str, ...]:
    """Return the API's own alert codes of a result (``chem.verdict``), for its page."""
    return verdict.of_record(record, None).api


def alert_highlight(found: list[alerts.Alert] | None) -> str | None:
    """Return the ``highlight`` of a drawing with each of ``found``'s atoms in its colour
    (``alert_atoms``; the i-th alert in ``alert_colour(i)``), None without alerts."""
    return alert_atoms.spec([alert.name for alert in found or ()])


def init_app(app: Flask) -> None:
    """Offer ``depiction_url``, ``molecule_figure``, ``computed_properties``,
    ``structural_alerts`` (with ``alert_highlight`` and ``alert_colour``: every alert's
    atoms in its own colour) and ``molecule_identifiers`` to templates."""
    app.jinja_env.globals.update(depiction_url=depiction_url, molecule_figure=molecule_figure,
                                 computed_properties=properties.table,
                                 structural_alerts=alerts.of_molecule,
                                 api_alert_codes=api_alert_codes,
                                 alert_highlight=alert_highlight,
                                 alert_colour=alert_atoms.colour,
                                 molecule_identifiers=identifiers.of)
