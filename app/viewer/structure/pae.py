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
``alphafold pae``, ipSAE scripts) read.
"""

from __future__ import annotations

import base64
import io
import zipfile
from typing import Literal

import numpy as np
from pydantic import BaseModel, FiniteFloat

from app.viewer.structure.model import Model

STEP = 0.125  # Angstroms per byte value: 0-31.875 A
# The largest error Boltz (like AlphaFold) can predict: the centre of its last of 64 bins
# of 0.5 A. AlphaFold DB files carry it as ``max_predicted_aligned_error``.
MAX_PREDICTED = 31.75
MAX_TOKENS = 4000  # larger matrices are not drawn (16 M cells)
# The most a pae.npz (and the array in it) may unpack to: float64 N x N plus headers.
# Checked before inflating, so a small archive cannot make a worker allocate gigabytes.
MAX_BYTES = MAX_TOKENS * MAX_TOKENS * 8 + 64 * 1024


class NoPae(Exception):
    """The archive holds no usable ``pae.npz`` (absent, malformed, or not this model)."""


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


def read_npz(archive: bytes) -> np.ndarray:
    """Return the PAE matrix from a result archive's ``pae.npz``, or raise ``NoPae``."""
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
            names = [n for n in zipped.namelist() if n.rsplit("/", 1)[-1] == "pae.npz"]
            if not names:
                raise NoPae("no pae.npz")
            if zipped.getinfo(names[0]).file_size > MAX_BYTES:
                raise NoPae("pae.npz too large")
            data = zipped.read(names[0])
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            key = "pae" if "pae" in npz.files else npz.files[0]
            if npz.zip.getinfo(f"{key}.npy").file_size > MAX_BYTES:
                raise NoPae("pae array too large")
            pae = np.asarray(npz[key], dtype=np.float32)
    except (zipfile.BadZipFile, ValueError, KeyError, IndexError, OSError) as error:
        raise NoPae(str(error)) from error
    if pae.ndim != 2 or pae.shape[0] != pae.shape[1] or not 0 < pae.shape[0] <= MAX_TOKENS:
        raise NoPae(f"shape {pae.shape}")
    return pae


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
    finite = np.nan_to_num(pae, nan=top, posinf=top, neginf=0.0)
    quantised = np.clip(np.rint(finite / STEP), 0, 255).astype(np.uint8)
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
    return Heatmap(n=n, step=STEP, max=float(finite.max()) if n else 0.0,
                   values=base64.b64encode(quantised.tobytes()).decode(),
                   tokens=tokens, chains=chains, linked=matches)


def alphafold(pae: np.ndarray) -> list[dict]:
    """Return the matrix as AlphaFold DB's PAE JSON: a one-element list.

    ``[{"predicted_aligned_error": [[...]], "max_predicted_aligned_error": 31.75}]``, the
    errors rounded to 0.1 A as AlphaFold's ``confidence.pae_json`` writes them (and kept at
    most the maximum), rows the aligned-on token. Unknown (NaN) or infinite errors become
    the largest predictable error: JSON has no NaN, and such a pair is not confidently
    placed.
    """
    finite = np.nan_to_num(pae.astype(np.float64), nan=MAX_PREDICTED, posinf=MAX_PREDICTED,
                           neginf=0.0)
    # Rounding must not push an error past the declared maximum (31.75 -> 31.8).
    rounded = np.minimum(np.round(finite, 1), MAX_PREDICTED)
    return [{"predicted_aligned_error": rounded.tolist(),
             "max_predicted_aligned_error": MAX_PREDICTED}]
