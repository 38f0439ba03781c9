"""2D depictions of SMILES as SVG (RDKit), with the atoms of a substructure highlighted.

Coordinates come from CoordGen (``rdDepictor`` with CoordGen preferred): better fused-ring
layouts than RDKit's default, and the SDF export reads the same coordinates
(``depiction_mol``), so a file and the page it came from show the same drawing.

Layout has a budget, because the molecules come from clients: CoordGen's time grows
exponentially with the size of a plain ring (minutes for a large one), holding the GIL, so a
page of a few such drawings would stall every gunicorn worker. A molecule with a ring of
more than ``COORDGEN_MAX_RING`` atoms is laid out by RDKit's own depictor instead
(milliseconds even for a large ring), and one of more than ``MAX_LAYOUT_ATOMS`` heavy atoms
is not laid out at all (RDKit's depictor slows with size too): it is not drawable, and the
page says so. Both limits are checked on the parsed molecule, before any layout;
``tests/viewer/chem`` drives a corpus of hostile molecules (large rings, cages, long chains,
huge SMILES) through every step.

``highlight`` is a SMARTS (its matches in one colour) or names structural alerts
(``alert_atoms.spec``: each alert's atoms in its own colour, for a result page's legend).

Drawings have no background box (they sit on the page's own background) and two sizes:
``row`` (tables) and ``large`` (a result page).

Both caches are bounded (``BoundedCache``): parsed molecules with coordinates by SMILES,
finished SVGs by a SHA-256 of (SMILES, highlight, size). A SMILES longer than
``MAX_SMILES`` is not parsed at all: it is reported as not drawable, like a SMILES RDKit
cannot read, and the page shows its text with a note instead of a blank box.
"""

from __future__ import annotations

import hashlib
import re

from rdkit import Chem
from rdkit.Chem import rdDepictor
from rdkit.Chem.Draw import rdMolDraw2D
from rdkit.rdBase import BlockLogs

from app.viewer.chem import alert_atoms, substructure
from app.viewer.core.errors import BadRequest
from app.viewer.runtime import budget
from app.viewer.runtime.cache import BoundedCache

# Past this a SMILES is no small molecule of a design pipeline; it bounds what one
# request can make the server parse and lay out.
MAX_SMILES = substructure.MAX_SMILES
SIZES = {"row": (160, 120), "large": (320, 240)}
# Highlight colour of matched atoms and bonds: the page accent, light enough that the
# element colours stay readable on it.
HIGHLIGHT = (1.0, 0.80, 0.35)
HIGHLIGHT_HEX = "#FFCC59"  # how RDKit writes it in the SVG
# The largest plain ring CoordGen lays out in milliseconds; each further atom about
# doubles its time.
COORDGEN_MAX_RING = 28
# RDKit's depictor lays this out well within a page's time; no drug-like or designed
# small molecule comes near it.
MAX_LAYOUT_ATOMS = 250
# The hard budget of one drawing (layout, highlight match, drawing) in the child process:
# many times what a normal molecule or the worst of the hostile corpus takes.
DRAW_SECONDS = 3.0

_molecules: BoundedCache[tuple] = BoundedCache(4096)
_readable: BoundedCache[bool] = BoundedCache(16384)
# Drawings are 5-10 KB each; the byte bound caps a worker's share at 32 MB whatever their size.
_drawings: BoundedCache[str] = BoundedCache(4096, maxweight=32 * 1024 * 1024)

# RDKit writes every path's full style; the same look as presentation attributes is
# about half the bytes (and needs no inline style).
_PATH_STYLE = re.compile(
    r"style='fill:none;fill-rule:evenodd;stroke:(#[0-9A-Fa-f]{6});stroke-width:([\d.]+)px;"
    r"stroke-linecap:(\w+);stroke-linejoin:miter;stroke-opacity:1'")
_CLASS = re.compile(r" class='(?:bond|atom)-[^']*'")


def _parse(smiles: str) -> Chem.Mol | None:
    """Return the molecule of ``smiles`` if it can be laid out within the budget, else None."""
    with BlockLogs():  # an unparsable SMILES is reported on the page, not in the log
        mol = Chem.MolFromSmiles(smiles)
    if mol is None or mol.GetNumHeavyAtoms() > MAX_LAYOUT_ATOMS:
        return None
    return mol


def _largest_ring(mol: Chem.Mol) -> int:
    return max((len(ring) for ring in mol.GetRingInfo().AtomRings()), default=0)


def layout(smiles: str) -> Chem.Mol | None:
    """Parse ``smiles`` and give it 2D coordinates within the budget (module docstring).

    None if RDKit cannot read it or it is beyond ``MAX_LAYOUT_ATOMS``.
    """
    mol = _parse(smiles)
    if mol is None:
        return None
    with BlockLogs():
        # The preference is process-wide: set it on every call, as both engines are used.
        rdDepictor.SetPreferCoordGen(_largest_ring(mol) <= COORDGEN_MAX_RING)
        rdDepictor.Compute2DCoords(mol)
    return mol


