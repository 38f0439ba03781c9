"""The "PAINS" / "Brenk" badges of a results table's Structure cells (``chem.verdict``).

Badges show the molecule's verdict: RDKit's catalog (``chem.alerts``) and the API's own
alert warnings, each named with its source. ``page_alerts`` checks the page's distinct
molecules in one budgeted call (cached by SMILES, so usually answered at once: the
whole-set facets or filters checked them); ``badges`` turns one verdict into a badge per
family, every alert's name and source in each badge's title and once in a visually hidden
text (phones cannot hover; screen readers read it).
"""

from __future__ import annotations

from markupsafe import escape

from app.viewer.chem import alerts, verdict


def page_alerts(records: list[dict]) -> dict[str, tuple[str, ...] | None]:
    """Return the alert names of each distinct SMILES of ``records`` (None: unknown)."""
    smiles = list(dict.fromkeys(r.get("smiles") for r in records if r.get("smiles")))
    if not smiles:
        return {}
    return dict(zip(smiles, alerts.names_of(smiles, alerts.PAGE_SECONDS), strict=True))


def badges(found: verdict.Verdict | tuple[str, ...] | None) -> str:
    """Return the badge markup of one molecule's verdict ("" when nothing flags it).

    A badge per family present; every badge's title lists ALL the molecule's alerts by
    family and source ("PAINS: flagged by the API's check; RDKit PAINS catalog:
    ene_rhod_A(235); Brenk: RDKit Brenk catalog: Thiocarbonyl_group"), so hovering either
    tells the whole story; the visually hidden text says it once. A bare tuple of names is
    RDKit's alone.
    """
    if not isinstance(found, verdict.Verdict):
        found = verdict.Verdict(found)
    families = found.families()
    if not families:
        return ""
    parts = []
    for family, by_source in families.items():
        label = alerts.FAMILY_LABELS.get(family, family)
        said = ([f"RDKit {label} catalog: {', '.join(by_source['rdkit'])}"]
                if by_source["rdkit"] else [])
        said += ["flagged by the API's check"] if by_source["api"] else []
        parts.append(f"{label}: {'; '.join(said)}")
    count = sum(len(by["rdkit"]) + len(by["api"]) for by in families.values())
    title = escape(f"{count} structural alert{'s' if count != 1 else ''}: "
                   + " | ".join(parts))
    out = [f'<span class="badge alert-{family}" data-alert-family="{family}" '
           f'data-sources="{" ".join(k for k in ("rdkit", "api") if by[k])}" '
           f'title="{title}">{alerts.FAMILY_LABELS.get(family, family)}</span>'
           for family, by in families.items()]
    return (f'<span class="alert-badges">{"".join(out)}'
            f'<span class="visually-hidden"> {title}</span></span>')
