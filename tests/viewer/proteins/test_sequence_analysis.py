"""Sequence liabilities and ProtParam properties of a designed chain: hand-checked motifs,
Biopython's own values, and hostile sequences that must not break anything."""

from __future__ import annotations

import re
import time

import pytest
from Bio.SeqUtils.ProtParam import ProteinAnalysis

from app.viewer.proteins import columns, liabilities, markup, properties


@pytest.mark.parametrize(("sequence", "name", "sites"), [
    # N-X-S/T with X not P; overlapping sequons both count; NPS/NPT never.
    ("AANASAA", "n_glycosylation", [(2, 3)]),
    ("AANLTAA", "n_glycosylation", [(2, 3)]),
    ("AANPSAA", "n_glycosylation", []),
    ("NNSS", "n_glycosylation", [(0, 3), (1, 3)]),
    ("AANA", "n_glycosylation", []),  # no S/T after
    # Deamidation NG, NS (not NA, not GN).
    ("ANGA", "deamidation", [(1, 2)]),
    ("ANSA", "deamidation", [(1, 2)]),
    ("ANAGNA", "deamidation", []),
    # Isomerisation DG, DS.
    ("KDGK", "isomerization", [(1, 2)]),
    ("KDSKDAK", "isomerization", [(1, 2)]),
    # Unpaired cysteine: an odd count marks every C; an even count none.
    ("ACAACA", "unpaired_cysteine", []),
    ("ACAACAC", "unpaired_cysteine", [(1, 1), (4, 1), (6, 1)]),
    # Lower case reads as upper case.
    ("aangaa", "deamidation", [(2, 2)]),
])
def test_each_motif_on_hand_checked_sequences(sequence, name, sites):
    assert liabilities.assess(sequence).sites[name] == sites


def test_oxidation_counts_exposed_m_and_w_never_met_1():
    # Before the structure is read: unknown, the M/W but Met 1 pending (not counted).
    before = liabilities.assess("MAWAM")
    assert before.counts["oxidation"] is None and before.provisional
    assert before.sites["oxidation"] == [] and before.pending == [(2, 1), (4, 1)]
    # Read: the exposed ones; Met 1 never, even reported exposed; a non-M/W position never.
    after = liabilities.assess("MAWAM", exposed=(1, 3, 2))
    assert after.counts["oxidation"] == 1 and after.sites["oxidation"] == [(2, 1)]
    assert not after.provisional and after.pending == []
    assert liabilities.exposed_sites("MAWAM", (1, 3, 5, 2)) == (3, 5)
    # A W at position 1 is no initiator: it can be a site.
    assert liabilities.oxidisable("WAM") == [0, 2]


def test_counts_and_total_of_a_sequence_with_every_liability():
    # M1 (initiator: never), N3-G4 (deamidation), N6-V7-T8 (sequon), D10-S11
    # (isomerisation), W13 (oxidation where exposed), one C (unpaired).
    sequence = "MKNGANVTADSAWC"
    before = liabilities.assess(sequence)
    assert before.counts == {"n_glycosylation": 1, "deamidation": 1, "isomerization": 1,
                             "unpaired_cysteine": 1, "oxidation": None}
    assert before.total == 4 and before.provisional
    after = liabilities.assess(sequence, exposed=(1, 13))
    assert after.counts["oxidation"] == 1 and after.total == 5
    # The index's columns are the assessment before the structure is read.
    assert columns.values(sequence)["liability_count"] == before.total
    assert columns.values(sequence)["liability_oxidation"] is None
    assert columns.values("AAAKAAAE")["liability_count"] == 0


