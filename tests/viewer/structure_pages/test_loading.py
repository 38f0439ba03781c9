"""The 3D and compare pages of hostile structure files: bounded, gated, and saying why.

A file over the contact rule's bounds gets its page, its confidence legend and no
interface, with the reason on the page; a file not read yet is expensive work (the work
gate's "busy, retry" past its slots), a file read once is not.
"""

from __future__ import annotations

import re
import time

import pytest

from app.viewer.runtime.work_gate import WorkGate
from app.viewer.structure import contacts, reading
from tests.support import hostile_structures
from tests.support.structure_results import link_to_structures


@pytest.fixture(autouse=True)
def _nothing_kept():
    reading.forget()
    yield
    reading.forget()


@pytest.fixture(scope="module")
def over_the_cap() -> bytes:
    """Two chains of MAX_ATOMS + 9 heavy atoms in all."""
    return hostile_structures.lattice_complex(contacts.MAX_ATOMS + 9, 2)


@pytest.mark.slow
def test_a_structure_over_the_atom_cap_gets_its_page_and_says_why_no_interface(
        app, client, org, over_the_cap):
    base, ids = link_to_structures(app, org, [over_the_cap])
    started = time.perf_counter()
    response = client.get(f"{base}/results/{ids[0]}/structure")
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    # About 5 s quiet (parsed, never compared); 30 s seen beside a loaded test worker.
    assert time.perf_counter() - started < 120
    note = re.search(r"<section class=\"legend interface\" data-interface-note>.*?</section>",
                     body, re.S).group(0)
    assert (f"Not computed: it has {contacts.MAX_ATOMS + 9:,} heavy atoms, more than the "
            f"{contacts.MAX_ATOMS:,} whose contacts the viewer computes.") in note
    assert "interface-list" not in body
    assert 'data-color-mode="plddt"' in body  # the confidence legend is there


@pytest.mark.slow
def test_crowded_and_intertwined_files_show_their_pages_and_compare(app, client, org):
    crowded = hostile_structures.crowded(20_000)
    large = hostile_structures.lattice_complex(40_000, 2)
    base, ids = link_to_structures(app, org, [crowded, large])
    body = client.get(f"{base}/results/{ids[0]}/structure").get_data(as_text=True)
    assert "Not computed: its atoms are piled on one another" in body
    body = client.get(f"{base}/results/{ids[1]}/structure").get_data(as_text=True)
    assert "interface-list" in body and "data-interface-note" not in body
    compare = client.get(f"{base}/compare?a={ids[1]}&b={ids[1]}")
    assert compare.status_code == 200


def test_a_file_not_read_yet_is_gated_a_file_read_is_not(app, client, org):
    base, ids = link_to_structures(app, org, [hostile_structures.lattice_complex(4_000, 2)])
    page = f"{base}/results/{ids[0]}/structure"
    gate = app.extensions["work_gate"] = WorkGate(slots=1, per_client=1)
    assert gate.try_enter("someone else")  # the only slot is taken
    busy = client.get(page)
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
    gate.leave("someone else")
    assert client.get(page).status_code == 200
    assert gate.try_enter("someone else")
    # Read once, the file's page needs no slot: served while the gate is full.
    assert client.get(page).status_code == 200 and gate.running == 1
