"""The query values of structural alerts: ``alert=<name>`` and ``alert_family=pains|brenk``.

An alert is named as RDKit's FilterCatalog names it (``ene_rhod_A(235)``,
``Michael_acceptor_1``); a name the catalog does not hold is a 400 that says so, so a typo
never reads as "no molecule has it".
"""

from __future__ import annotations

from app.viewer.chem import alerts
from app.viewer.core.errors import BadRequest

MAX_NAME = 80  # the catalog's longest name has 44 characters


def parse_name(raw: str | None) -> str | None:
    """Return the alert name of ``alert=`` (None if empty) or raise ``BadRequest``."""
    text = (raw or "").strip()
    if not text:
        return None
    if len(text) > MAX_NAME or text not in alerts.families():
        raise BadRequest("'alert' takes the name of a PAINS or Brenk alert of RDKit's "
                         "catalog, such as 'ene_rhod_A(235)' or 'Michael_acceptor_1'.")
    return text


def parse_family(raw: str | None) -> str | None:
    """Return ``alert_family=`` (``pains`` or ``brenk``; None if empty) or raise."""
    text = (raw or "").strip().lower()
    if not text:
        return None
    if text not in alerts.FAMILIES:
        raise BadRequest("'alert_family' is 'pains' or 'brenk'.")
    return text
