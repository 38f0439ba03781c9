"""``alerts=none|any`` (molecules without / with a structural alert), ``alert=<name>`` (one
alert) and ``alert_family=pains|brenk`` (narrows both, and the badges), answered by
``alert_answers``. Small molecules only."""

from __future__ import annotations

from app.viewer.chem import alert_names
from app.viewer.core.errors import BadRequest
from app.viewer.explore import alert_answers
from app.viewer.explore.selections import SMALL_MOLECULES, Selection, ViewContext

_FAMILIES = {"pains": "PAINS", "brenk": "Brenk"}


def _parse(args) -> dict:
    chosen = args.get("alerts") or None
    if chosen not in (None, "none", "any"):
        raise BadRequest("'alerts' is 'none' or 'any'.")
    return {"alerts": chosen, "alert": alert_names.parse_name(args.get("alert")),
            "alert_family": alert_names.parse_family(args.get("alert_family"))}


def _keep(view: ViewContext, query):
    return alert_answers.alert_rows(view.frame, query)


def _describe(key: str, value: str) -> str:
    if key == "alert":
        return f"Alert {value}"
    if key == "alert_family":
        return f"{_FAMILIES.get(value, value)} alerts only"
    return "Without structural alerts" if value == "none" else "With structural alerts"


SELECTION = Selection("alerts", ("alerts", "alert", "alert_family"), _parse,
                      families=SMALL_MOLECULES, keep=_keep, facets=alert_answers.facets,
                      describe=_describe,
                      form_keys=("alerts", "alert_family"))
