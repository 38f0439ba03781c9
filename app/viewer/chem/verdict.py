"""One structural-alert verdict per molecule: RDKit's catalog and the API's own warnings,
reconciled (pure: no I/O).

Two sources can flag a molecule. RDKit's FilterCatalog (``chem.alerts``: PAINS A/B/C and
Brenk, by name) and the compute API, whose result warnings carry codes such as
``pains_substructure`` (its own PAINS check, which finds matches RDKit's catalog does not).
A molecule has an alert of a family when *either* source says so; it has none only when
RDKit checked it and found none *and* the API raised no alert code for it. An API flag
makes a molecule known to have an alert even where RDKit could not read it. So
``alerts=none|any``, ``alert_family=``, the facet counts, the badges and the exports all
read ``verdict``; ``alert=<name>`` names RDKit's alerts only (the API gives a code, not a
pattern).

``sources`` says who flagged what: ``{"rdkit": [names], "api": [codes]}``; the pages name
the source ("RDKit PAINS catalog: <name>", "flagged by the API's check").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.viewer.chem import alerts

# The API's warning codes that are structural alerts, and the family each belongs to.
API_ALERT_CODES = {"pains_substructure": "pains"}


@dataclass(frozen=True)
class Verdict:
    """A molecule's alerts by source: RDKit's names (None: RDKit could not check it) and
    the API's alert codes."""

    rdkit: tuple[str, ...] | None
    api: tuple[str, ...] = ()

    @property
    def sources(self) -> dict[str, list[str]]:
        """Return who flagged what: {"rdkit": [names], "api": [codes]}."""
        return {"rdkit": list(self.rdkit or ()), "api": list(self.api)}

    @property
    def known(self) -> bool:
        """Whether the verdict can be vouched for (RDKit checked it, or the API flagged)."""
        return self.rdkit is not None or bool(self.api)

    def families(self) -> dict[str, dict[str, list[str]]]:
        """Return {family: {"rdkit": [names], "api": [codes]}} of the families present."""
        kinds = alerts.families()
        out: dict[str, dict[str, list[str]]] = {}
        for name in self.rdkit or ():
            out.setdefault(kinds.get(name, "other"), {"rdkit": [], "api": []})["rdkit"].append(
                name)
        for code in self.api:
            out.setdefault(API_ALERT_CODES[code], {"rdkit": [], "api": []})["api"].append(code)
        return {family: out[family] for family in (*alerts.FAMILIES, "other") if family in out}

    def flagged(self, family: str | None = None) -> bool:
        """Whether a source flags an alert (of ``family`` when given)."""
        found = self.families()
        return bool(found) if family is None else family in found


def api_codes(warning_codes: Iterable[object]) -> tuple[str, ...]:
    """Return the API alert codes among a record's warning codes, in ``API_ALERT_CODES``
    order."""
    present = {str(code) for code in warning_codes}
    return tuple(code for code in API_ALERT_CODES if code in present)


def of_record(record: dict, rdkit: tuple[str, ...] | None) -> Verdict:
    """Return the verdict of a result record: ``rdkit`` (its SMILES' catalog names) and the
    alert codes of its warnings."""
    return Verdict(rdkit, api_codes(w.get("code") for w in record.get("warnings") or []
                                    if isinstance(w, dict)))


def families_of_codes(family: str | None) -> tuple[str, ...]:
    """Return the API alert codes of ``family`` (every one when None)."""
    return tuple(code for code, kind in API_ALERT_CODES.items()
                 if family is None or kind == family)
