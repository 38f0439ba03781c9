"""Exports of a results view: CSV, JSON, FASTA, SDF and ZIP, streamed page by page.

``views`` is the route, ``response`` checks a request and streams the file, ``formats``
is the registry of formats, ``sources`` walks the view's records, ``stream`` counts them
and breaks a file off honestly; the writers are ``csv_writer``, ``text_writers`` (JSON,
FASTA), ``sdf_writer`` and ``zip_writer``.
"""
