"""Whole-set answers about structural alerts: the rows of ``alerts=``/``alert=``/
``alert_family=`` and the alert facet counts of the results page.

The index build checked each distinct SMILES of the frame once (``frame_chemistry``:
PAINS A/B/C and Brenk in the budgeted child) and the frame carries the answers: masks and
counts are then NumPy over them, and the facet counts are always there. A frame saved
before that has none: its molecules are checked once per process (``chem.alerts``,
budgeted, cached by SMILES) as below.

``alerts=none|any`` covers both families (DESIGN.md); ``alert_family=pains|brenk`` narrows
it to one (``alerts=none&alert_family=pains`` is "no PAINS", the quick filter), and alone
means "with an alert of that family". A molecule RDKit cannot read or check is in no answer.

Facet counts need every molecule checked. Without the build's answers, the first view of
a small set (up to ``FACET_MOLECULES`` distinct molecules) checks them; a
larger set shows the counts once a filter on alerts has checked its molecules, so a plain
page view never starts minutes of work.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from app.viewer.chem import alerts
from app.viewer.results.frame import Frame
from app.viewer.results.frame_chemistry import Chemistry
from app.viewer.results.query import ExploreQuery
from app.viewer.runtime import work_gate

FACET_MOLECULES = 1000


def molecule_alerts(data: Frame) -> list[tuple[str, ...] | None]:
    """Return the alert names of each distinct molecule of ``data`` (None: unknown)."""
    molecules = data.molecules
    if molecules is None or not molecules.smiles:
        return []
    # Molecules never checked: expensive work, admitted or Busy like a substructure search.
    release = work_gate.enter("alerts") if alerts.uncached(molecules.smiles) else None
    try:
        return alerts.names_of(molecules.smiles)
    finally:
        if release is not None:
            release()


def _family_names(family: str) -> set[str]:
    return {name for name, kind in alerts.families().items() if kind == family}


def _indexed_rows(chemistry: Chemistry, query: ExploreQuery) -> np.ndarray:
    """Return which molecules the query keeps, from the build's answers."""
    family = query.alert_family
    found = chemistry.with_alerts(_family_names(family) if family else None)
    keep = chemistry.alerts_known.copy()
    if query.alerts == "none":
        keep &= ~found
    elif query.alerts == "any" or (family and not query.alert):
        keep &= found
    if query.alert:
        keep &= chemistry.with_alerts({query.alert})
    return keep


def alert_rows(data: Frame, query: ExploreQuery) -> np.ndarray:
    """Return which rows the query's ``alerts``, ``alert`` and ``alert_family`` keep."""
    molecules = data.molecules
    if molecules is None or not molecules.smiles:
        return np.zeros(data.size, dtype=bool)
    if molecules.chemistry is not None:
        return molecules.rows_matching(_indexed_rows(molecules.chemistry, query))
    family = query.alert_family
    keep = []
    for names in molecule_alerts(data):
        if names is None:
            keep.append(False)
            continue
        found = alerts.in_family(names, family)
        ok = True
        if query.alerts == "none":
            ok = not found
        elif query.alerts == "any" or (family and not query.alert):
            ok = bool(found)
        if query.alert:
            ok = ok and query.alert in names
        keep.append(ok)
    return molecules.rows_matching(np.array(keep, dtype=bool))


def facets(data: Frame, keep: np.ndarray) -> dict:
    """Return ``alert`` (matching rows per alert name) and ``alerts`` (rows with none / any
    / unknown), or empty counts when the molecules are not all checked (module doc)."""
    molecules = data.molecules
    empty: dict = {"alert": {}, "alert_family": {}, "alerts": {}}
    if molecules is None or not molecules.smiles:
        return empty
    if molecules.chemistry is not None:
        return _indexed_facets(molecules.chemistry, molecules.codes, keep)
    if len(molecules.smiles) > FACET_MOLECULES and alerts.uncached(molecules.smiles):
        return empty
    try:
        per_molecule = molecule_alerts(data)
    except work_gate.Busy:  # counts are a courtesy: never a 503 for the page itself
        return empty
    codes = molecules.codes[keep & (molecules.codes >= 0)]
    rows_of = np.bincount(codes, minlength=len(per_molecule))
    by_name: Counter = Counter()
    by_family: Counter = Counter()
    status: Counter = Counter()
    kinds = alerts.families()
    for names, count in zip(per_molecule, rows_of.tolist(), strict=True):
        if not count:
            continue
        status["unknown" if names is None else "any" if names else "none"] += count
        for name in names or ():
            by_name[name] += count
        for family in {kinds.get(name) for name in names or ()}:
            by_family[family] += count
    return {"alert": dict(by_name), "alert_family": dict(by_family),
            "alerts": {key: status.get(key, 0) for key in ("none", "any", "unknown")}}


def _indexed_facets(chemistry: Chemistry, codes: np.ndarray, keep: np.ndarray) -> dict:
    """Return ``facets``' counts from the build's answers (NumPy, every molecule)."""
    chosen = codes[keep & (codes >= 0)]
    rows_of = np.bincount(chosen, minlength=chemistry.size)
    known = chemistry.alerts_known
    alerted = chemistry.with_alerts()
    per_code = np.bincount(chemistry.alert_codes, weights=rows_of[chemistry.alert_owners()],
                           minlength=len(chemistry.alert_names))
    by_name = {name: int(n) for name, n in zip(chemistry.alert_names, per_code.tolist(),
                                               strict=True) if n}
    present = set(chemistry.alert_names)
    by_family = {}
    for family in alerts.FAMILIES:
        names = _family_names(family) & present
        count = int(rows_of[chemistry.with_alerts(names)].sum()) if names else 0
        if count:
            by_family[family] = count
    return {"alert": by_name, "alert_family": by_family,
            "alerts": {"none": int(rows_of[known & ~alerted].sum()),
                       "any": int(rows_of[known & alerted].sum()),
                       "unknown": int(rows_of[~known].sum())}}
