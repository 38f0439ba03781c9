"""Which atoms of a molecule each of its structural alerts covers, and its colour.

A result page draws a molecule with EVERY alert's atoms highlighted, one colour per alert
(``PALETTE``, in the order the page lists them), and lists each alert beside a swatch of
its colour. The drawing's ``highlight`` names the alerts (``spec``): the atoms come from
RDKit's FilterCatalog matches themselves (``atoms_of``), not from a SMARTS rebuilt from a
pattern, so composite catalog entries are highlighted too. It runs where the drawing runs:
in the budgeted chemistry child (``depict``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rdkit import Chem

from app.viewer.chem import alerts

# Light tints (atom colours stay readable on them), told apart by hue: amber, sky blue,
# pink, green, lavender, teal, sand, rose. A ninth alert takes the first colour again.
PALETTE = ("#FFCC59", "#8CC7F7", "#F59ECC", "#9EE09E", "#C7B3F7", "#8CE6E0", "#E0C79E",
           "#F7A8A8")

# A drawing's ``highlight`` that names alerts starts with this (no SMARTS does: "a" then
# "l" is no atom), then the names, one a line (no catalog name holds a new line).
PREFIX = "alerts:"
MAX_ALERTS = 32  # no molecule of a pipeline has more; bounds one drawing's matching
MAX_MATCHES = 100  # places of one alert highlighted (beyond, the molecule is all alert)


def colour(index: int) -> str:
    """Return the hex colour of the ``index``-th alert of a molecule (``PALETTE``)."""
    return PALETTE[index % len(PALETTE)]


def _rgb(hex_colour: str) -> tuple[float, float, float]:
    # A quarter step up, so RDKit writes the same hex back whether it rounds or truncates.
    return tuple(min(1.0, (int(hex_colour[i:i + 2], 16) + 0.25) / 255) for i in (1, 3, 5))


def spec(names: Sequence[str]) -> str | None:
    """Return the ``highlight`` of a drawing that highlights ``names`` (None: none)."""
    return PREFIX + "\n".join(names) if names else None


def names_in(highlight: str | None) -> tuple[str, ...] | None:
    """Return the alert names a ``highlight`` names, or None when it is a SMARTS."""
    if not highlight or not highlight.startswith(PREFIX):
        return None
    return tuple(highlight.removeprefix(PREFIX).split("\n"))[:MAX_ALERTS]


@lru_cache(maxsize=1)
def _entries() -> dict[str, list]:
    catalog = alerts._catalog()  # the one catalog of this process
    out: dict[str, list] = {}
    for index in range(catalog.GetNumEntries()):
        entry = catalog.GetEntryWithIdx(index)
        out.setdefault(entry.GetDescription(), []).append(entry)
    return out


def atoms_of(mol: Chem.Mol, names: Sequence[str]
             ) -> tuple[dict[int, list[tuple]], dict[int, list[tuple]]]:
    """Return, per atom and per bond of ``mol``, the colours of the alerts that cover it.

    The ``i``-th name gets ``PALETTE[i]``; its atoms are those of every match of its
    catalog entries, its bonds those joining two atoms of one match. An unknown name
    keeps its colour and highlights nothing.
    """
    atom_colours: dict[int, list[tuple]] = {}
    bond_colours: dict[int, list[tuple]] = {}
    for index, name in enumerate(names):
        rgb = _rgb(colour(index))
        for entry in _entries().get(name, ()):
            for atoms in _matches(entry, mol):
                for atom in atoms:
                    _add(atom_colours, atom, rgb)
                for bond in mol.GetBonds():
                    if bond.GetBeginAtomIdx() in atoms and bond.GetEndAtomIdx() in atoms:
                        _add(bond_colours, bond.GetIdx(), rgb)
    return atom_colours, bond_colours


def _matches(entry, mol: Chem.Mol) -> list[set[int]]:
    """Return the atoms of every place ``entry`` matches ``mol``.

    The catalog reports one match per entry (both methoxyethoxy chains of erlotinib are
    long aliphatic chains, only one is reported); a plain SMARTS entry is matched again for
    all of them (at most ``MAX_MATCHES``). A composite entry keeps the catalog's match.
    """
    found = entry.GetFilterMatches(mol)
    out = [{pair[1] for pair in match.atomPairs} for match in found]
    for match in found[:1]:
        try:
            pattern = match.filterMatch.GetPattern()
        except (AttributeError, RuntimeError):
            return out
        every = mol.GetSubstructMatches(pattern, uniquify=True, maxMatches=MAX_MATCHES)
        out.extend(set(atoms) for atoms in every)
    return out


def _add(colours: dict[int, list[tuple]], index: int, rgb: tuple) -> None:
    if rgb not in colours.setdefault(index, []):
        colours[index].append(rgb)
