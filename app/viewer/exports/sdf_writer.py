"""SDF export of small-molecule results (RDKit): one molecule per result, never a dropped row.

Records come in the view's order. Each record's title line is
``<rank>|<label>|<result id>|<what the coordinates are>``: ``docked 3D pose``,
``2D depiction`` or ``no atoms`` (``TITLES``), so a reader sees which molecules are poses
before opening one (the molfile's own header line says ``3D`` or ``2D`` too). Its SD
properties are ``rank``, ``label``, ``smiles`` (the API's, verbatim), ``external_id``,
every metric as the API gave it, the ADME values (``lipophilicity``, ``permeability``,
``solubility``), the computed chemistry (``mol_weight``, ``clogp``, ``tpsa``, ``hbd``,
``hba``, ``rotatable_bonds``, ``lipinski_violations``, ``qed``: ``chem.properties``, as
on the result page, rounded as ``precision.DECIMALS`` states), ``warnings`` (codes joined
by ``;``) and ``coordinates``, which says where the atoms' positions come from:

- ``ligand_structure``: the result's ligand file (an SDF, read through the presigned URL
  the API returned, like a download). That is the pose the model placed, so where the
  SMILES leaves a stereocentre open (a racemate) the molecule carries the pose's
  configuration; a ligand file RDKit cannot read falls back to the next case.
- ``2D``: computed by RDKit from the SMILES: the depiction's own CoordGen layout
  (``chem.depict.depiction_mol``, cached), so the file draws as the page does. Not a 3D
  conformer: ETKDG embedding costs tens of times what parsing, 2D layout and writing do,
  so a 10,000-row export would hold a worker's CPU for minutes; and a conformer made
  without the target would look like a pose it is not. Ligand files are fetched several
  at a time (``fetch_ahead``).
- Only a ligand file's first record is read, at most ``LIGAND_RECORD_LIMIT`` bytes.
  A ligand file whose first record is larger, or one the API cannot serve (its
  403/404/5xx, any ``core.errors.ApiError``), is skipped like a missing one: the record
  falls back to ``2D`` and says why in ``ligand_file_error``; the export goes on. A
  failure of the results pages is not skipped (``stream.guarded`` breaks the export off).
- ``none``: RDKit cannot parse the SMILES. The record is still written, with no atoms
  and ``smiles_error`` saying so, so row counts always match the other formats.

Values never break the file's structure, whatever the API returns: a property value is
made one line (newlines and other whitespace runs become one space, control characters
are dropped; a blank line would end an SD data item, so an empty value is left out), and
a value or title that would read as a record end (``$$$$``), a data header (``>``) or a
molfile end (``M  END``) gets a leading space. Property names (metric keys come from the
API) keep only letters, digits, ``_``, ``.`` and ``-`` (others become ``_``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator

from rdkit import Chem
from rdkit.rdBase import BlockLogs

from app import domain
from app.viewer.chem import depict, identifiers
from app.viewer.chem import properties as chemistry
from app.viewer.core.errors import ApiError
from app.viewer.exports import fetch_ahead
from app.viewer.exports.stream import incomplete_text

# Fetches a result's ligand file (bytes, up to its first record) or None:
# ``exports.stream.result_file_head`` bound to the link and pipeline; a test can hand in
# anything else.
LigandFetcher = Callable[[dict], bytes | None]

_ADME_KEYS = tuple(domain.ADME_FIELDS)
# Line starts a reader takes for structure, not data (module docstring).
_STRUCTURE_STARTS = ("$$$$", ">", "M  END")
_NAME_UNSAFE = re.compile(r"[^\w.-]+")
# The title line's last part, by the ``coordinates`` property (module docstring).
TITLES = {"ligand_structure": "docked 3D pose", "2D": "2D depiction", "none": "no atoms"}
# Only a ligand file's first molecule is read: its molfile ends at ``M  END`` (the data
# items and ``$$$$`` follow). A drug-sized pose is a few KB; one past the limit falls back
# to 2D.
RECORD_ENDS = (b"$$$$", b"M  END")
LIGAND_RECORD_LIMIT = 1024 * 1024


def one_line(text: str) -> str:
    """Return ``text`` as one SD line that no reader takes for structure."""
    text = "".join(ch for ch in str(text) if ch.isspace() or unicodedata.category(ch) != "Cc")
    text = " ".join(text.split())
    return " " + text if text.startswith(_STRUCTURE_STARTS) else text


def _value_text(value) -> str:
    """Return an SD property value: full-precision numbers, one line of text."""
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back to the same number
    return one_line(value)


def properties(record: dict) -> list[tuple[str, str]]:
    """Return a result's SD properties (name, text), in a fixed order; empty ones left out."""
    props = [("rank", record.get("rank")), ("label", record.get("label")),
             ("smiles", record.get("smiles")),
             ("inchikey", identifiers.inchikey(record.get("smiles"))),
             ("external_id", record.get("external_id"))]
    props += sorted((record.get("metrics") or {}).items())
    adme = record.get("adme") or {}
    props += [(key, adme.get(key)) for key in _ADME_KEYS]
    props += list((chemistry.compute(record.get("smiles")) or {}).items())
    codes = [str(w.get("code")) for w in record.get("warnings") or [] if w.get("code")]
    props.append(("warnings", ";".join(codes)))
    texts = [(_NAME_UNSAFE.sub("_", str(name)), _value_text(value)) for name, value in props
             if value is not None]
    return [(name, text) for name, text in texts if text]


