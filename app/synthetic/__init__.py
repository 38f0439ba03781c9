"""Building blocks of the demo data that ``app.demo.seed.seed_demo`` writes.

``proteins`` and ``chemistry`` hold sequences, SMILES and CCD codes; ``geometry``,
``bundles`` and ``complexes`` build sound 3D models; ``structures`` writes mmCIF and SDF;
``metrics`` draws correlated metrics and warnings; ``protein_pipelines``,
``molecule_pipelines`` and ``predictions`` assemble the records; ``usage`` makes the
usage history; ``archives`` zips results. ``conformers_*`` are generated data
(``build_conformers``).
"""
