"""What every export format shares: counting the records written, breaking off honestly,
and reading a result's files through the presigned URLs the API returned.

An export streams after its first page was read (an error there is an ordinary page).
Whatever fails later (the next API page, a structure file, a writer) cannot be taken back:
``guarded`` then writes the format's marker, if it has one (CSV a row, FASTA and SDF a
last record), logs one warning and raises ``ExportIncomplete``, so that the server aborts
the response without its final chunk and the visitor's browser or HTTP client reports a
failed download instead of keeping a silently short file. JSON and ZIP need no marker:
their unfinished documents (no closing bracket, no central directory) do not parse.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing

from app.viewer.access import identity
from app.viewer.core import api_client, artifacts
from app.viewer.core.errors import TooLarge

log = logging.getLogger(__name__)

# Start of the text that ends an export the API broke off (CSV's marker row, FASTA's and
# SDF's last record). Not a "#" comment, which some readers skip silently.
INCOMPLETE_MARKER = "EXPORT INCOMPLETE"


class ExportIncomplete(Exception):
    """An export failed midway; raised after its marker (if any) was sent."""


def incomplete_text(written: int, unit: str = "rows") -> str:
    """Return the marker's sentence: stopped after how many, download again."""
    return (f"{INCOMPLETE_MARKER}: the results could not all be read "
            f"(stopped after {written} {unit}). Download the file again.")


class Walk:
    """Iterate over pages of records and count the records whose page was written.

    A page counts once the writer asks for the next one, i.e. once its chunk has been
    handed to the server, so the marker says how many results the visitor really got.
    """

    def __init__(self, pages: Iterable[list[dict]]):
        self._pages = pages
        self.written = 0

    def __iter__(self) -> Iterator[list[dict]]:
        for page in self._pages:
            yield page
            self.written += len(page)

    def records(self) -> Iterator[dict]:
        """Yield the records one by one (still counted per page)."""
        for page in self:
            yield from page


def guarded(chunks: Iterable, written: Callable[[], int], label: str,
            marker: Callable[[int], object] | None = None) -> Iterator:
    """Relay ``chunks``; on any failure, send ``marker(written())`` and raise.

    Any exception, not only the API's: a file must never look complete when it is not.
    A visitor hanging up (``GeneratorExit``) is not an exception here and passes through.
    """
    try:
        yield from chunks
    except Exception as error:
        count = written()
        log.warning("%s export broken off after %d results: %s", label, count, error)
        if marker is not None:
            yield marker(count)
        raise ExportIncomplete(f"stopped after {count} results") from error


def _fresh_token(link_id: str) -> str | None:
    """Mint a new token for each call: the body of an export outlives the request's own."""
    api_client.restart_deadline()
    return identity.bearer_for(link_id)


def result_file_chunks(link_id: str, pipeline_id: str, record: dict, role: str,
                       ) -> Iterator[bytes]:
    """Yield the bytes of a result's ``role`` file, read from the URL the API returned.

    As downloads do (``core.artifacts``): only the API's URL is followed, and an URL that
    answers 403/404 (its signature expired during a long export) is asked for once more.
    Each file gets a fresh deadline for connecting; its body is read in bounded pieces.
    Nothing is yielded for a record without that file.
    """
    known = (record.get("artifacts") or {}).get(role) or {}
    if not known.get("url"):
        return
    api_client.restart_deadline()
    locate = artifacts.result_locator(link_id, pipeline_id, record["id"], role, _fresh_token)
    yield from artifacts.artifact_chunks(locate, known)


def result_file_head(link_id: str, pipeline_id: str, record: dict, role: str, *,
                     limit: int, ends: tuple[bytes, ...]) -> bytes | None:
    """Return a result's ``role`` file up to the first of ``ends`` (included), or whole if
    it has none; None when the record has no such file.

    The download is closed as soon as an end is read; a head longer than ``limit`` bytes
    raises ``TooLarge`` (its message says so) once that many are read, so no more than
    ``limit`` and one chunk are held, whatever the file's size.
    """
    if not ((record.get("artifacts") or {}).get(role) or {}).get("url"):
        return None
    head = bytearray()
    with closing(result_file_chunks(link_id, pipeline_id, record, role)) as chunks:
        for chunk in chunks:
            seen = len(head)
            head += chunk
            # An end may straddle two chunks: look again from just before this one.
            since = max(0, seen - max(len(end) for end in ends) + 1)
            found = [at + len(end) for end in ends if (at := head.find(end, since)) >= 0]
            size = min(found) if found else len(head)
            if size > limit:
                raise TooLarge(f"its first record is over {limit // 1024:,} KB")
            if found:
                return bytes(head[:size])
    return bytes(head)
