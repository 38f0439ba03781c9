"""A JSON export's record lines spliced from the index's stored JSON text, not re-serialised.

The JSON export writes each record as ``to_json`` writes a dict: ``rank`` and ``label``
first, the record's own keys, its ``artifacts`` as the viewer's download URLs (in the
record's place for them), then the view's own numbers (``similarity``, ``family_size``).
The index stores each record as ``to_json`` wrote it with its artifacts' roles last
(``index_rows.stored_record``: ``...,"artifacts":{"structure":{},"archive":{}}}``), and
parsing that text and writing it again gives the same text back. So a line is the stored
text with ``{"rank":N,"label":"…",`` in front of its first key and its artifacts object
swapped for the viewer's: no parse, no serialisation of the record, the same bytes.

A text that does not end that way (no ``artifacts`` key, or not last), or that has keys
named ``rank`` or ``label`` or as the view's numbers (the view's must win), is written the
long way: parsed and serialised (``long_way``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pydantic_core import from_json, to_json

from app.viewer.core.paging import ID

_ARTIFACTS = '"artifacts":{'
# The stored tail: the artifacts object holding only roles with empty objects, closing
# the record. Keys are JSON strings (any escape), so a role can be any text.
_TAIL = re.compile(r'"artifacts":(\{(?:"(?:[^"\\]|\\.)*":\{\}(?:,"(?:[^"\\]|\\.)*":\{\})*)?\})\}')
_UNSEEN = object()
# A stand-in result id for the URL template of a set of roles (an id of the API's alphabet).
_MARK = "RESULTIDMARKXQZ"


def long_way(record: dict, artifact_links: Callable[[dict], dict]) -> str:
    """Return a parsed record's line as ``text_writers.json_chunks`` writes it."""
    if "artifacts" in record:
        record = {**record, "artifacts": artifact_links(record)}
    return to_json(record).decode()


class Splicer:
    """Write the lines of one export's pages (``lines``), with a URL template per set of
    roles (the viewer's links of a result differ only by its id)."""

    def __init__(self, artifact_links: Callable[[dict], dict]):
        self.links = artifact_links
        self._templates: dict[str, tuple[dict, list[str] | None]] = {}
        # A stored tail (from ``"artifacts":`` to the end) -> its roles' text, or None when
        # it is not the stored form: the tails of a pipeline's records are a handful.
        self._tails: dict[str, str | None] = {}

    def _artifacts(self, roles_text: str, result_id: str) -> str:
        """Return the JSON of the viewer's artifacts object of a result whose stored
        artifacts are ``roles_text``."""
        found = self._templates.get(roles_text)
        if found is None:
            roles = from_json(roles_text)
            links = self.links({"id": _MARK, "artifacts": roles})
            parts = to_json(links).decode().split(_MARK)
            # One id per URL, nothing else naming the stand-in: the id goes in verbatim.
            plain = len(parts) == len(links) + 1 and len(self._templates) < 64
            found = (roles, parts if plain else None)
            if plain:
                self._templates[roles_text] = found
        roles, parts = found
        if parts is None or not ID.fullmatch(result_id):
            return to_json(self.links({"id": result_id, "artifacts": roles})).decode()
        return result_id.join(parts)

    def lines(self, texts: Sequence[str], first_rank: int, labels: Sequence[str],
              ids: Sequence[str], extras: Sequence[tuple[str, Sequence]]
              ) -> list[str | None]:
        """Return the lines of a page's records (``line`` of each: None where it must be
        made the long way), with what ``line`` looks for in every text looked for once in
        the whole page: a key named as the view's that no text holds, and labels that are
        their own JSON (printable ASCII without quote or backslash)."""
        whole = "\n".join(texts)  # a key's quoted name holds no line break: none spans two
        names = ('"rank"', '"label"', *(f'"{key}"' for key, _values in extras))
        if any(name in whole for name in names):  # a record holds one: each text checked
            return [self.line(text, first_rank + at, labels[at], ids[at],
                              [(key, values[at]) for key, values in extras])
                    for at, text in enumerate(texts)]
        quoted = "".join(labels)
        plain = quoted.isascii() and quoted.isprintable() and '"' not in quoted \
            and "\\" not in quoted
        return [self._spliced(text, first_rank + at,
                              f'"{labels[at]}"' if plain else to_json(labels[at]).decode(),
                              ids[at], _after((key, values[at]) for key, values in extras))
                for at, text in enumerate(texts)]

    def line(self, text: str, rank: int, label: str, result_id: str,
             extras: Sequence[tuple[str, object]]) -> str | None:
        """Return the record's line spliced from its stored ``text`` (module doc), or None
        when it must be made the long way."""
        if '"rank"' in text or '"label"' in text \
                or any(f'"{key}"' in text for key, _value in extras):
            return None
        return self._spliced(text, rank, to_json(label).decode(), result_id, _after(extras))

    def _spliced(self, text: str, rank: int, label_json: str, result_id: str,
                 after: str) -> str | None:
        """Return the line of a ``text`` known to hold no key named as the view's, or None
        when it does not end in the stored tail."""
        start = text.rfind(_ARTIFACTS)
        if start < 1 or text[start - 1] not in ",{":
            return None
        roles = self._roles(text[start:])
        if roles is None:
            return None
        return (f'{{"rank":{rank},"label":{label_json},{text[1:start]}'
                f'"artifacts":{self._artifacts(roles, result_id)}{after}}}')

    def _roles(self, tail: str) -> str | None:
        """Return the roles' text of a stored tail (from ``"artifacts":`` to the end), or
        None when it is not the stored form; kept per tail (a pipeline's are a handful)."""
        roles = self._tails.get(tail, _UNSEEN)
        if roles is _UNSEEN:
            found = _TAIL.fullmatch(tail)
            roles = None if found is None else found.group(1)
            if len(self._tails) < 64:
                self._tails[tail] = roles
        return roles


def _after(extras) -> str:
    """Return the view's numbers as the line's last keys (``,"key":value`` each)."""
    return "".join(f',"{key}":{to_json(value).decode()}' for key, value in extras)
