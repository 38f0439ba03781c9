"""A frame's distinct SMILES read where they lie (``text_column``): a mapped frame keeps
them in the machine's page cache, not as each worker's strings, reads back every text
exactly (hostile ones too), and refuses arrays that do not hold texts."""

from __future__ import annotations

import numpy as np
import pytest

from app.viewer.explore.index import frame, frame_chemistry, frame_files
from app.viewer.explore.index.text_column import TextColumn
from tests.viewer.explore.index.test_frame_files import SIZE, mapped, small_frame

TEXTS = ["CCO", "", "c1ccccc1", "C[C@H](N)C(=O)O",
         "\u03a9\u2248\u00e7\u221a\u222b\u02dc\u00b5\u2264", "🧪" * 3,
         "a,b\n\"c\"\x00\x1e>", "x" * 5000]


def test_texts_read_back_exactly_by_index_slice_and_iteration():
    column = frame_chemistry.texts_from_arrays(*frame_chemistry.texts_to_arrays(TEXTS))
    assert isinstance(column, TextColumn) and len(column) == len(TEXTS)
    assert list(column) == TEXTS and column == TEXTS
    assert [column[i] for i in range(len(TEXTS))] == TEXTS
    assert column[-1] == TEXTS[-1] and column[2:5] == TEXTS[2:5]
    with pytest.raises(IndexError):
        column[len(TEXTS)]
    # Saving it again writes the arrays it was read from, not a copy made of its texts.
    blob, ends = frame_chemistry.texts_to_arrays(column)
    assert blob is column.blob and ends is column.ends
    many = [f"C{'C' * (i % 40)}O{i}" for i in range(10_000)]  # more than one block
    assert list(frame_chemistry.texts_from_arrays(*frame_chemistry.texts_to_arrays(many))
                ) == many


@pytest.mark.parametrize("blob, ends", [
    (b"abc", [1, 5]),  # past the blob
    (b"abc", [2, 1, 3]),  # falling
    (b"abc", [1, 2]),  # short of the blob
    ("é".encode(), [1, 2]),  # a text ends inside a character
    (b"\xff\xfe", [2]),  # not UTF-8
    (b"abc", []),  # bytes and no texts
])
def test_arrays_that_do_not_hold_texts_are_refused(blob, ends):
    with pytest.raises(ValueError):
        TextColumn(np.frombuffer(blob, dtype=np.uint8), np.array(ends, dtype=np.int64))


def test_a_mapped_frames_smiles_stay_in_the_files(tmp_path):
    built = small_frame()
    smiles = [f"c1ccccc1{'C' * (i % 50)}N{i}" for i in range(SIZE)]
    built.molecules = frame.Molecules(np.arange(SIZE, dtype=np.int32), smiles)
    loaded = frame_files.save(tmp_path, "pipe_1", 1, 999, 1, built)
    column = loaded.molecules.smiles
    assert isinstance(column, TextColumn) and mapped(column.blob) and mapped(column.ends)
    assert column == smiles and column[1234] == smiles[1234]
    again = frame.from_bytes(frame.to_bytes(loaded))  # the store's copy, from the map
    assert list(again.molecules.smiles) == smiles
