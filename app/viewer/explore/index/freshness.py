"""When the exploration index may answer in the API's place: its notion of "current".

The index is a cache of what the API returned through a link; it may stand in for the
API's records only when it holds exactly what the API would give now. That is decided on
every request, after the request has read the link through the API with the visitor's
token (``core.loaders.load_pipeline``: the access check, never skipped or cached), from
the pipeline's run record that very read returned:

- **current** (``is_current``): the index was read to the end (``ready``), no worker is
  appending to it (no live lease), and it was brought up to what the run record says now:
  the same ``progress.latest_result_id``, the same ``status``, and at least the record's
  result count (``run_kinds.freshness``). Result ids are time-ordered and results are
  never edited, so a new result changes the latest id and the count; a pipeline whose
  data retention deleted is a stub (``data_deleted_at``) that ``load_pipeline`` answers
  with its own page before any index is read; a link that no longer grants (archived,
  expired, revoked, not for this address) is the API's 404 first; and ``indexer.ensure``
  drops an index holding more results than the API counts. So a current index never
  holds a result the API would not show, nor lacks one it would.
- **ready but refreshing** (``indexer`` reads the new results in the background): the
  index holds a subset of what the API shows (every result it holds is still the API's,
  for the same reasons). The results page may show it (ranked, as of its last whole
  read); an export, which must hold the whole view, does not read its records from it.

Exports of a current index (``exports.index_source``) and the results page read the
stored records (without artifact URLs, which expire); anything that needs a fresh URL
(SDF ligand files, ZIP structure files) asks the API for its records.
"""

from __future__ import annotations

from app.platform.timeutil import utcnow
from app.viewer.core import run_kinds
from app.viewer.store.result_index import IndexState


def is_current(state: IndexState | None, pipeline: dict) -> bool:
    """Whether the index ``state`` holds exactly what ``pipeline``'s run record (read
    through the link in this request) says the API has now (module docstring)."""
    if state is None or not state.ready or state.building(utcnow()):
        return False
    fresh = run_kinds.freshness(pipeline)  # as ``indexer.ensure`` reads it
    return state.is_current(fresh.count, fresh.status, fresh.latest_result_id)
