"""ZIP export: the structure files of a view's results, streamed (zipstream-ng).

The archive holds ``results.csv`` first (the CSV export of the same rows, as a manifest:
``rank`` and ``label`` first), then ``README.txt`` (what the archive holds, its order and
the precision of computed numbers), then per result, in the view's order,
``<rank>_<result_id>.cif`` (its ``structure`` file, mmCIF) and, where it has one,
``<rank>_<result_id>_ligand.sdf`` (``ligand_structure``); the rank is zero-padded (at
least three digits) so that file managers list the files best first. A result without a
structure file has only its manifest row. The manifest needs every row before the first
file, so the rows are walked twice: once for ``results.csv`` and once, page by page,
for the files, whose presigned URLs are then minutes old at most (an expired one is
asked for again).

Nothing is held whole: each file is read from its URL in pieces and deflated on the way
(mmCIF shrinks about threefold at level 1), pieces are gathered into chunks of
``CHUNK_BYTES`` before they go out, and no temporary file is written. The only thing that
grows is the central directory (about a hundred bytes per file), which a ZIP must end
with. A failure midway leaves the archive without that directory, and
``stream.guarded`` aborts the response, so no tool takes a short archive for a
whole one.

One file the API cannot serve (its 403/404/5xx, any ``core.errors.ApiError`` on opening
it) is skipped instead: the archive goes on, and ends with ``missing_files.txt`` (only
when something was skipped) naming each missing file and why. ``results.csv`` still has
every result's row: it is written before any file is fetched, so it cannot say which
are missing. A file is opened and its first piece read *before* its archive member is
started, so an error on opening leaves no half member; an error after that (the body
breaking off midway) cannot be undone in a stream already sent, and breaks the export
off like a failure of the results pages does. Files are fetched up to
``fetch_ahead.WIDTH`` at a time, ahead of the one being written, each held whole up to
``HELD_BYTES`` (a bigger one is opened again and read in pieces when its turn comes), so
the archive still lists them in the view's order and memory stays bounded.
"""

from __future__ import annotations

import itertools
import zipfile
from collections.abc import Callable, Iterable, Iterator
from functools import partial

from zipstream import ZipStream

from app import domain
from app.viewer.core.errors import ApiError
from app.viewer.core.filenames import safe_filename
from app.viewer.exports import fetch_ahead
from app.viewer.exports.csv_writer import csv_chunks
from app.viewer.exports.precision import STATEMENT

# Bytes gathered before a chunk is handed to the server: zipstream yields headers and
# deflate output in many small pieces, each of which would otherwise be a socket write.
CHUNK_BYTES = 256 * 1024
# Level 1 gets most of level 6's saving on mmCIF files at about half the pace of storing
# (docs/architecture.md, Measurements): past about 100 Mbit/s of the visitor's bandwidth
# the stored file would be as slow, below it far slower.
COMPRESS_LEVEL = 1

# Fetches the bytes of a record's file of a role, in pieces (``exports.stream.result_file_chunks``
# bound to the link and pipeline).
FileFetcher = Callable[[dict, str], Iterable[bytes]]
# The files of each result: (artifact role, file name after the result id).
MEMBERS = (("structure", ".cif"), ("ligand_structure", "_ligand.sdf"))
# Not a byte string: zipstream itself yields empty ones. Send what is gathered now.
FLUSH = None
MISSING_FILES = "missing_files.txt"
# A file fetched ahead is held whole up to this size; a bigger one is read in pieces when
# its turn comes (``_held_file``): with ``fetch_ahead.WIDTH`` files ahead, 32 MiB at most.
HELD_BYTES = 8 * 1024 * 1024
_TOO_BIG = object()
README = "README.txt"


def _readme(rows: int, width: int) -> bytes:
    """Return ``README.txt``: what the archive holds and how its files are named."""
    return "\n".join([
        f"This archive holds the structure files of {rows} result{'s' if rows != 1 else ''}, "
        "in the order of the view they were exported from (best first).",
        "results.csv lists them: rank (the position in that view), label (the result's "
        "name on every page of the viewer: #<rank in the run> <end of its id>), the id "
        "and the values shown in the table.",
        f"Files are named <rank>_<result id>.cif (the structure, mmCIF) and "
        f"<rank>_<result id>_ligand.sdf (a docked ligand pose, 3D), the rank written with "
        f"{width} digits.",
        STATEMENT, ""]).encode()


def _counted(pages: Iterable[list[dict]], count: list[int]) -> Iterator[list[dict]]:
    """Yield ``pages`` and add their records to ``count[0]``."""
    for records in pages:
        count[0] += len(records)
        yield records


def member_stem(record: dict, width: int) -> str:
    """Return a result's file name stem: the zero-padded rank (if known) and the id."""
    stem = safe_filename(str(record.get("id") or ""), "result")
    rank = record.get("rank")
    return f"{int(rank):0{width}d}_{stem}" if isinstance(rank, int) else stem


