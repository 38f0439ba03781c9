"""The precision of the numbers an export computes itself.

Numbers the API returned (metrics, ADME values) are written as they came: they are the
run's data, and a spreadsheet rounds them as it likes. The numbers the viewer computes
from a SMILES with RDKit (``chem.properties``) are float arithmetic (an average molecular
weight of ``180.15899999999996``): ``chem.properties`` rounds them to their stated
precision (``DECIMALS``, each property's ``precision``), a precision beyond what the
descriptors mean, the one number every page shows and every export writes; every export
says so (``STATEMENT``: the JSON's head, the ZIP's README.txt, the SDF's ``precision``
property, docs/viewer.md).
"""

from __future__ import annotations

from app.viewer.chem.properties import PROPERTIES

# Decimals per computed property (the table shows fewer): 0.01 g/mol, 0.01 log units,
# 0.01 A^2, QED to 0.001; the counts are whole numbers.
DECIMALS = {key: prop.precision for key, prop in PROPERTIES.items()}

STATEMENT = ("Metrics and ADME values are as the compute API returned them. Properties "
             "computed by the viewer from the SMILES with RDKit are rounded: "
             + ", ".join(f"{key} to {n} decimal{'s' if n != 1 else ''}"
                         for key, n in DECIMALS.items() if not PROPERTIES[key].integer)
             + "; counts are whole numbers.")
