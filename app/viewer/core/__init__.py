"""What every viewer feature reads through: the API client and its errors, the visitor's
identity and token, the link loaders, query paging, artifact bytes, formatting.

No blueprint lives here: features import these modules, never each other's views.
"""
