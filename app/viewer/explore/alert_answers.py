"""Whole-set answers about structural alerts: the rows of ``alerts=``/``alert=``/
``alert_family=`` and the alert facet counts of the results page.

The index build checked each distinct SMILES of the frame once (``frame_chemistry``:
PAINS A/B/C and Brenk in the budgeted child) and the frame carries the answers: masks and
counts are then NumPy over them, and the facet counts are always there. A frame saved
before that has none: its molecules are checked once per process (``chem.alerts``,
budgeted, cached by SMILES) as below.

A molecule's verdict is ``chem.verdict``'s: RDKit's catalog (per molecule) or the API's own
alert warning codes (per row, ``Frame.warning_flags``, where they are always listed),
whichever flags it. ``alerts=none|any`` covers both families (DESIGN.md);
``alert_family=pains|brenk`` narrows it to one (``alerts=none&alert_family=pains`` is "no
PAINS", the quick filter), and alone means "with an alert of that family". A molecule
RDKit cannot read or check is in no answer.

Facet counts need every molecule checked. Without the build's answers, the first view of
a small set (up to ``FACET_MOLECULES`` distinct molecules) checks them; a
larger set shows the counts once a filter on alerts has checked its molecules, so a plain
page view never starts minutes of work.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from app.viewer.chem import alerts, verdict
from app.viewer.explore.index.frame import Frame
from app.viewer.explore.index.frame_chemistry import Chemistry
from app.viewer.explore.query import ExploreQuery
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


def _api_rows(data: Frame, family: str | None) -> np.ndarray:
    """Return the rows the API's own warnings flag with an alert (of ``family``)."""
    out = np.zeros(data.size, dtype=bool)
    for code in verdict.families_of_codes(family):
        flags = data.warning_flags.rows_with(code)  # an alert code is always listed
        if flags is not None and len(flags) == data.size:
            out |= flags
    return out


def _rdkit_rows(data: Frame, family: str | None, name: str | None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return, per row, whether RDKit checked its molecule, found an alert (of
    ``family``), and found the alert ``name`` (all False without molecules)."""
    molecules = data.molecules
    if molecules is None or not molecules.smiles:
        empty = np.zeros(data.size, dtype=bool)
        return empty, empty, empty
    if molecules.chemistry is not None:
        chemistry = molecules.chemistry
        known = chemistry.alerts_known
        found = chemistry.with_alerts(_family_names(family) if family else None)
        named = chemistry.with_alerts({name}) if name else found
    else:
        per_molecule = molecule_alerts(data)
        known = np.array([names is not None for names in per_molecule], dtype=bool)
        found = np.array([bool(alerts.in_family(names or (), family))
                          for names in per_molecule], dtype=bool)
        named = np.array([name in (names or ()) for names in per_molecule], dtype=bool) \
            if name else found
    return (molecules.rows_matching(known), molecules.rows_matching(known & found),
            molecules.rows_matching(known & named))


def alert_rows(data: Frame, query: ExploreQuery) -> np.ndarray:
    """Return which rows the query's ``alerts``, ``alert`` and ``alert_family`` keep, by
    the molecule's verdict (``chem.verdict``: RDKit's catalog or the API's warnings)."""
    family = query.alert_family
    known, found, named = _rdkit_rows(data, family, query.alert)
    flagged = _api_rows(data, family)
    if query.alerts == "none":
        keep = known & ~found & ~flagged
    elif query.alerts == "any" or (family and not query.alert):
        keep = found | flagged
    else:
        keep = np.ones(data.size, dtype=bool)
    if query.alert:  # RDKit's alert names: the API gives a code, not a pattern
        keep &= named
    return keep


def facets(data: Frame, keep: np.ndarray) -> dict:
    """Return ``alert`` (matching rows per alert name) and ``alerts`` (rows with none / any
    / unknown), or empty counts when the molecules are not all checked (module doc)."""
    molecules = data.molecules
    empty: dict = {"alert": {}, "alert_family": {}, "alerts": {}}
    if molecules is None or not molecules.smiles:
        return empty
    if molecules.chemistry is not None:
        return _with_api(data, keep, _indexed_facets(molecules.chemistry, molecules.codes,
                                                     keep))
    if len(molecules.smiles) > FACET_MOLECULES and alerts.uncached(molecules.smiles):
        return empty
    try:
        per_molecule = molecule_alerts(data)
    except work_gate.Busy:  # counts are a courtesy: never a 503 for the page itself
        return empty
    return _with_api(data, keep, _checked_facets(per_molecule, molecules.codes, keep))


def _with_api(data: Frame, keep: np.ndarray, out: dict) -> dict:
    """Return ``out`` with its none / any / unknown and family counts by the verdict
    (``chem.verdict``: an API alert code flags a row as RDKit's catalog does); the counts
    per alert name stay RDKit's."""
    known, found, _ = _rdkit_rows(data, None, None)
    flagged = _api_rows(data, None)
    out["alerts"] = {"none": int(np.count_nonzero(keep & known & ~found & ~flagged)),
                     "any": int(np.count_nonzero(keep & (found | flagged))),
                     "unknown": int(np.count_nonzero(keep & ~known & ~flagged))}
    by_family = {}
    for family in alerts.FAMILIES:
        rows = _rdkit_rows(data, family, None)[1] | _api_rows(data, family)
        if count := int(np.count_nonzero(keep & rows)):
            by_family[family] = count
    out["alert_family"] = by_family
    return out


def _checked_facets(per_molecule: list, codes: np.ndarray, keep: np.ndarray) -> dict:
    """Return ``facets``' counts from molecules checked on request (RDKit's answers)."""
    chosen = codes[keep & (codes >= 0)]
    rows_of = np.bincount(chosen, minlength=len(per_molecule))
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
