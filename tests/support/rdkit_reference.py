"""RDKit's own answers, built in the tests independently of the app's chemistry modules.

Tests compare what the viewer shows with these: the structural-alert catalog the issue
names (PAINS A, B, C and Brenk, RDKit's ``FilterCatalog``), made here from RDKit's
parameters rather than taken from ``app.viewer.chem.alerts``.
"""

from __future__ import annotations

from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams


def alert_catalog() -> FilterCatalog:
    """Return RDKit's PAINS A/B/C + Brenk filter catalog."""
    params = FilterCatalogParams()
    for catalog in (FilterCatalogParams.FilterCatalogs.PAINS_A,
                    FilterCatalogParams.FilterCatalogs.PAINS_B,
                    FilterCatalogParams.FilterCatalogs.PAINS_C,
                    FilterCatalogParams.FilterCatalogs.BRENK):
        params.AddCatalog(catalog)
    return FilterCatalog(params)
