"""The results table's query string: page size, keyset cursors and the id filter.

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
    """Split pasted ids on commas, spaces or new lines; keep order, drop repeats."""
    seen: dict[str, None] = {}
    for part in _SEPARATORS.split(text or ""):
        if not part:
            continue
        if not ID.fullmatch(part):
            # Name the culprit: most often an id copied in its shortened on-screen form.
            raise BadRequest(f"'{part[:70]}' is not a whole result id: ids hold only "
                               "letters, digits, '_' and '-'. Copy ids with the table's "
                               "Copy buttons.")
        seen.setdefault(part, None)
    if len(seen) > MAX_IDS:
        raise BadRequest(f"Paste at most {MAX_IDS} result ids at a time.")
    return tuple(seen)


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
