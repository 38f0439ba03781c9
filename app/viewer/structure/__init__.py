"""The 3D pages: a structure in Mol* with confidence, chains, interface and PAE, and two
results superposed.

``views`` (the routes) reads through ``loading`` and renders with ``rendering``; the pure
parts are ``model`` (a structure file read), ``roles`` (which chain is what), ``scene``
(MolViewSpec scenes and the legend), ``pae`` (the heatmap and its JSON shape),
``superpose`` (Kabsch) and ``compare`` (the compared sides and the fit).
"""
