"""What a pasted list (``ids=``) names: result ids, labels (``#3 WGK2``) and tails (``WGK2``).

The contract is ``../shared/DESIGN.md`` ("Added in round 4"): ``ids=`` takes ids and the
labels every page shows (``labels``), mixed; what matched nothing is named beside the
field. The API takes ids only: a label is turned into its id here, against the run's ids
(``labels.RunLabels``), before anything is asked of the API or the index.

An entry (``core.paging.parse_ids``) is read as:

- a whole id of the run: that result;
- a tail, the end of an id (``WGK2``; also lower case): the one result whose id ends so.
  A label's tail is unique in its run by construction; a shorter end shared by several
  results names none of them, and is said to be ambiguous rather than guessed;
- a label ``#<rank> <tail>``: the tail decides (it never changes). The rank is checked: a
  rank that is no longer the result's (the run ranked more results since) keeps the
  result and says its rank now. A rank alone names nothing (ranks move);
- anything else (other characters) cannot be read, and is named.

Without a ready index only whole ids can be told: every id-shaped entry is passed to the
API as an id, and what it does not find is named (``missing``), labels with the advice
that they are read once the run is indexed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.viewer.core.paging import ID
from app.viewer.explore.labels import RunLabels

_LABEL = re.compile(r"#(\d{1,9}) (\S+)")
_RANK_ALONE = re.compile(r"#\d{1,9}")
UNREADABLE = ("is neither an id nor a label (ids hold letters, digits, '_' and '-'; "
              "labels look like #3 WGK2)")
NOTHING = "matches no result of this run"


@dataclass(frozen=True)
class Note:
    """What to say beside the field about one entry."""

    entry: str
    says: str
    kept: bool = False  # the entry still names a result (a rank that moved)


@dataclass(frozen=True)
class Pasted:
    """A pasted list read against the run: the results it names, and what to say."""

    entries: tuple[str, ...] = ()  # as pasted (``parse_ids``)
    ids: tuple[str, ...] = ()  # the results named, in the order pasted, each once
    notes: tuple[Note, ...] = ()

    @property
    def query_ids(self) -> tuple[str, ...]:
        """The view's ``ids``: the results named, then the entries that name none (they
        match no row, so a list that names nothing shows nothing rather than all)."""
        named_nothing = tuple(n.entry for n in self.notes if not n.kept)
        return self.ids + named_nothing if self.entries else ()

    @property
    def unreadable(self) -> tuple[str, ...]:
        """The entries that are neither an id nor a label (an export refuses them)."""
        return tuple(n.entry for n in self.notes if n.says == UNREADABLE)

    def missing(self, found: set[str]) -> Pasted:
        """Return this list with the ids the API did not find named too (no index)."""
        gone = [i for i in self.ids if i not in found]
        return Pasted(self.entries, tuple(i for i in self.ids if i in found),
                      self.notes + tuple(Note(i, NOTHING) for i in gone))


NOTHING_PASTED = Pasted()


def _tail(entry: str, labels: RunLabels) -> tuple[str | None, str | None]:
    """Return (the id ending with ``entry``, None) or (None, why there is none)."""
    for tail in dict.fromkeys((entry, entry.upper())):
        found = labels.ending_with(tail)
        if len(found) == 1:
            return found[0], None
        if len(found) > 1:
            count = labels.count_ending_with(tail)
            return None, (f"is the end of {count:,} results' ids: paste the label as shown "
                          "(#3 WGK2) or the whole id")
    return None, NOTHING


def _one(entry: str, labels: RunLabels) -> tuple[str | None, Note | None]:
    """Return the id ``entry`` names (or None) and the note to show about it (or None)."""
    label = _LABEL.fullmatch(entry)
    if _RANK_ALONE.fullmatch(entry):
        return None, Note(entry, "is a rank alone, which moves as a run grows: paste the "
                                 "label as shown (#3 WGK2) or the id")
    name = label.group(2) if label else entry
    if not ID.fullmatch(name):
        return None, Note(entry, UNREADABLE)
    if not len(labels.sorted_ids):  # no index yet: an id for the API to find
        if label:
            return None, Note(entry, "is a label, read once this run's results are indexed: "
                                     "paste the id meanwhile")
        return name, None
    if labels.rank(name) is not None:
        result_id: str | None = name
    else:
        result_id, why = _tail(name, labels)
        if result_id is None:
            return None, Note(entry, why or NOTHING)
    if label:
        rank = labels.rank(result_id)
        if rank is not None and rank != int(label.group(1)):
            return result_id, Note(entry, f"is {labels.label(result_id)} now (the run's "
                                          "ranking moved); shown", kept=True)
    return result_id, None


def resolve(entries: tuple[str, ...], labels: RunLabels) -> Pasted:
    """Read ``entries`` against the run's ``labels`` (module docstring)."""
    ids: dict[str, None] = {}
    notes: list[Note] = []
    for entry in entries:
        result_id, note = _one(entry, labels)
        if result_id is not None:
            ids.setdefault(result_id, None)
        if note is not None:
            notes.append(note)
    return Pasted(tuple(entries), tuple(ids), tuple(notes))
