"""Result archives whose ``pae.npz`` is small on the wire and huge once read.

``doubly_deflated``: a matrix of zeros compressed twice (the ``.npz`` deflated, then the
archive): a 4,000-token float64 matrix (128 MB) is well under a kilobyte.
``declared_shape``: a ``.npy`` header that declares any shape over a few bytes of data.
"""

from __future__ import annotations

import io
import zipfile

import numpy as np


def archive(members: dict[str, bytes | str], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """Return a zip of ``members`` (name: content)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zipped:
        for name, data in members.items():
            zipped.writestr(name, data)
    return buffer.getvalue()


def doubly_deflated(n: int, dtype=np.float64) -> bytes:
    """Return an archive whose ``pae.npz`` holds an n x n matrix of zeros, deflated twice."""
    inner = io.BytesIO()
    np.savez_compressed(inner, pae=np.zeros((n, n), dtype))
    return archive({"pae.npz": inner.getvalue()})


def declared_shape(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    """Return an archive whose ``pae.npy`` header declares ``shape``; 64 bytes follow."""
    npy = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        npy, {"descr": descr, "fortran_order": False, "shape": shape})
    npy.write(b"\0" * 64)
    return archive({"pae.npz": archive({"pae.npy": npy.getvalue()}, zipfile.ZIP_STORED)})
