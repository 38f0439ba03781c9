"""Reading a result archive's ``pae.npz`` stays bounded whatever the archive claims.

A matrix is read only up to the structure's token count (and ``pae.MAX_TOKENS``) and
only if it does not inflate past ``pae.MAX_INFLATION`` times its compressed size; both
are checked from the headers before anything large is allocated. The AlphaFold DB JSON
is written a block of rows at a time, and says exactly what one ``json.dumps`` would.
"""

from __future__ import annotations

import contextlib
import io
import json
import tracemalloc

import numpy as np
import pytest

from app.viewer.structure import pae
from tests.support.hostile_archives import archive, declared_shape, doubly_deflated


def _npz(matrix: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, pae=matrix)
    return buffer.getvalue()


def _peak(call) -> int:
    """Return the peak bytes NumPy and Python allocate while ``call()`` runs."""
    tracemalloc.start()
    with contextlib.suppress(pae.NoPae):
        call()
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def test_a_matrix_within_the_bounds_is_read_as_written():
    rng = np.random.default_rng(7)
    matrix = rng.uniform(0, 31.75, (50, 50))
    got = pae.read_npz(archive({"out/pae.npz": _npz(matrix)}), max_tokens=50)
    assert got.dtype == np.float32 and got.shape == (50, 50)
    np.testing.assert_array_equal(got, matrix.astype(np.float32))
    fortran = pae.read_npz(archive({"pae.npz": _npz(np.asfortranarray(matrix))}))
    np.testing.assert_array_equal(fortran, matrix.astype(np.float32))


def test_a_header_declaring_a_huge_matrix_is_too_large_without_allocating_it():
    hostile = declared_shape((300_000, 300_000))
    with pytest.raises(pae.TooLarge, match="300,000 x 300,000"):
        pae.read_npz(hostile)
    assert _peak(lambda: pae.read_npz(hostile)) < 1024 * 1024


def test_more_tokens_than_the_structure_has_is_too_large():
    matrix = np.full((40, 40), 5.0)
    with pytest.raises(pae.TooLarge, match="at most 39 x 39"):
        pae.read_npz(archive({"pae.npz": _npz(matrix)}), max_tokens=39)
    assert pae.read_npz(archive({"pae.npz": _npz(matrix)}), max_tokens=40).shape == (40, 40)


def test_a_doubly_deflated_matrix_is_refused_before_it_is_unpacked():
    hostile = doubly_deflated(2000)
    assert len(hostile) < 2000  # 32 MB of float64 zeros
    with pytest.raises(pae.TooLarge, match="compressed more than"):
        pae.read_npz(hostile)
    assert _peak(lambda: pae.read_npz(hostile)) < 2 * 1024 * 1024


def test_a_truncated_or_odd_array_is_no_pae():
    assert not issubclass(pae.NoPae, pae.TooLarge)
    for hostile in (declared_shape((30, 30)), declared_shape((3, 4)),
                    declared_shape((2, 2), descr="|O"), declared_shape((5,))):
        with pytest.raises(pae.NoPae) as raised:
            pae.read_npz(hostile)
        assert not isinstance(raised.value, pae.TooLarge)


def test_the_alphafold_json_is_one_document_written_in_pieces():
    rng = np.random.default_rng(3)
    matrix = rng.uniform(0, 33, (pae.BLOCK_ROWS * 2 + 5, pae.BLOCK_ROWS * 2 + 5))
    matrix[1, 2], matrix[3, 4] = np.nan, np.inf
    pieces = list(pae.alphafold(matrix.astype(np.float32)))
    assert len(pieces) > 3
    expected = np.minimum(np.round(np.nan_to_num(matrix.astype(np.float32).astype(np.float64),
                                                 nan=31.75, posinf=31.75), 1), 31.75)
    assert "".join(pieces) == json.dumps(
        [{"predicted_aligned_error": expected.tolist(), "max_predicted_aligned_error": 31.75}],
        separators=(",", ":"))
