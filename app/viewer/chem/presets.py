"""Chemistry presets of a small-molecule results view: the filters a chemist asks for by name.

Nobody should need SMARTS fluency to ask for "the carboxylic acids that pass Lipinski and
have no PAINS alert". Each preset is a set of query values of the exploration contract
(``explore.query``), offered as a plain link (works without JavaScript) that adds them to
the current view:

- carboxylic acid: ``[CX3](=O)[OX2H1,OX1-]``, the acid or its carboxylate, never an ester
  (whose single-bonded oxygen carries a carbon, not a hydrogen);
- primary amine: ``[NX3;H2;!$(NC=[O,S,N])][#6]``, an NH2 on carbon (aliphatic or aromatic),
  not an amide, thioamide, urea or amidine NH2, nor a sulfonamide's (on sulfur);
- Lipinski pass: ``lipinski_violations__lte=1``. Lipinski's rule of five flags poor oral
  absorption when MORE than one of its four criteria is broken, so one is a pass;
- no PAINS: ``alerts=none&alert_family=pains`` (``chem.alerts``; Brenk alerts allowed).

``also_matches_esters`` tells when a typed pattern meant for acids also finds esters: it
matches acetic acid on its carboxyl (carbon and OH) and matches methyl acetate too, e.g.
``C(=O)O``. The page then says so and offers the acid preset in one click.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem

from app.viewer.chem import substructure
from app.viewer.core.errors import BadRequest

CARBOXYLIC_ACID = "[CX3](=O)[OX2H1,OX1-]"
PRIMARY_AMINE = "[NX3;H2;!$(NC=[O,S,N])][#6]"
ACETIC_ACID = "CC(=O)O"
METHYL_ACETATE = "CC(=O)OC"


@dataclass(frozen=True)
class Preset:
    """A named filter: the query values it sets (``args``) and what it means (``hint``)."""

    key: str
    label: str
    hint: str
    args: tuple[tuple[str, str], ...]

    @property
    def values(self) -> dict[str, str]:
        """The query values this preset sets, as a dict (for a link's query string)."""
        return dict(self.args)

    @property
    def cleared(self) -> dict[str, None]:
        """The same keys set to None: what drops this preset from a view (``with_args``)."""
        return {name: None for name, _value in self.args}

    def is_on(self, view_args: dict) -> bool:
        """Whether the view's query values already hold every value of this preset."""
        return all(str(view_args.get(name, "")) == value for name, value in self.args)


PRESETS: tuple[Preset, ...] = (
    Preset("carboxylic_acid", "Carboxylic acid",
           f"Substructure {CARBOXYLIC_ACID}: a COOH or carboxylate, not an ester.",
           (("smarts", CARBOXYLIC_ACID),)),
    Preset("primary_amine", "Primary amine",
           f"Substructure {PRIMARY_AMINE}: an NH\u2082 on carbon, not an amide.",
           (("smarts", PRIMARY_AMINE),)),
    Preset("lipinski", "Lipinski pass",
           "At most one of the rule of five's criteria broken (MW > 500, cLogP > 5, "
           "H-bond donors > 5, acceptors > 10).", (("lipinski_violations__lte", "1"),)),
    Preset("no_pains", "No PAINS",
           "No PAINS A/B/C alert (assay-interference substructures, RDKit's catalog).",
           (("alerts", "none"), ("alert_family", "pains"))),
)
ACID = PRESETS[0]


@lru_cache(maxsize=256)
def also_matches_esters(text: str | None) -> bool:
    """Whether the query ``text`` finds acetic acid and methyl acetate alike (module doc).

    Both molecules have five heavy atoms, so no query takes long on them; an unreadable
    query says nothing (its error is shown instead).
    """
    if not text:
        return False
    try:
        query = substructure.parse_query(text)
    except BadRequest:
        return False
    acid = Chem.MolFromSmiles(ACETIC_ACID)
    # Only a pattern about the carboxyl: one match holding its carbon (1) and its OH (3);
    # "O" or "[#6]" find methyl acetate too, but nobody typed them to find acids.
    about_carboxyl = any({1, 3} <= set(match) for match in acid.GetSubstructMatches(query))
    return about_carboxyl and substructure.match_each([METHYL_ACETATE], query)[0]
