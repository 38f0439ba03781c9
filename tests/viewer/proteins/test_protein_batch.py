"""A page's protein columns computed at once equal Biopython's, chain by chain."""

from __future__ import annotations

import random

import numpy as np

from app.viewer.proteins import batch, columns

LETTERS = "ACDEFGHIKLMNPQRSTVWY"


def _same(got: list[dict], expected: list[dict]) -> bool:
    """Equal values of equal types (an int count is not a float)."""
    return got == expected and all(
        type(g[key]) is type(e[key]) for g, e in zip(got, expected, strict=True) for key in e)


def test_a_page_of_chains_matches_biopython_chain_by_chain():
    rng = random.Random(7)
    chains = ["".join(rng.choice(LETTERS) for _ in range(rng.randint(2, 400)))
              for _ in range(400)]
    # Terminal residues with their own pKs, odd letters, lower case, tiny and empty chains.
    chains += ["A", "M", "D", "E", "MKTAYIAKQRQISFVKSHFSRQ", "pETeR", "XXBZ", "NNSSNGDG",
               "ACXDE-FG*", "CC", "C", "", "KKKKKKKKRRRR", "DDDDEEEE", "W" * 6000]
    chains += [chains[3], None, 12]  # repeated, missing and not text
    expected = [columns.values(chain) for chain in chains]
    assert _same(batch.values_many(chains), expected)
    assert batch.values_many([]) == []


def test_hostile_chains_match_biopython_chain_by_chain():
    """Letters Biopython does not read, case, chains of one residue, motifs across the
    end of one chain and the start of the next, text whose upper case is longer, and
    chains past the cap."""
    chains = [letter * size for letter in LETTERS + "xXBZUO" for size in (1, 2, 3, 8)]
    chains += ["N", "GS", "NG", "S", "NP", "S", "D", "S", "NX", "T", "C"]  # across chains
    chains += ["NPS", "NXS", "NNSS", "N\nT", "NGS", "nGs", "dsDG", "CCC", "ccc", "N-T",
               "X", "-", "*", "1234", " ", "ACDEFGHIKLMNPQRSTVWY".lower(), "ßSß", "ﬀ",
               "éKÉR", "\u041c\u041a\u0422\u0410", "AKR\u00e9", "N\u00dfT", "K" * 5001,
               "D" * 5000 + "K" * 10,
               "X" * 30000 + "K", "KRDE" * 2000, "ACDEFGHIKLMNPQRSTVWY" * 300]
    rng = random.Random(11)
    for _ in range(3000):  # short chains: their means often lie on a rounding boundary
        alphabet = rng.choice((LETTERS, "NGSTDPC", "KRHDECY", LETTERS + "xXBZUO-*\n a"))
        chains.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))))
    expected = [columns.values(chain) for chain in chains]
    assert _same(batch.values_many(chains), expected)
    assert _same(batch.values_many([*chains[::-1], None, ""]),
                 expected[::-1] + [columns.values(None)] * 2)
    assert _same(batch.values_many(["ßSß"]), [columns.values("ßSß")])


def test_a_column_is_rounded_as_pythons_round():
    """Ties at 4 decimals and their neighbours, small and large values, negative ones."""
    ties = np.arange(-20_000, 20_000) / 1e4 + 0.00005
    values = np.concatenate([
        ties, np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf),
        np.random.default_rng(3).uniform(-1e3, 1e3, 20_000),
        np.random.default_rng(4).uniform(0, 1e7, 20_000), [0.0, -0.0, -0.00004, 1e-300]])
    got = batch._round4(values)
    expected = [round(value, 4) for value in values.tolist()]
    assert [repr(value) for value in got] == [repr(value) for value in expected]


def _isoelectric_points(chains: list[str]) -> list[float]:
    """``batch._isoelectric``'s points of ``chains`` (standard residues), unrounded."""
    codes = [batch._CODE[np.frombuffer(chain.encode(), np.uint8)] for chain in chains]
    counts = np.array([np.bincount(c, minlength=20) for c in codes], float)
    n_pk = batch._N_PK[[c[0] for c in codes]]
    c_pk = batch._C_PK[[c[-1] for c in codes]]
    return batch._isoelectric(counts, n_pk, c_pk).tolist()


def test_isoelectric_points_are_biopythons_to_the_last_bit(monkeypatch):
    """Every bisection step goes Biopython's way: the sign read from the charge with one
    power of ten per chain, or (a margin so wide that every chain takes it) from
    Biopython's own sum."""
    from Bio.SeqUtils.IsoelectricPoint import IsoelectricPoint

    rng = random.Random(5)
    chains = ["".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 300)))
              for _ in range(2000)]
    chains += ["K" * 50, "D" * 50, "R", "E", "C", "Y", "H", "KD", "DK", "G" * 400, "KRDE" * 90]
    expected = [IsoelectricPoint(chain).pi() for chain in chains]
    assert _isoelectric_points(chains) == expected
    monkeypatch.setattr(batch, "_NEAR", 1e6)
    assert _isoelectric_points(chains) == expected
