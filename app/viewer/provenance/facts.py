"""The shapes a provenance is told in: labelled facts and the ``Provenance`` itself.

``runs`` builds a ``Provenance`` from a run or prediction record; ``design``, ``library``
and ``progress`` give its ``Fact`` lines; ``count_phrase`` says a count as the pages do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.viewer.core.formatting import format_number
from app.viewer.provenance.entities import EntityView


@dataclass(frozen=True)
class Fact:
    """One labelled line of provenance ("Binder modality": "Nanobody")."""

    label: str
    value: str


@dataclass(frozen=True)
class Provenance:
    """A run's provenance as the pages show it; every part may be empty.

    ``headline`` is the one-line progress ("Generated 260 of 300 requested"); times are the
    API's ISO strings (the templates format them); ``duration`` is said in words.
    """

    targets: tuple[EntityView, ...] = ()
    binders: tuple[EntityView, ...] = ()
    design: tuple[Fact, ...] = ()
    library: tuple[Fact, ...] = ()
    progress: tuple[Fact, ...] = ()
    headline: str = ""
    engine: str = ""
    status: str = ""
    created_at: str = ""
    started_at: str = ""
    completed_at: str = ""
    stopped_at: str = ""
    duration: str = ""
    error: str = ""
    error_code: str = ""
    extra: tuple[Fact, ...] = field(default_factory=tuple)
    # The target's reference ligands (SMILES) of a small-molecule run: pages draw them.
    reference_ligands: tuple[str, ...] = ()

    @property
    def end_note(self) -> str:
        """Say why a run that did not succeed ended, as far as the record says.

        A stopped or failed run with an error shows that (``error``); without one, this
        says that the record gives no reason, and that it does not say who stopped it
        (the SDK's run records have no such field). "" for any other run.
        """
        if self.error or self.error_code or self.status not in ("stopped", "failed"):
            return ""
        if self.status == "stopped":
            return ("Stopped before it finished. The record gives no reason and does not "
                    "say who stopped it.")
        return "Failed. The record gives no error message."

    @property
    def entities(self) -> tuple[EntityView, ...]:
        """Return targets then binders."""
        return self.targets + self.binders

    @property
    def progress_besides_headline(self) -> tuple[Fact, ...]:
        """Return the progress lines the headline does not say (phase, failed...), but
        not the zero counts (no failures): a card keeps what is worth reading."""
        return tuple(f for f in self.progress
                     if not self.headline.startswith(f"{f.label} ") and f.value != "0")

    @property
    def has_input(self) -> bool:
        """Return whether anything of the input is known."""
        return bool(self.targets or self.binders or self.design or self.library)


def count_phrase(value: int) -> str:
    """Return a count as people read it ("12,000")."""
    return format_number(value, 0)