def _from_ligand_file(data: bytes | None) -> Chem.Mol | None:
    """Return the first molecule of a ligand SDF, or None when there is none or it is bad."""
    if not data:
        return None
    text = data.decode("utf-8", "replace").split("$$$$", 1)[0]
    with BlockLogs():  # a bad file is handled below, not worth an RDKit error line
        mol = Chem.MolFromMolBlock(text, removeHs=False)
    return mol if mol is not None and mol.GetNumAtoms() else None


def _from_smiles(smiles: str | None) -> Chem.Mol | None:
    """Return the SMILES' molecule with the depiction's 2D coordinates, or None."""
    if not smiles:
        return None
    # Past the depictions' length limit (never drawn on a page) the layout is not cached.
    mol = depict.depiction_mol(smiles) if len(smiles) <= depict.MAX_SMILES \
        else depict.layout(smiles)
    return Chem.Mol(mol) if mol is not None else None  # a copy: the title is set on it


def molecule(record: dict, ligand: LigandFetcher) -> tuple[Chem.Mol, list[tuple[str, str]]]:
    """Return the molecule to write for a result and its extra properties (module docstring)."""
    roles, notes = record.get("artifacts") or {}, []
    mol = None
    if roles.get("ligand_structure"):
        try:
            mol = _from_ligand_file(ligand(record))
        except ApiError as error:  # this file only: the export goes on (module docstring)
            reason = one_line(error) or "not found or not allowed"
            notes = [("ligand_file_error", f"the ligand file could not be read ({reason}); "
                                           "coordinates from the SMILES instead")]
    if mol is not None:
        return mol, [("coordinates", "ligand_structure")]
    mol = _from_smiles(record.get("smiles"))
    if mol is not None:
        return mol, [("coordinates", "2D"), *notes]
    return Chem.Mol(), [("coordinates", "none"), *notes,
                        ("smiles_error", "RDKit could not parse this SMILES; no atoms")]


def sdf_record(title: str, mol: Chem.Mol, props: list[tuple[str, str]]) -> str:
    """Return one SD record: the molfile titled ``title``, its data items, ``$$$$``."""
    mol.SetProp("_Name", one_line(title)[:80])
    try:
        block = Chem.MolToMolBlock(mol)
    except (ValueError, RuntimeError):  # a ring RDKit cannot kekulize: aromatic bonds
        block = Chem.MolToMolBlock(mol, kekulize=False)
    items = "".join(f">  <{name}>\n{text}\n\n" for name, text in props)
    return f"{block}{items}$$$$\n"


def record_text(record: dict, ligand: LigandFetcher) -> str:
    """Return the SD record of one result."""
    mol, extra = molecule(record, ligand)
    return sdf_record(title(record, dict(extra)["coordinates"]), mol,
                      properties(record) + extra)


def title(record: dict, coordinates: str) -> str:
    """Return a record's title line: rank, label, id and what its coordinates are."""
    parts = [str(record["rank"]), str(record.get("label") or "")] if "rank" in record else []
    parts += [str(record.get("id") or ""), TITLES.get(coordinates, coordinates)]
    return "|".join(parts)


def sdf_chunks(pages: Iterable[list[dict]], ligand: LigandFetcher,
               width: int = fetch_ahead.WIDTH) -> Iterator[str]:
    """Yield the SDF, one chunk per page of records.

    The ligand files of a page are fetched up to ``width`` at a time, ahead of the record
    being written (``fetch_ahead``); each record is written with its own file, in order.
    """
    def wanted(record: dict) -> bytes | None:
        return ligand(record) if (record.get("artifacts") or {}).get("ligand_structure") \
            else None

    for records in pages:
        yield "".join(record_text(record, outcome.get)
                      for record, outcome in fetch_ahead.in_order(records, wanted, width))


def sdf_incomplete(written: int) -> str:
    """Return the last record of an SDF the API broke off: no atoms, a title saying so."""
    return sdf_record("EXPORT INCOMPLETE", Chem.Mol(),
                      [("export_incomplete", incomplete_text(written, "results"))])
