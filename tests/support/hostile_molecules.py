"""A corpus of hostile molecules, and a timer of every chemistry step over it.

Run as a module (``python -m tests.support.hostile_molecules``) it prints one JSON
object: which molecules could not be drawn and, for each step (layout and drawing at both
sizes, properties, a substructure match, the SDF export's 2D molecule), the slowest
molecule and its seconds. The test runs it in a child
process with a timeout, so a step that stalls fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import time

C60 = ("C12=C3C4=C5C6=C1C7=C8C9=C1C%10=C%11C(=C29)C3=C2C3=C4C4=C5C5=C9C6=C7C6=C7C8=C1C1=C8"
       "C%10=C%10C%11=C2C2=C3C3=C4C4=C5C5=C%11C%12=C(C6=C95)C7=C1C1=C%12C5=C%11C4=C3C3=C5"
       "C(=C81)C%10=C23")
CORPUS = {
    # Plain rings: CoordGen's time doubles with each atom past ~30 (minutes at 49).
    # Names give the ring's atoms; the SMILES is "C1" + 38 x "C" + "1" (41 characters).
    "ring 31": "C1" + "C" * 30 + "1",
    "ring 40 (the issue's SMILES)": "C1" + "C" * 38 + "1",
    "ring 49": "C1" + "C" * 48 + "1",
    "ring 120": "C1" + "C" * 119 + "1",
    "aromatic ring 30": "c1" + "c" * 29 + "1",
    "two linked macrocycles": "C1" + "C" * 35 + "1C2" + "C" * 35 + "2",
    "cyclophane": "c1cc2ccc1" + "C" * 20 + "c1ccc(cc1)" + "C" * 20 + "2",
    "cyclic peptide 33": "O=C1" + "NCC(=O)" * 10 + "NC1",
    "fullerene C60": C60,
    "polyacene 20 rings": "c1ccc2cc3cc4cc5cc6cc7cc8cc9cc%10cc%11cc%12cc%13cc%14cc%15cc%16"
                          "cc%17cc%18cc%19cc%20ccccc%20cc%19cc%18cc%17cc%16cc%15cc%14"
                          "cc%13cc%12cc%11cc%10cc9cc8cc7cc6cc5cc4cc3cc2c1",
    "spiro chain": "C1CC2(C1)CC3(C2)CC4(C3)CC5(C4)CC6(C5)CC7(C6)CC8(C7)CC9(C8)"
                   "CC%10(C9)CCC%10",
    "chain 1000": "C" * 1000,
    "branched 840 atoms": "C(C)(C)" * 280,
    "huge SMILES": "CC(=O)O" * 600,
    "unparsable": "C1CC(",
    "valence error": "C(C)(C)(C)(C)C",
}
STEPS = ("layout", "draw row", "draw large", "properties", "substructure", "sdf 2D")


def _steps(smiles: str):
    from app.viewer.chem import depict, properties, substructure
    from app.viewer.exports import sdf_writer

    query = substructure.parse_query("C1CCCCC1")
    yield "layout", lambda: depict.depiction_mol(smiles)
    yield "draw row", lambda: depict.svg(smiles, "CC", "row")
    yield "draw large", lambda: depict.svg(smiles, None, "large")
    yield "properties", lambda: properties.compute(smiles)
    yield "substructure", lambda: substructure.match_each([smiles], query)
    yield "sdf 2D", lambda: sdf_writer.molecule({"smiles": smiles}, lambda _record: None)


def measure() -> dict:
    """Return ``worst`` ({step: [seconds, molecule name]} of each step's slowest molecule)
    and ``undrawn`` (the molecules whose drawing came out None)."""
    from app.viewer.chem import depict

    depict.svg("CCO")  # starts the drawing child (its forkserver imports RDKit once)
    worst = {step: [0.0, ""] for step in STEPS}
    undrawn = []
    for name, smiles in CORPUS.items():
        for step, run in _steps(smiles):
            started = time.perf_counter()
            answer = run()
            elapsed = time.perf_counter() - started
            if elapsed > worst[step][0]:
                worst[step] = [elapsed, name]
            if step == "draw large" and answer is None:
                undrawn.append(name)
    return {"worst": worst, "undrawn": undrawn}


if __name__ == "__main__":
    print(json.dumps(measure()))
