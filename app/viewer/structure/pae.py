"""The PAE heatmap's data: ``pae.npz`` read from a result archive, shaped for the page.

The archive is a zip with a ``pae.npz`` member (key ``pae``, N x N, Angstroms), as the
service's (Boltz's) archives hold. Tokens are the structure's polymer residues in file
order, then one per ligand heavy atom; the page gets the matrix quantised to 1/8 A in
bytes (base64), the chain boundaries, and a label per token, which is all the heatmap,
its hover text and its selection need.

What ``pae.json`` answers is declared here: a ``Heatmap``, or ``NoHeatmap`` (``{"n": 0}``,
which ``static/js/pae.js`` reads as "keep the panel hidden"). Every number in them is
finite: JSON has no NaN or Infinity. ``pae.alphafold.json`` answers the same matrix in
AlphaFold DB's PAE file format (``alphafold``), which PAE tools (PAE Viewer, ChimeraX's
``alphafold pae``, ipSAE scripts) read, written a block of rows at a time.

Reading is bounded whatever an archive claims: the matrix may have at most as many
tokens as the structure (and ``MAX_TOKENS``), and may inflate at most ``MAX_INFLATION``
times its compressed size; the ``.npy`` header is checked before anything is unpacked,
and ``TooLarge`` says which bound a matrix passes.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from collections.abc import Iterator
from typing import Literal

import numpy as np
from numpy.lib import format as npy_format
from pydantic import BaseModel, FiniteFloat

from app.viewer.structure.model import Model

STEP = 0.125  # Angstroms per byte value: 0-31.875 A
# The largest error Boltz (like AlphaFold) can predict: the centre of its last of 64 bins
# of 0.5 A. AlphaFold DB files carry it as ``max_predicted_aligned_error``.
MAX_PREDICTED = 31.75
MAX_TOKENS = 4000  # larger matrices are not read (16 M cells): the hard cap on N
# The most a pae.npz may unpack to before its array is read: N x N float64 plus headers.
HEADER_BYTES = 64 * 1024
# How many times its compressed size a matrix may inflate to. Deflate shrinks a real PAE
# (continuous errors) a few times (the demo's, rounded to 0.5 A, 6.5 times); only a
# matrix of repeats, or one compressed twice, shrinks a hundred times.
MAX_INFLATION = 100
# The .npy dtypes a PAE is written in; each value is read as float32.
NUMBER_KINDS = "fiu"
# Rows converted at a time (quantised, or written as JSON): temporary copies stay small.
BLOCK_ROWS = 64


def npz_bound(max_tokens: int) -> int:
    """Return the most bytes a ``pae.npz`` of at most ``max_tokens`` tokens unpacks to."""
    return max_tokens * max_tokens * 8 + HEADER_BYTES


class NoPae(Exception):
    """The archive holds no usable ``pae.npz`` (absent, malformed, or not this model)."""


class TooLarge(NoPae):
    """The archive's PAE is larger than the viewer reads; the message says how and why."""


class ChainSpan(BaseModel):
    """The tokens of one chain: ``start`` to ``end`` (inclusive, 0-based), and its name."""

    chain: str  # label_asym_id
    start: int
    end: int
    label: str  # "Binder (A)"


class Heatmap(BaseModel):
    """The PAE heatmap of a result, as ``pae.json`` answers it."""

    n: int  # tokens: the matrix is n x n
    step: FiniteFloat  # Angstroms per byte value
    max: FiniteFloat  # the largest error drawn, Angstroms
    values: str  # the n x n bytes, row-major, base64
    # Per token: (label_asym_id, label_seq_id or None for a ligand atom, residue name).
    tokens: list[tuple[str, int | None, str]]
    chains: list[ChainSpan]
    linked: bool  # tokens match the model: hover names residues, selection reaches Mol*


class NoHeatmap(BaseModel):
    """What ``pae.json`` answers for a result without a usable PAE: ``{"n": 0}``."""

    n: Literal[0] = 0


def read_npz(archive: bytes, max_tokens: int = MAX_TOKENS) -> np.ndarray:
    """Return the PAE matrix (float32) from a result archive's ``pae.npz``.

    Raises ``TooLarge`` when the matrix has more than ``max_tokens`` (at most
    ``MAX_TOKENS``) rows, or would inflate more than ``MAX_INFLATION`` times the archive
    member's compressed size; ``NoPae`` when there is no readable square matrix. Sizes
    are checked from the zip and ``.npy`` headers before anything is decompressed, and
    no more than the declared matrix is read, so memory is bounded by ``max_tokens``
    whatever the archive claims.
    """
    max_tokens = min(max_tokens, MAX_TOKENS)
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
            member = _member(zipped, lambda name: name.rsplit("/", 1)[-1] == "pae.npz")
            if member.file_size > npz_bound(max_tokens):
                raise TooLarge(f"The PAE file unpacks to {member.file_size:,} bytes, more "
                               f"than a {max_tokens:,}-token matrix needs.")
            # Bounded: zipfile reads no more than the declared file_size.
            npz = zipped.read(member)
        with zipfile.ZipFile(io.BytesIO(npz)) as inner:
            names = inner.namelist()
            key = "pae.npy" if "pae.npy" in names else None
            array = _member(inner, lambda name: name == key if key else name.endswith(".npy"))
            with inner.open(array) as stream:
                return _read_matrix(stream, max_tokens, member.compress_size)
    except (zipfile.BadZipFile, ValueError, KeyError, IndexError, OSError, EOFError,
            SyntaxError) as error:
        raise NoPae(str(error)) from error


