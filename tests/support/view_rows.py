"""The result ids a results view lists, read page after page from its HTML (test helper)."""

from __future__ import annotations

import re

ROW_ID = re.compile(r'<tr data-result-id="([^"]+)"')


def view_ids(client, path: str, query: str) -> list[str]:
    """Return every result id of the view ``path?query``, in order, following its pages."""
    ids, page = [], 1
    while True:
        body = client.get(f"{path}?{query}&limit=250&page={page}").get_data(as_text=True)
        ids += ROW_ID.findall(body)
        if 'rel="next"' not in body:
            return ids
        page += 1
