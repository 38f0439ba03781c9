"""A page's protein columns computed at once equal Biopython's, chain by chain."""

from __future__ import annotations

import random

from app.viewer.proteins import batch, columns

LETTERS = "ACDEFGHIKLMNPQRSTVWY"


def test_a_page_of_chains_matches_biopython_chain_by_chain():
    rng = random.Random(7)
    chains = ["".join(rng.choice(LETTERS) for _ in range(rng.randint(2, 400)))
              for _ in range(400)]
    # Terminal residues with their own pKs, odd letters, lower case, tiny and empty chains.
    chains += ["A", "M", "D", "E", "MKTAYIAKQRQISFVKSHFSRQ", "pETeR", "XXBZ", "NNSSNGDG",
               "ACXDE-FG*", "CC", "C", "", "KKKKKKKKRRRR", "DDDDEEEE", "W" * 6000]
    chains += [chains[3], None, 12]  # repeated, missing and not text
    expected = [columns.values(chain) for chain in chains]
    assert batch.values_many(chains) == expected
    assert batch.values_many([]) == []
