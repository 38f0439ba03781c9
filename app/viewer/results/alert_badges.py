"""The "PAINS" / "Brenk" badges of a results table's Structure cells (``chem.alerts``).

``page_alerts`` checks the page's distinct molecules in one budgeted call (cached by SMILES,
so usually answered at once: the whole-set facets or filters checked them); ``badges``
turns one molecule's alert names into a badge per family, the names in its title and in
a visually hidden text (phones cannot hover; screen readers read it).
"""

from __future__ import annotations

from markupsafe import escape

from app.viewer.chem import alerts


def page_alerts(records: list[dict]) -> dict[str, tuple[str, ...] | None]:
    """Return the alert names of each distinct SMILES of ``records`` (None: unknown)."""
    smiles = list(dict.fromkeys(r.get("smiles") for r in records if r.get("smiles")))
    if not smiles:
        return {}
    return dict(zip(smiles, alerts.names_of(smiles, alerts.PAGE_SECONDS), strict=True))


def badges(names: tuple[str, ...] | None) -> str:
    """Return the badge markup of one molecule's alerts ("" when none or unknown)."""
    if not names:
        return ""
    kinds = alerts.families()
    out = []
    for family in alerts.FAMILIES:
        mine = [name for name in names if kinds.get(name) == family]
        if not mine:
            continue
        label = alerts.FAMILY_LABELS[family]
        listed = escape(", ".join(mine))
        out.append(f'<span class="badge alert-{family}" data-alert-family="{family}" '
                   f'title="{label} alert: {listed}">{label}'
                   f'<span class="visually-hidden"> alert: {listed}</span></span>')
    return f'<span class="alert-badges">{"".join(out)}</span>'
