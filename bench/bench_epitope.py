"""Time the epitope reading of one design (parse, contacts, exposure) over demo structures.

Prints milliseconds per design for each step and in all (``contacts.read``), over the
demo's IL-6 design structures (backbone models of ~200 + 60-120 residues), and the hours
a 100,000-design scan would take on one core at that pace.

    .venv/bin/python bench/bench_epitope.py [--designs 60]
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime

from app.synthetic import protein_pipelines
from app.viewer.epitope import contacts, exposure


def main() -> None:
    """Build demo structures, then time each step per design."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--designs", type=int, default=60)
    count = parser.parse_args().designs
    draft = protein_pipelines.protein_design("bench", datetime(2026, 1, 1),
                                             datetime(2026, 1, 2), count=count)
    files = [r.structure_cif.encode() for r in draft.results]
    started = time.perf_counter()
    models = [contacts._structure(data, "mmcif") for data in files]
    parse = (time.perf_counter() - started) / count
    started = time.perf_counter()
    for model in models:
        contacts.contacts_of(model, {"A"}, {"B"})
    contact = (time.perf_counter() - started) / count
    started = time.perf_counter()
    for model in models:
        exposure.exposed(model["A"])
    exposed = (time.perf_counter() - started) / count
    started = time.perf_counter()
    for data in files:
        contacts.read(data, "mmcif", {"A"}, {"B"})
    whole = (time.perf_counter() - started) / count
    print(f"designs: {count}, file size ~{sum(map(len, files)) // count // 1024} KiB")
    print(f"parse (gemmi):          {parse * 1000:7.1f} ms/design")
    print(f"contacts (numpy):       {contact * 1000:7.1f} ms/design")
    print(f"exposure (M/W SASA):    {exposed * 1000:7.1f} ms/design")
    print(f"contacts.read in all:   {whole * 1000:7.1f} ms/design")
    print(f"100,000 designs, 1 core: {whole * 100_000 / 3600:5.2f} h (plus fetching)")


if __name__ == "__main__":
    main()
