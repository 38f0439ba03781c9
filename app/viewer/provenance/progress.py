"""A run's progress in words: its phase, counters, failures and rejections.

``progress_facts(input, progress, status)`` reads the SDK ``progress`` of a pipeline run
record ("Generated 260 of 300 requested"); ``COUNTERS`` and ``REQUESTED`` say which
counters and requested numbers exist (``design`` leaves the number requested to the
progress line). The phase is where a run is: a running run's "Phase", the phase a stopped
or failed run ended in; a run that succeeded is past every phase, so none is said.
"""

from __future__ import annotations

from app.viewer.provenance.facts import Fact, count_phrase
from app.viewer.provenance.values import as_dict, count, text

PHASES = {
    "preparing_library": "Preparing the library",
    "building_graph": "Building the similarity graph",
    "scoring": "Scoring",
}
# Progress counters: (done key, total key, verb, what the total is).
COUNTERS = (
    ("num_proteins_generated", "total_proteins_to_generate", "Generated", "requested"),
    ("num_molecules_generated", "total_molecules_to_generate", "Generated", "requested"),
    ("num_proteins_screened", "total_proteins_to_screen", "Screened", "in the library"),
    ("num_molecules_screened", "total_molecules_to_screen", "Screened", "in the library"),
    ("num_molecules_scored", "total_molecules_to_score", "Scored", "budgeted"),
)
REQUESTED = ("num_proteins", "num_molecules", "budget")
# How the phase is labelled by the run's status; a status not here says no phase.
PHASE_LABELS = {"pending": "Phase", "running": "Phase", "stopped": "Stopped during",
                "failed": "Failed during", "": "Phase"}


def progress_facts(data: dict, progress: dict,
                   status: str = "") -> tuple[list[Fact], str]:
    """Return the progress lines and the headline ("Generated 260 of 300 requested").

    ``status`` is the run's: it labels the phase (``PHASE_LABELS``), and a run that
    succeeded (or of a status the SDK does not list) says none.
    """
    facts: list[Fact] = []
    headline = ""
    phase = text(progress.get("phase"))
    label = PHASE_LABELS.get(status)
    if phase and label:
        facts.append(Fact(label, PHASES.get(phase, phase.replace("_", " ").capitalize())))
    for done_key, total_key, verb, of_what in COUNTERS:
        done = count(progress.get(done_key))
        if done is None:
            continue
        total = count(progress.get(total_key))
        if total is None:
            total = next((count(data.get(k)) for k in REQUESTED
                          if count(data.get(k)) is not None), None)
        phrase = (f"{count_phrase(done)} of {count_phrase(total)} {of_what}"
                  if total is not None else count_phrase(done))
        facts.append(Fact(verb, phrase))
        headline = headline or f"{verb} {phrase}"
    for key in ("num_proteins_failed", "num_molecules_failed"):
        failed = count(progress.get(key))
        if failed is not None:
            facts.append(Fact("Failed", count_phrase(failed)))
    rejected = as_dict(progress.get("rejection_summary"))
    for key, label in (("filtered_count", "Filtered out"), ("invalid_count", "Invalid"),
                       ("duplicate_count", "Duplicates")):
        number = count(rejected.get(key))
        if number:
            facts.append(Fact(label, count_phrase(number)))
    return facts, headline
