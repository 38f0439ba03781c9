"""Designed vs fixed chains come from the run's input; the old guess only without one."""

from __future__ import annotations

from app.viewer.provenance.roles import Role, prediction_roles, result_roles
from tests.support import sdk_records as records


def protein_result(*entities: tuple[str, str]) -> dict:
    """A protein result record with entities (type, chain) in this order."""
    return {"id": "res_1", "entities": [
        {"type": kind, "chain_ids": [chain], "value": "MK" if kind == "protein" else "HEM"}
        for kind, chain in entities]}


def test_design_roles_come_from_the_input_not_the_entity_order():
    # The target comes first in the record: the old guess would call B the binder.
    record = protein_result(("protein", "B"), ("protein", "A"))
    assert result_roles(record) == {"B": Role.BINDER, "A": Role.TARGET}
    assert result_roles(record, records.protein_design()) == {"B": Role.TARGET,
                                                              "A": Role.BINDER}


def test_screened_protein_is_the_binder_beside_the_input_target():
    record = protein_result(("protein", "C"), ("protein", "X"))
    assert result_roles(record, records.protein_library_screen()) == {
        "C": Role.TARGET, "X": Role.BINDER}


def test_redesign_ligand_and_fixed_chains():
    record = protein_result(("protein", "A"), ("protein", "B"), ("ligand_ccd", "L"))
    assert result_roles(record, records.protein_redesign()) == {
        "A": Role.BINDER, "B": Role.TARGET, "L": Role.LIGAND}


def test_small_molecule_ligand_takes_the_first_free_chain():
    record = {"id": "res_1", "smiles": "CCO"}
    assert result_roles(record, records.small_molecule_screen()) == {
        "A": Role.TARGET, "B": Role.BINDER}


def test_guess_stays_when_the_input_is_absent_unknown_or_names_other_chains():
    record = protein_result(("protein", "A"), ("protein", "B"))
    guess = {"A": Role.BINDER, "B": Role.TARGET}
    assert result_roles(record, None) == guess
    assert result_roles(record, {"input": None}) == guess
    assert result_roles(record, {"input": {"something": "new"}}) == guess
    other = records.protein_design()
    other["input"]["target"]["entities"][0]["chain_ids"] = ["Z"]
    other["input"]["binder_specification"]["entities"][0]["chain_ids"] = ["Y"]
    assert result_roles(record, other) == guess


def test_generic_design_without_target_is_designed_and_fixed():
    pipeline = {"pipeline": "boltzprot", "input": {"type": "generic", "entities": [
        {"type": "no_template", "entity": {"type": "designed_protein", "chain_ids": ["A"],
                                           "value": "40"}},
        {"type": "no_template", "entity": {"type": "protein", "chain_ids": ["B"],
                                           "value": "MK"}}]}}
    record = protein_result(("protein", "A"), ("protein", "B"))
    assert result_roles(record, pipeline) == {"A": Role.DESIGNED, "B": Role.PROTEIN}


def test_prediction_roles_from_the_sdk_input_then_the_old_inputs():
    assert prediction_roles(records.structure_and_binding()) == {"A": Role.TARGET,
                                                                 "B": Role.BINDER}
    unbound = records.structure_and_binding()
    unbound["input"]["binding"] = None
    assert prediction_roles(unbound) == {"A": Role.PROTEIN, "B": Role.LIGAND}
    old = {"inputs": {"binding": {"binder_chain_id": "B"}, "entities": [
        {"type": "protein", "chain_ids": ["A"]}, {"type": "ligand_smiles", "chain_ids": ["B"]}]}}
    assert prediction_roles(old) == {"A": Role.TARGET, "B": Role.BINDER}
    assert prediction_roles({"input": "junk"}) == {}


def test_result_chain_labels_for_tables():
    from app.viewer.provenance import result_chain_labels

    design = protein_result(("protein", "B"), ("protein", "A"))
    assert result_chain_labels(design, records.protein_design()) == {
        "B": "Target (fixed)", "A": "Designed binder"}
    screen = protein_result(("protein", "C"), ("protein", "X"))
    assert result_chain_labels(screen, records.protein_library_screen()) == {
        "C": "Target (fixed)", "X": "Screened binder"}
    assert result_chain_labels(protein_result(("protein", "A")), None) == {"A": "Designed"}
    assert result_chain_labels("junk", "junk") == {}