def depiction_mol(smiles: str | None) -> Chem.Mol | None:
    """Return the molecule of ``smiles`` with its depiction coordinates, or None.

    None for an empty, too long or unparsable SMILES. The molecule is shared (cached):
    copy it (``Chem.Mol(mol)``) before changing it.
    """
    if not smiles or len(smiles) > MAX_SMILES:
        return None
    cached = _molecules.get(smiles)
    if cached is None:
        cached = (layout(smiles),)  # a tuple, so "cannot parse" is cached too
        _molecules.put(smiles, cached)
    return cached[0]


def drawable(smiles: str | None) -> bool:
    """Return whether ``smiles`` can be drawn (parsed by RDKit, within the length and atom
    limits).

    Only parsed, not laid out (the layout costs far more): a page asks this for
    every row, and the layout is needed only when the image itself is asked for.
    """
    if not smiles or len(smiles) > MAX_SMILES:
        return False
    known = _readable.get(smiles)
    if known is None:
        known = _parse(smiles) is not None
        _readable.put(smiles, known)
    return known


def cache_key(smiles: str, highlight: str | None, size: str) -> bytes:
    """Return the drawing cache's key: a SHA-256 of (SMILES, highlight, size)."""
    text = "\0".join((smiles, highlight or "", size))
    return hashlib.sha256(text.encode()).digest()


def _highlight(mol: Chem.Mol, highlight: str | None) -> tuple[list[int], list[int]]:
    if not highlight:
        return [], []
    try:
        query = substructure.parse_query(highlight)
    except BadRequest:
        return [], []  # a drawing is never refused for its highlight
    return substructure.matched_atoms_and_bonds(mol, query)


def _draw(mol: Chem.Mol, highlight: str | None, size: str) -> str:
    width, height = SIZES[size]
    drawer = rdMolDraw2D.MolDraw2DSVG(width, height, -1, -1, True)  # True: <text>, no glyph paths
    options = drawer.drawOptions()
    options.clearBackground = False
    options.padding = 0.06
    names = alert_atoms.names_in(highlight)
    if names is not None:
        # Every alert in its own colour; an atom of two alerts shows both (split).
        atom_colours, bond_colours = alert_atoms.atoms_of(mol, names)
        drawer.DrawMoleculeWithHighlights(mol, "", atom_colours, bond_colours, {}, {})
    else:
        atoms, bonds = _highlight(mol, highlight)
        colours = {i: HIGHLIGHT for i in atoms}
        bond_colours = {i: HIGHLIGHT for i in bonds}
        rdMolDraw2D.PrepareAndDrawMolecule(
            drawer, mol, highlightAtoms=atoms, highlightBonds=bonds,
            highlightAtomColors=colours, highlightBondColors=bond_colours)
    drawer.FinishDrawing()
    svg = _CLASS.sub("", drawer.GetDrawingText())
    return _PATH_STYLE.sub(r"fill='none' stroke='\1' stroke-width='\2' stroke-linecap='\3'", svg)


@budget.task("draw")
def draw_item(item: tuple[str, str | None, str]) -> str | None:
    """The SVG of ``(smiles, highlight, size)``, or None when it cannot be drawn."""
    smiles, highlight, size = item
    return draw_now(smiles, highlight, size)


def draw_now(smiles: str, highlight: str | None = None, size: str = "row") -> str | None:
    """Lay out and draw ``smiles`` in this process (no budget; ``svg`` is the caller's).

    None when the SMILES cannot be drawn (see ``drawable``).
    """
    mol = depiction_mol(smiles)
    return None if mol is None else _draw(mol, highlight, size)


def svg(smiles: str, highlight: str | None = None, size: str = "row") -> str | None:
    """Return the SVG of ``smiles`` (atoms matching ``highlight`` highlighted), or None.

    None when the SMILES cannot be drawn (see ``drawable``). ``size`` is a key of ``SIZES``.
    Drawn in a budgeted child process (``budget``): a molecule that takes longer than
    ``DRAW_SECONDS`` gets ``PLACEHOLDER`` instead, cached like any drawing, so a hostile
    molecule costs its budget once per worker, not once per view.
    """
    if size not in SIZES:
        raise ValueError(f"unknown depiction size {size!r}")
    if not drawable(smiles):
        return None
    key = cache_key(smiles, highlight, size)
    drawing = _drawings.get(key)
    if drawing is None:
        drawing = budget.worker("drawings").run_one("draw", (smiles, highlight, size),
                                                    seconds=DRAW_SECONDS)
        if drawing is budget.OVERRUN:
            drawing = placeholder(size)
        if drawing is None:
            return None
        _drawings.put(key, drawing)
    return drawing


def placeholder(size: str) -> str:
    """Return the drawing shown for a molecule too complex to lay out within its budget."""
    width, height = SIZES[size]
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
            f"viewBox='0 0 {width} {height}' role='img' aria-label='Too complex to draw'>"
            f"<text x='50%' y='50%' text-anchor='middle' font-family='sans-serif' "
            f"font-size='12' fill='#666'>Too complex to draw</text></svg>")
