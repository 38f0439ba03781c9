"""Every structural alert of a molecule highlighted on its result page, each in its own
colour with a legend naming alert and family (issue 20 item 1, loose end: only the first
alert's atoms were shaded), and the table badge's title listing every alert."""

from __future__ import annotations

import html
import re

from rdkit import Chem

from app.viewer.chem import alert_atoms, alerts
from app.viewer.results import alert_badges
from tests.viewer.chem.test_alerts_identifiers import CATALOG, POOL, pool  # noqa: F401

LEGEND = re.compile(r'<li data-alert="([^"]+)" data-family="(\w+)" data-colour="(#[0-9A-F]{6})">')


def rdkit_atoms(smiles: str) -> dict[str, set[int]]:
    """RDKit's own answer: each alert's atoms, at every place its pattern matches."""
    mol = Chem.MolFromSmiles(smiles)
    out: dict[str, set[int]] = {}
    for entry in CATALOG.GetMatches(mol):
        atoms = out.setdefault(entry.GetDescription(), set())
        for found in entry.GetFilterMatches(mol):
            atoms.update(p[1] for p in found.atomPairs)
            for match in mol.GetSubstructMatches(found.filterMatch.GetPattern()):
                atoms.update(match)
    return out


def test_every_place_an_alert_matches_is_highlighted():
    # Erlotinib: two methoxyethoxy chains are both long aliphatic chains (Brenk).
    smiles = "COCCOc1cc2ncnc(Nc3cccc(c3)C#C)c2cc1OCCOC"
    expected = rdkit_atoms(smiles)["Aliphatic_long_chain"]
    mol = Chem.MolFromSmiles(smiles)
    chains = mol.GetSubstructMatches(Chem.MolFromSmarts("[R0;D2][R0;D2][R0;D2][R0;D2]"))
    assert len(chains) == 2 and expected == set(chains[0]) | set(chains[1])
    atom_colours, _bonds = alert_atoms.atoms_of(mol, ["Aliphatic_long_chain"])
    assert set(atom_colours) == expected


def test_each_alert_gets_its_own_atoms_in_its_own_colour():
    smiles = POOL["rhodanine"]
    expected = rdkit_atoms(smiles)
    assert len(expected) >= 3  # ene_rhod_A, a Michael acceptor, a thiocarbonyl
    names = list(expected)
    atom_colours, _bonds = alert_atoms.atoms_of(Chem.MolFromSmiles(smiles), names)
    for index, name in enumerate(names):
        rgb = tuple(min(1.0, (int(alert_atoms.colour(index)[i:i + 2], 16) + 0.25) / 255)
                    for i in (1, 3, 5))
        coloured = {atom for atom, colours in atom_colours.items() if rgb in colours}
        assert coloured == expected[name], name
    assert len({alert_atoms.colour(i) for i in range(len(names))}) == len(names)


def _warm(smiles: str) -> None:
    """Check the molecule once beforehand: a fresh chemistry child builds its catalog in the
    first item's budget, which a loaded test machine can overrun (the page then says
    "unknown", as it should)."""
    for _ in range(3):
        if alerts.names_of([smiles])[0] is not None:
            return


def test_the_result_page_draws_and_lists_every_alert(client, pool):  # noqa: F811
    path, names = pool
    rid = next(r for r, name in names.items() if name == "rhodanine")
    _warm(POOL["rhodanine"])
    body = client.get(f"{path}/results/{rid}").get_data(as_text=True)
    legend = LEGEND.findall(body)
    expected = rdkit_atoms(POOL["rhodanine"])
    assert [name for name, _family, _colour in legend] == list(expected)
    families = {e.GetDescription(): e.GetProp("FilterSet") for e in
                CATALOG.GetMatches(Chem.MolFromSmiles(POOL["rhodanine"]))}
    for name, family, _colour in legend:
        assert family == ("brenk" if families[name] == "Brenk" else "pains")
    colours = [colour for _name, _family, colour in legend]
    assert len(set(colours)) == len(colours)  # one colour per alert
    # The drawing names every alert, and each alert's colour is in the picture.
    src = re.search(r'<figure class="mol mol-large"><img src="([^"]+)"', body).group(1)
    drawing = client.get(html.unescape(src))
    assert drawing.status_code == 200 and drawing.mimetype == "image/svg+xml"
    svg = drawing.get_data(as_text=True).upper()
    for colour in colours:
        assert colour in svg, colour


def test_a_molecule_without_alerts_is_drawn_without_highlight(client, pool):  # noqa: F811
    path, names = pool
    rid = next(r for r, name in names.items() if name == "ibuprofen")
    body = client.get(f"{path}/results/{rid}").get_data(as_text=True)
    src = re.search(r'<figure class="mol mol-large"><img src="([^"]+)"', body).group(1)
    assert "highlight=" not in src


def test_the_badge_title_lists_every_alert_of_the_molecule():
    names = tuple(rdkit_atoms(POOL["rhodanine"]))
    markup = alert_badges.badges(names)
    titles = re.findall(r'title="([^"]+)"', markup)
    assert len(titles) == 2  # a PAINS and a Brenk badge
    for title in titles:
        for name in names:
            assert html.escape(name) in title
