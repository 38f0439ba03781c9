"""Demo ``pae.npz``: a predicted aligned error matrix as the real service's archives hold.

Format (Boltz's): a numpy ``.npz`` with one array ``pae``, float32, shape N x N, in
Angstroms; entry [i, j] is the expected position error of token j when the prediction is
aligned on token i. Tokens follow the mmCIF's ``_atom_site`` order: one per polymer
residue of every chain, then one per heavy atom of a ligand (Boltz tokenises small
molecules atom by atom), so a ligand of 30 atoms adds 30 rows and columns.

The matrix is made from the model itself, so it looks like a real one: low within each
helix and between packed helices (errors grow with the distance between the two tokens),
higher across chains than within one, and higher in the rows and columns of residues of
low pLDDT. Noise is seeded by a CRC of the mmCIF text, so equal structures give equal
bytes (the content-addressed store keeps one copy) and a reseed gives the same files.
Values are rounded to 0.5 A, which keeps the archives small; the members are stored
uncompressed because the archive around them is deflated anyway.
"""

from __future__ import annotations

import io
import zlib

import numpy as np

MAX_PAE = 31.75  # Boltz's and AlphaFold's PAE bins end near 32 A


def tokens(cif: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return per token: chain index, pLDDT (0-100), coordinates and in-helix flag.

    Reads the demo's own mmCIF layout (``structures.mmcif``): atom_site rows are
    ``group id type atom alt comp asym entity seq ins x y z occ B ...``; a residue token
    sits at its CA, a ligand token (seq ``.``) at its atom.
    """
    chains: dict[str, int] = {}
    chain_of, plddt, xyz, keys = [], [], [], []
    helices: list[tuple[str, int, int]] = []
    for line in cif.splitlines():
        if line.startswith("HELX_P "):
            f = line.split()
            helices.append((f[3], int(f[4]), int(f[7])))
            continue
        if not line.startswith(("ATOM ", "HETATM ")):
            continue
        f = line.split()
        atom, asym, seq = f[3], f[6], f[8]
        if seq != "." and atom != "CA":
            continue
        chain_of.append(chains.setdefault(asym, len(chains)))
        plddt.append(float(f[14]))
        xyz.append((float(f[10]), float(f[11]), float(f[12])))
        keys.append((asym, int(seq) if seq != "." else -1))
    in_helix = np.array([any(a == k[0] and b <= k[1] <= e for a, b, e in helices)
                         for k in keys], dtype=bool)
    return (np.array(chain_of, dtype=np.int32), np.array(plddt, dtype=np.float64),
            np.array(xyz, dtype=np.float64).reshape(-1, 3), in_helix)


def pae_matrix(cif: str) -> np.ndarray:
    """Return the demo PAE (float32, N x N, Angstroms) of an mmCIF made by the demo."""
    chain, plddt, xyz, helix = tokens(cif)
    rng = np.random.default_rng(zlib.crc32(cif.encode()))
    xyz = xyz.astype(np.float32)
    square = (xyz * xyz).sum(1)
    distance = np.sqrt(np.maximum(square[:, None] + square[None, :] - 2.0 * xyz @ xyz.T, 0.0))
    # Per-token error from pLDDT: 95 -> ~0.7 A, 70 -> ~4 A, 40 -> ~9 A.
    error = np.clip((100.0 - plddt.astype(np.float32)) / 7.0, 0.3, 14.0)
    same_chain = chain[:, None] == chain[None, :]
    # Within a chain errors grow slowly with distance, and more slowly inside helices;
    # across chains the relative placement is less certain.
    slope = np.where(helix[:, None] & helix[None, :], np.float32(0.042), np.float32(0.06))
    pae = np.where(same_chain, 0.4 + slope * distance, 2.5 + 0.15 * distance)
    # Aligned on i, judged at j: j's own uncertainty weighs more than i's.
    pae += 0.65 * error[None, :] + 0.35 * error[:, None]
    pae += rng.standard_normal(size=pae.shape, dtype=np.float32) * np.float32(0.3)
    np.fill_diagonal(pae, 0.25)
    pae = np.clip(np.round(pae * 2.0) / 2.0, 0.25, MAX_PAE)
    return pae.astype(np.float32)


def pae_npz(cif: str) -> bytes:
    """Return the ``pae.npz`` bytes of an mmCIF made by the demo (key ``pae``)."""
    buffer = io.BytesIO()
    np.savez(buffer, pae=pae_matrix(cif))
    return buffer.getvalue()
