"""The "PAINS" / "Brenk" badges of a results table's Structure cells (``chem.alerts``).

``page_alerts`` checks the page's distinct molecules in one budgeted call (cached by SMILES,
so usually answered at once: the whole-set facets or filters checked them); ``badges``
turns one molecule's alert names into a badge per family, every alert's name (by family) in
each badge's title and once in a visually hidden text (phones cannot hover; screen readers
read it).
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
    """Return the badge markup of one molecule's alerts ("" when none or unknown).

    A badge per family present; every badge's title lists ALL the molecule's alerts by
    family ("PAINS: ene_rhod_A(235); Brenk: Michael_acceptor_1, Thiocarbonyl_group"), so
    hovering either tells the whole story; the visually hidden text says it once.
    """
    if not names:
        return ""
    kinds = alerts.families()
    by_family = {family: [name for name in names if kinds.get(name) == family]
                 for family in alerts.FAMILIES}
    present = [family for family in alerts.FAMILIES if by_family[family]]
    listed = escape("; ".join(f"{alerts.FAMILY_LABELS[family]}: {', '.join(by_family[family])}"
                              for family in present))
    count = len(names)
    title = f"{count} structural alert{'s' if count != 1 else ''}: {listed}"
    out = [f'<span class="badge alert-{family}" data-alert-family="{family}" '
           f'title="{title}">{alerts.FAMILY_LABELS[family]}</span>' for family in present]
    return (f'<span class="alert-badges">{"".join(out)}'
            f'<span class="visually-hidden"> {title}</span></span>')
