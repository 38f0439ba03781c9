"""The exploration index of a pipeline: built from the API's pages (``indexer``,
``index_rows``, ``page_child``), held as a columnar frame (``frame``, ``frame_files``, the
chemistry computed at index time: ``chem_index``, ``frame_chemistry``, ``frame_screen``),
judged current or not (``freshness``) and swept when unused (``sweep``).
"""
