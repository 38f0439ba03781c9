"""A pipeline's results: the table page and whole-set exploration (sort, filter, search,
facets, plots) answered from the viewer's own index of the pipeline's results.
"""
