"""The results table page: a pipeline's results as a ranked, filtered table (``views``,
``page``, ``table``), read from the exploration engine (``app.viewer.explore``) or, for a
plain view, from the API's own pages."""
