"""2D chemistry of the viewer (RDKit, server-side): depictions, computed properties, substructure.

``depict`` draws a SMILES as SVG (CoordGen 2D coordinates, shared with the SDF export),
``properties`` computes the eight index properties, ``substructure`` reads a ``smarts=``
query and matches it. Nothing here knows about Flask: the route and the page markup are
in ``app.viewer.depictions``.
"""
