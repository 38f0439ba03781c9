"""The library a pipeline run screened or explored: its source, format and size.

``library_facts(input, progress)`` reads the SDK ``input`` (``proteins``, ``molecules``
or ``library``) and ``progress`` (``library_size`` or the totals to screen). A library
file is named by its file name and how it came (uploaded, or fetched from a web address):
never its URL, which is the service's internal address (or a signed one).
"""

from __future__ import annotations

from app.viewer.provenance.facts import Fact, count_phrase
from app.viewer.provenance.values import as_dict, count, file_name, text


def library_facts(data: dict, progress: dict) -> list[Fact]:
    """Return the library screened or explored: its source, format and size."""
    facts: list[Fact] = []
    for key, what in (("proteins", "Protein library"), ("molecules", "Molecule library")):
        source = as_dict(data.get(key))
        if source:
            facts.append(Fact(what, file_name(source.get("url")) or "Uploaded file"))
    library = as_dict(data.get("library"))
    if library:
        source = as_dict(library.get("source"))
        name = file_name(source.get("url"))
        if source.get("type") == "url":
            place = f"{name}, fetched from a web address" if name else "A file from the web"
        else:
            place = name or "Uploaded file"
        facts.append(Fact("Molecule library", place))
        fmt = text(library.get("format"))
        if fmt:
            facts.append(Fact("Library format", fmt.upper()))
        columns = [c for c in (text(library.get("smiles_column")),
                               text(library.get("id_column"))) if c]
        if columns:
            facts.append(Fact("Columns read", ", ".join(columns)))
    size = count(progress.get("library_size"))
    if size is None and (data.get("proteins") or data.get("molecules")):
        size = count(progress.get("total_proteins_to_screen"))
        if size is None:
            size = count(progress.get("total_molecules_to_screen"))
    if size is not None:
        facts.append(Fact("Library size", count_phrase(size)))
    return facts
