"""The chemistry part of an index build: each distinct molecule once, saved with the frame.

``MoleculeWork`` goes with one build (``indexer.Build``). Each API page hands it the
page's SMILES; the ones it has not seen are sent to the budgeted child
(``chem.index_chemistry``: alerts, scaffold, fingerprints, record) in a thread of its own,
so the chemistry of page N overlaps the fetch and the insert of page N+1 (and page N+2's waits
for it: a set of many distinct molecules is built at the chemistry's pace, with its
lease renewed page after page). When the last page is
in, ``save_frame`` builds the frame from the store, gives it every molecule's answers
(``frame_chemistry``) and saves it before the index is marked ready: no visitor request
computes them, and a restarted worker or another node reads them with the frame.

Molecules a page did not reach (its ``PAGE_SECONDS`` ran out, or a build that stopped
midway and was resumed by another worker) are taken from the previous saved frame when it
has them, else computed by ``save_frame``; a previous frame saved without the
substructure screen (or by another RDKit) gives its answers but the screen's pattern
fingerprints and records are computed for it (``index_chemistry.screen_now``). A molecule
that overruns its own budget (``index_chemistry.ITEM_SECONDS``) is unknown: no alerts
answer, no scaffold, no fingerprint.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor

from app.viewer.chem import alerts, index_chemistry
from app.viewer.chem.index_chemistry import MoleculeAnswer
from app.viewer.explore.index import frame, frame_chemistry
from app.viewer.explore.index.frame import Frame
from app.viewer.runtime import budget
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries

# A page's share of the build's lease (30 s), leaving time to fetch and insert the page.
PAGE_SECONDS = 20.0
# The molecules left for the end: at most this long (then unknown).
FINISH_SECONDS = 1800.0


class MoleculeWork:
    """The chemistry of one build's distinct molecules (module doc)."""

    def __init__(self) -> None:
        self.answers: dict[str, MoleculeAnswer] = {}
        self._asked: set[str] = set()
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[Future] = []

    def add_page(self, smiles: Iterable[str | None]) -> None:
        """Start the chemistry of the page's molecules not seen yet (in the background)."""
        new = [s for s in dict.fromkeys(s for s in smiles if s) if s not in self._asked]
        if not new:
            return
        self._asked.update(new)
        # The previous page's chemistry first: at most one page in flight, so the build
        # goes at the pace of its chemistry and renews its lease with every page, instead
        # of leaving minutes of molecules to the end (past the lease).
        self.wait()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="index-chemistry")
        self._pending.append(self._pool.submit(self._compute, new, PAGE_SECONDS))

    def _compute(self, smiles: list[str], seconds: float) -> None:
        found = index_chemistry.compute(smiles, seconds)
        # The overruns at the end may be molecules the page's time did not reach: left to
        # save_frame. One that overran before an answered one overran its own budget:
        # unknown, never tried again (a hostile molecule costs the build 2 s, once).
        reached = max((i + 1 for i, a in enumerate(found) if a is not budget.OVERRUN),
                      default=0)
        for text, answer in zip(smiles[:reached], found[:reached], strict=True):
            self.answers[text] = index_chemistry.UNREADABLE if answer is budget.OVERRUN \
                else answer

    def wait(self) -> None:
        """Wait for the pages' chemistry (a failure there leaves molecules to the end)."""
        for pending in self._pending:
            with contextlib.suppress(Exception):  # the finish computes what is missing
                pending.result()
        self._pending.clear()

    def close(self) -> None:
        """Stop the thread (after ``wait``, or when the build stops)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def complete(self, data: Frame, previous: Frame | None) -> None:
        """Give ``data`` every molecule's chemistry: this build's answers, the previous
        frame's, and the rest computed now (``FINISH_SECONDS``; overruns are unknown)."""
        self.wait()
        molecules = data.molecules
        if molecules is None or not molecules.smiles:
            return  # no small molecules (a protein kind): nothing to carry
        known = dict(self.answers)
        before = previous.molecules if previous is not None else None
        if before is not None and before.chemistry is not None:
            for text, answer in frame_chemistry.answers_of(before.smiles,
                                                           before.chemistry).items():
                known.setdefault(text, answer)
        started = time.monotonic()
        missing = [s for s in molecules.smiles if s not in known]
        for text, answer in zip(missing, index_chemistry.compute(missing, FINISH_SECONDS),
                                strict=True):
            known[text] = index_chemistry.UNREADABLE if answer is budget.OVERRUN else answer
        # Readable molecules carried from a frame without the screen: only the screen.
        unscreened = [s for s in molecules.smiles if known[s][0] is not None
                      and not known[s][3]]
        left = max(FINISH_SECONDS - (time.monotonic() - started), 1.0)
        for text, pair in zip(unscreened, index_chemistry.compute(unscreened, left, "screen"),
                              strict=True):
            if pair is not budget.OVERRUN:  # overrun: no screen (always a candidate)
                known[text] = (*known[text][:3], *pair)
        molecules.chemistry = frame_chemistry.assemble(molecules.smiles, known)


def save_frame(pipeline_id: str, version: int, work: MoleculeWork,
               built: Frame | None = None) -> Frame:
    """Build the frame of ``version`` from the store (or take the one ``built`` from the
    same rows as they were appended) with its chemistry, save and return it; a saved
    frame of that version that has its chemistry already is kept as is."""
    engine = get_engine()
    with engine.connect() as conn:
        saved = queries.saved_frame(conn, pipeline_id)
    previous = frame.from_bytes(saved[1]) if saved is not None else None
    if previous is not None and saved[0] == version and has_chemistry(previous):
        work.wait()
        return previous
    if built is None:
        with engine.connect() as conn:
            built = frame.build(queries.column_chunks(conn, pipeline_id))
    work.complete(built, previous)
    with engine.begin() as conn:
        queries.save_frame(conn, pipeline_id, version, frame.to_bytes(built))
    return built


def has_chemistry(data: Frame) -> bool:
    """Whether ``data``'s molecules carry the build's chemistry (or it has none to carry)."""
    molecules = data.molecules
    return molecules is None or not molecules.smiles or molecules.chemistry is not None


def remember(data: Frame) -> None:
    """Hand the frame's alert answers to ``chem.alerts``' per-process cache, so the table's
    badges, exports and result pages of indexed molecules ask the child nothing."""
    molecules = data.molecules
    if molecules is None or molecules.chemistry is None:
        return
    chemistry = molecules.chemistry
    alerts.remember({text: chemistry.names_of(i) for i, text in enumerate(molecules.smiles)},
                    dict(zip(chemistry.alert_names, chemistry.alert_smarts, strict=True)))
