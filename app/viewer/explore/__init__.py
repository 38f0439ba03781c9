"""The exploration engine: whole-set questions about a pipeline's results, from its index.

``query`` is the view's contract (sort, filters, the selections' keys, paging, axes),
``fields`` and ``labels`` what the keys and results are called, ``answers`` the view's
rows, order, counts and facets, ``panel`` what a page shows of them, ``chips`` the filters
in force. ``selections/`` holds one module per family of query keys, registered by the
viewer's factory; ``index/`` builds and keeps the index the answers read. No routes: the
pages that show a view (``results``, ``pages``, ``exports``, ``structure_pages``) sit above.
"""