@pytest.mark.parametrize("sequence", [
    "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKR",
    "GSHMEELLKKAEELAKRAEELLKKGDEEALKRAAELLEEA",
    "CWYCWYC",
])
def test_properties_are_biopythons_own(sequence):
    expected = ProteinAnalysis(sequence)
    found = properties.compute(sequence)
    assert found["isoelectric_point"] == pytest.approx(expected.isoelectric_point(), abs=1e-3)
    assert found["gravy"] == pytest.approx(expected.gravy(), abs=1e-3)
    assert found["protein_weight"] == pytest.approx(expected.molecular_weight(), abs=1e-2)
    assert found["net_charge"] == pytest.approx(expected.charge_at_pH(7.4), abs=1e-3)
    assert found["instability_index"] == pytest.approx(expected.instability_index(), abs=1e-3)
    # With cystines formed: Biopython's second value.
    assert found["extinction_coefficient"] == expected.molar_extinction_coefficient()[1]


def test_hand_checked_property_values():
    # Kyte-Doolittle: A 1.8, K -3.9 -> (1.8 * 3 - 3.9) / 4; W 5500, Y 1490, cystine 125.
    assert properties.compute("AAAK")["gravy"] == pytest.approx(0.375)
    assert properties.compute("WYCC")["extinction_coefficient"] == 5500 + 1490 + 125
    # Glycine's average mass: 75.07 Da (a free amino acid).
    assert properties.compute("G")["protein_weight"] == pytest.approx(75.07, abs=0.01)


@pytest.mark.parametrize("sequence", [
    "XXXX", "", "BZUOJ", "1234-*", "\u00e9\u00e8\U0001f9ec", "<script>alert(1)</script>",
])
def test_nothing_standard_left_is_none_not_a_crash(sequence):
    assert properties.compute(sequence) is None or sequence == "<script>alert(1)</script>"
    values = columns.values(sequence)
    assert set(values) == set(columns.KEYS)


def test_non_standard_letters_are_dropped_before_biopython():
    assert properties.compute("AXAKBZU") == properties.compute("AAK")
    assert properties.compute("aak") == properties.compute("AAK")
    assert properties.compute(None) is None and properties.compute(12) is None


def test_a_hostile_100000_residue_string_is_bounded_work():
    hostile = ("NGSM" * 25_000) + "X" * 1000
    start = time.perf_counter()
    values = columns.values(hostile)
    html = markup.marked_sequence(hostile)
    elapsed = time.perf_counter() - start
    assert values["isoelectric_point"] is not None
    assert values["liability_n_glycosylation"] == liabilities.MAX_RESIDUES // 4
    assert html.count("<mark") <= liabilities.MAX_RESIDUES
    assert html.endswith("X" * 1000 + "</span>")  # the tail shown plain, not analysed
    assert elapsed < 2.0


def test_marked_sequence_escapes_and_names_each_liability():
    html = str(markup.marked_sequence("MKNGA<b>&\"'W"))
    assert "<span>MK<mark" in html  # Met 1 is never a site: not marked
    pending = 'class="liab liab-pending" title="Oxidation: an M or W whose exposure'
    assert pending in html  # W12 awaits the structure
    read = str(markup.marked_sequence("MKNGA<b>&\"'W", liabilities.assess("MKNGA<b>&\"'W",
                                                                          (12,))))
    oxidation = liabilities.LABELS["oxidation"]
    assert f'<mark class="liab liab-oxidation" title="{oxidation}">W</mark>' in read
    assert 'title="Deamidation (NG, NS)">NG</mark>' in html
    assert "<b>" not in html and "&lt;b&gt;&amp;&#34;" in html
    # Every residue appears once, in order (groups of ten).
    assert re.sub(r"<[^>]+>", "", html) == "MKNGA&lt;b&gt;&amp;&#34;&#39;W"


def test_designed_sequence_is_the_first_protein_entity():
    record = {"entities": [{"type": "ligand_ccd", "value": "ATP"},
                           {"type": "protein", "value": "MKNG", "chain_ids": ["B"]},
                           {"type": "protein", "value": "AAAA", "chain_ids": ["A"]}]}
    assert columns.designed_sequence(record) == "MKNG"
    assert columns.designed_sequence({"entities": "junk"}) is None
    assert markup.report(record).chain == "B"