def _member(zipped: zipfile.ZipFile, wanted) -> zipfile.ZipInfo:
    for info in zipped.infolist():
        if wanted(info.filename):
            return info
    raise NoPae("no pae.npz")


def _read_matrix(stream, max_tokens: int, compressed: int) -> np.ndarray:
    """Read an N x N ``.npy`` from ``stream``, its header checked first (``read_npz``)."""
    version = npy_format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = npy_format.read_array_header_1_0(stream)
    elif version == (2, 0):
        shape, fortran, dtype = npy_format.read_array_header_2_0(stream)
    else:
        raise NoPae(f".npy version {version}")
    if dtype.kind not in NUMBER_KINDS or dtype.itemsize > 8 or dtype.hasobject:
        raise NoPae(f"dtype {dtype}")
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] <= 0:
        raise NoPae(f"shape {shape}")
    n = shape[0]
    if n > max_tokens:
        raise TooLarge(f"The PAE matrix is {n:,} x {n:,} tokens; this viewer reads at most "
                       f"{max_tokens:,} x {max_tokens:,} for this structure.")
    if n * n * dtype.itemsize > max(compressed, 1) * MAX_INFLATION:
        raise TooLarge(f"The PAE matrix ({n:,} x {n:,}) is compressed more than "
                       f"{MAX_INFLATION} times; this viewer does not unpack it.")
    matrix = np.empty((n, n), dtype=np.float32)
    # Row by row (columns for Fortran order): never the file's bytes and the matrix at once.
    target = matrix.T if fortran else matrix
    row = n * dtype.itemsize
    for index in range(n):
        data = stream.read(row)
        if len(data) != row:
            raise NoPae("pae.npy is shorter than its header says")
        target[index] = np.frombuffer(data, dtype=dtype)
    return matrix


def heatmap(pae: np.ndarray, model: Model, chain_names: dict[str, str]) -> Heatmap:
    """Return the heatmap of a PAE matrix: matrix bytes, tokens, chain spans.

    ``chain_names`` labels chains ("Binder (A)"). Tokens beyond the residues are the
    ligand's atoms; if the matrix does not match the model's token count the labels fall
    back to plain token numbers (the heatmap still draws, the 3D link is off).
    """
    n = pae.shape[0]
    residues = model.residues
    matches = n == len(residues) + model.ligand_atoms
    # Unknown (NaN) and infinite errors draw as the largest; JSON has no NaN or Infinity.
    top = 255 * STEP
    quantised = np.empty(pae.shape, dtype=np.uint8)
    largest = 0.0
    for start in range(0, n, BLOCK_ROWS):
        block = np.nan_to_num(pae[start:start + BLOCK_ROWS], nan=top, posinf=top, neginf=0.0)
        largest = max(largest, float(block.max()))
        quantised[start:start + BLOCK_ROWS] = np.clip(np.rint(block / STEP), 0, 255)
    tokens: list[tuple[str, int | None, str]] = []
    chains: list[ChainSpan] = []
    if matches:
        tokens = [(residue.chain, residue.seq, residue.name) for residue in residues]
        ligand = model.ligands[0] if model.ligands else "L"
        tokens += [(ligand, None, "atom")] * model.ligand_atoms
        for index, (chain, *_rest) in enumerate(tokens):
            if not chains or chains[-1].chain != chain:
                chains.append(ChainSpan(chain=chain, start=index, end=index,
                                        label=chain_names.get(chain, f"Chain {chain}")))
            chains[-1].end = index
    return Heatmap(n=n, step=STEP, max=largest,
                   values=base64.b64encode(quantised.tobytes()).decode(),
                   tokens=tokens, chains=chains, linked=matches)


def alphafold(pae: np.ndarray) -> Iterator[str]:
    """Yield the matrix as AlphaFold DB's PAE JSON, a one-element list, in pieces.

    ``[{"predicted_aligned_error": [[...]], "max_predicted_aligned_error": 31.75}]``, the
    errors rounded to 0.1 A as AlphaFold's ``confidence.pae_json`` writes them (and kept at
    most the maximum), rows the aligned-on token. Unknown (NaN) or infinite errors become
    the largest predictable error: JSON has no NaN, and such a pair is not confidently
    placed. A few rows at a time: a 4,000-token matrix never becomes 16 million Python
    floats at once.
    """
    yield '[{"predicted_aligned_error":['
    for start in range(0, pae.shape[0], BLOCK_ROWS):
        block = np.nan_to_num(pae[start:start + BLOCK_ROWS].astype(np.float64),
                              nan=MAX_PREDICTED, posinf=MAX_PREDICTED, neginf=0.0)
        # Rounding must not push an error past the declared maximum (31.75 -> 31.8).
        rounded = np.minimum(np.round(block, 1), MAX_PREDICTED)
        rows = ",".join(json.dumps(row, separators=(",", ":")) for row in rounded.tolist())
        yield ("," if start else "") + rows
    yield f'],"max_predicted_aligned_error":{MAX_PREDICTED}}}]'