def _gathered(pieces: Iterable[bytes | None]) -> Iterator[bytes]:
    """Re-chunk ``pieces`` into blocks of at least CHUNK_BYTES, or up to a FLUSH.

    A FLUSH sends what is gathered now: after the manifest, so the response (and the
    visitor's download) starts before the first structure file is fetched. A failure
    sends what is gathered before it passes on.
    """
    buffer = bytearray()
    try:
        for piece in pieces:
            if piece is not FLUSH:
                buffer += piece
            if (len(buffer) >= CHUNK_BYTES or piece is FLUSH) and buffer:
                yield bytes(buffer)
                buffer.clear()
    except Exception:
        # Send what was made before the failure, then let the export break off.
        if buffer:
            yield bytes(buffer)
        raise
    if buffer:
        yield bytes(buffer)


def _opened(pieces: Iterable[bytes]) -> Iterable[bytes]:
    """Return ``pieces`` with its first piece already read (opens the file now).

    Raises the API's error for a file that cannot be opened, before any byte of it is
    in the archive (module docstring).
    """
    pieces = iter(pieces)
    first = next(pieces, b"")
    return itertools.chain((first,), pieces)


def _missing_text(missing: list[tuple[str, str]]) -> bytes:
    """Return ``missing_files.txt``: a line saying what it is, then file TAB reason."""
    lines = ["# Files of these results could not be read from the API and are not in "
             "this archive. Download them again from the result pages."]
    lines += [f"{name}\t{reason}" for name, reason in missing]
    return ("\n".join(lines) + "\n").encode()


def _held_file(fetch: FileFetcher, member: tuple[dict, str, str]) -> object:
    """Read one member's file whole (in a ``fetch_ahead`` thread): its bytes as one
    piece, the ``ApiError`` of opening it (skipped, named in missing_files.txt), or
    ``_TOO_BIG`` past ``HELD_BYTES`` (read again in pieces when its turn comes)."""
    record, role, _suffix = member
    pieces = iter(fetch(record, role))
    try:
        try:
            first = next(pieces, b"")
        except ApiError as error:
            return error
        held, size = [first], len(first)
        for piece in pieces:
            size += len(piece)
            if size > HELD_BYTES:
                return _TOO_BIG
            held.append(piece)
        return [b"".join(held)]
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()


def _pieces(kind: domain.Kind, manifest_pages: Iterable[list[dict]],
            file_pages: Iterable[list[dict]], fetch: FileFetcher,
            ahead: int = fetch_ahead.WIDTH) -> Iterator[bytes | None]:
    """Yield the archive in zipstream's own pieces: manifest, files, central directory."""
    archive = ZipStream(compress_type=zipfile.ZIP_DEFLATED, compress_level=COMPRESS_LEVEL)
    rows = [0]
    manifest = csv_chunks(kind, _counted(manifest_pages, rows))
    archive.add((text.encode() for text in manifest), "results.csv")
    yield from archive.all_files()
    width = max(3, len(str(rows[0])))
    archive.add(_readme(rows[0], width), README)
    yield from archive.all_files()
    yield FLUSH
    missing: list[tuple[str, str]] = []
    for records in file_pages:
        members = [(record, role, suffix) for record in records for role, suffix in MEMBERS
                   if ((record.get("artifacts") or {}).get(role) or {}).get("url")]
        held = partial(_held_file, fetch)
        for (record, role, suffix), outcome in fetch_ahead.in_order(members, held, ahead):
            name = member_stem(record, width) + suffix
            found = outcome.get()  # a failure past a file's opening breaks the export off
            try:
                pieces = found if found is not _TOO_BIG else _opened(fetch(record, role))
            except ApiError as error:  # this file only (module docstring)
                found = error
            if isinstance(found, ApiError):
                reason = " ".join(str(found).split()) or "not found or not allowed"
                missing.append((name, f"{role}: {reason}"))
                continue
            archive.add(pieces, name)
            yield from archive.all_files()  # streamed before the next file is written
    if missing:
        archive.add(_missing_text(missing), MISSING_FILES)
        yield from archive.all_files()
    yield from archive.footer()


def zip_chunks(kind: domain.Kind, manifest_pages: Iterable[list[dict]],
               file_pages: Iterable[list[dict]], fetch: FileFetcher,
               ahead: int = fetch_ahead.WIDTH) -> Iterator[bytes]:
    """Yield the ZIP archive of a view (module docstring) in chunks of CHUNK_BYTES.

    Up to ``ahead`` files are fetched at once, ahead of the one being written
    (``fetch_ahead``), each held whole up to ``HELD_BYTES``.
    """
    return _gathered(_pieces(kind, manifest_pages, file_pages, fetch, ahead))
