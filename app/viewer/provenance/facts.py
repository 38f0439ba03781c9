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
