"""One contact definition (``structure.contacts``): the 3D page's interface and the epitope
scan's contacts agree on the same structure, and the pages state the constant's value."""

from __future__ import annotations

from datetime import datetime, timedelta

import gemmi
import pytest

from app.synthetic import protein_pipelines
from app.viewer.epitope import contacts as epitope_contacts
from app.viewer.pages import glossary
from app.viewer.structure import contacts
from app.viewer.structure import model as structure_model
from tests.support.html import page, text
from tests.support.view_rows import ROW_ID

START = datetime(2026, 1, 1)


@pytest.fixture(scope="module")
def design_cifs() -> list[str]:
    """Demo binders (A, no side chains) docked on IL-6 (B)."""
    drafts = protein_pipelines.protein_design("pipe_x", START, START + timedelta(hours=1), 6)
    return [draft.structure_cif for draft in drafts.results]


def _with_side_chains(cif: str) -> str:
    """The same complex with a CG beside each CB: every chain has side chains."""
    st = gemmi.make_structure_from_block(gemmi.cif.read_string(cif)[0])
    for chain in st[0]:
        for residue in chain:
            cb = residue.find_atom("CB", "*")
            if cb is not None:
                atom = gemmi.Atom()
                atom.name, atom.element = "CG", gemmi.Element("C")
                atom.pos = gemmi.Position(cb.pos.x + 1.0, cb.pos.y + 1.0, cb.pos.z)
                residue.add_atom(atom)
    st.setup_entities()
    return st.make_mmcif_document().as_string()


def _target_interface(cif: str) -> tuple[tuple[str, int], ...]:
    """The 3D page's interface residues of the target chain (auth id, residue number)."""
    model = structure_model.read(cif.encode())
    return tuple(sorted((model.auth[chain], seq) for chain, seq in model.interface
                        if model.auth[chain] == "B"))


def test_the_interface_and_the_epitope_agree_on_the_demo_designs(design_cifs):
    for cif in design_cifs:
        epitope = epitope_contacts.read(cif.encode(), "mmcif", {"A"}, {"B"}).contacts
        assert epitope and _target_interface(cif) == epitope


def test_they_agree_on_a_model_with_side_chains_too(design_cifs):
    cif = _with_side_chains(design_cifs[0])
    epitope = epitope_contacts.read(cif.encode(), "mmcif", {"A"}, {"B"}).contacts
    assert epitope and _target_interface(cif) == epitope


def test_the_rule_text_states_the_constants():
    assert f"{contacts.CONTACT_CUTOFF:g}\u00a0\u00c5" in contacts.RULE
    assert f"{contacts.CB_CONTACT:g}\u00a0\u00c5" in contacts.RULE
    entry = next(e for _g, _h, entries in glossary.sections() for e in entries
                 if e.key == "contact")
    assert contacts.RULE in entry.description


@pytest.mark.reads_demo
def test_the_pages_state_the_constants_value(client, demo):
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["protein_design"]
    listing = client.get(f"/share/{link}/pipelines/{pipeline}").get_data(as_text=True)
    first = ROW_ID.findall(listing)[0]
    soup = page(client, f"/share/{link}/pipelines/{pipeline}/results/{first}/structure")
    legend = text(soup.select_one("details.interface"))
    assert contacts.RULE.replace("\u00a0", " ") in legend.replace("\u00a0", " ")
    assert "within 5 Å" not in legend
    glossary_page = text(page(client, "/glossary").select_one("#contact"))
    assert f"{contacts.CONTACT_CUTOFF:g}" in glossary_page
