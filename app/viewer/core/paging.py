"""The results table's query string: page size, keyset cursors and the pasted-id filter.

The viewer mirrors the API's parameters (``limit``, ``after_id``, ``before_id``, ``ids``),
validates them before asking the API, and works out the previous/next links from the
page envelope. Its cursors are the API's: any id the API serves (``is_cursor``), since
they come from the envelope's ``first_id`` and ``last_id``, which may be the id of a record
the viewer cannot show (``core.records``) and skips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from werkzeug.datastructures import MultiDict

from app.domain import MAX_ID_LENGTH
from app.viewer.core.errors import BadRequest

PAGE_SIZES = (25, 50, 100, 250, 500)
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
MAX_IDS = 200
# What an id the API makes (and its ``ids`` filter takes) looks like: URL-safe characters.
ID = re.compile(rf"[A-Za-z0-9_\-]{{1,{MAX_ID_LENGTH}}}")
_SEPARATORS = re.compile(r"[\s,;]+")
_RANK = re.compile(r"#\d{1,9}")
# An entry longer than any id or label is kept this long (to be named, not used).
MAX_ENTRY = 80


@dataclass(frozen=True)
class PageRequest:
    """A validated page request."""

    limit: int = DEFAULT_PAGE_SIZE
    after_id: str | None = None
    before_id: str | None = None
    ids: tuple[str, ...] = ()

    def base_args(self) -> dict:
        """Return the query values that stay the same from page to page."""
        args: dict = {}
        if self.limit != DEFAULT_PAGE_SIZE:
            args["limit"] = self.limit
        if self.ids:
            args["ids"] = ",".join(self.ids)
        return args


def parse_ids(text: str) -> tuple[str, ...]:
    """Split a pasted list into its entries; keep order, drop repeats.

    Entries are separated by commas, semicolons, spaces or new lines; a rank followed by
    a name (``#3 WGK2``, a label as the pages show it) is one entry. Nothing is refused
    here but a list over ``MAX_IDS`` (``BadRequest``): what an entry names, or that it
    names nothing or cannot be read, is worked out against the run
    (``explore.pasted``) and said beside the field, the page answered as usual.
    """
    seen: dict[str, None] = {}
    parts = [part for part in _SEPARATORS.split(text or "") if part]
    at = 0
    while at < len(parts):
        part = parts[at]
        if _RANK.fullmatch(part) and at + 1 < len(parts) and not parts[at + 1].startswith("#"):
            part, at = f"{part} {parts[at + 1]}", at + 1
        seen.setdefault(part[:MAX_ENTRY], None)
        at += 1
    if len(seen) > MAX_IDS:
        raise BadRequest(f"Paste at most {MAX_IDS} result ids or labels at a time.")
    return tuple(seen)


def id_shaped(entries: tuple[str, ...]) -> list[str]:
    """Return the entries that could be ids of the API (what may be asked of it)."""
    return [entry for entry in entries if ID.fullmatch(entry)]


def is_cursor(value: str) -> bool:
    """Tell whether ``value`` is a page position the API takes: any id it may serve, 1 to
    ``MAX_ID_LENGTH`` characters (NUL, which no stored id holds, is refused)."""
    return 1 <= len(value) <= MAX_ID_LENGTH and "\x00" not in value


def parse(args: MultiDict) -> PageRequest:
    """Validate the table's query string."""
    raw_limit = args.get("limit") or str(DEFAULT_PAGE_SIZE)
    # isdigit() alone admits fullwidth and other scripts' digits, which int() then reads.
    if not (raw_limit.isascii() and raw_limit.isdigit()) \
            or not 1 <= int(raw_limit) <= MAX_PAGE_SIZE:
        raise BadRequest(f"The page size must be a whole number from 1 to {MAX_PAGE_SIZE}.")
    after_id = args.get("after_id") or None
    before_id = args.get("before_id") or None
    for cursor in (after_id, before_id):
        if cursor is not None and not is_cursor(cursor):
            raise BadRequest("That page position is not valid; start from the first page.")
    if after_id and before_id:
        raise BadRequest("Use either the next or the previous page, not both.")
    return PageRequest(int(raw_limit), after_id, before_id, parse_ids(args.get("ids", "")))


@dataclass(frozen=True)
class PageLinks:
    """Query values of the previous and next pages (None when there is none)."""

    prev: dict | None
    next: dict | None


def links(page: dict, request: PageRequest) -> PageLinks:
    """Work out prev/next from the envelope and the direction of the walk.

    Walking forward, ``has_more`` says whether a next page exists and a previous page
    exists whenever we came from one (``after_id``); walking backward it is the mirror.
    """
    first_id, last_id = page.get("first_id"), page.get("last_id")
    has_more = bool(page.get("has_more"))
    base = request.base_args()
    if not first_id or not last_id:
        # An empty page (walked past an end, or nothing matched): the template offers
        # the first page instead.
        return PageLinks(None, None)
    if request.before_id:
        prev = {**base, "before_id": first_id} if has_more else None
        return PageLinks(prev, {**base, "after_id": last_id})
    prev = {**base, "before_id": first_id} if request.after_id else None
    nxt = {**base, "after_id": last_id} if has_more else None
    return PageLinks(prev, nxt)
