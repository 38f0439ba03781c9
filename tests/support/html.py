"""Server HTML parsed into a tree for in-process page tests: BeautifulSoup over lxml's HTML
parser (libxml2, in C), queried with CSS selectors (soupsieve)."""

from __future__ import annotations

from urllib.parse import urlencode

from bs4 import BeautifulSoup, Tag

PARSER = "lxml"


def parse(response_or_text) -> BeautifulSoup:
    """Parse a Flask test response (asserting a 200) or an HTML string."""
    if isinstance(response_or_text, str):
        return BeautifulSoup(response_or_text, PARSER)
    body = response_or_text.get_data(as_text=True)
    assert response_or_text.status_code == 200, (response_or_text.status_code, body[:1000])
    return BeautifulSoup(body, PARSER)


def body(client, path: str, status: int = 200) -> str:
    """GET ``path`` with ``client``, assert ``status`` and return the page's text."""
    response = client.get(path)
    content = response.get_data(as_text=True)
    assert response.status_code == status, (path, response.status_code, content[:1000])
    return content


def page(client, path: str, status: int = 200) -> BeautifulSoup:
    """GET ``path`` with ``client``, assert ``status`` and return the parsed page."""
    return BeautifulSoup(body(client, path, status), PARSER)


def one(soup: BeautifulSoup | Tag, selector: str) -> Tag:
    """The single element ``selector`` matches (fails naming it if none or several do)."""
    found = soup.select(selector)
    assert len(found) == 1, (selector, len(found))
    return found[0]


def text(element: Tag) -> str:
    """The element's text as a reader sees it: whitespace runs collapsed to one space."""
    return " ".join(element.get_text(" ").split())


def texts(soup: BeautifulSoup | Tag, selector: str) -> list[str]:
    """The collapsed text of every element ``selector`` matches, in document order."""
    return [text(element) for element in soup.select(selector)]


def form_query(form: Tag, **values: str) -> str:
    """The query string a browser sends on submitting the GET ``form`` with ``values`` typed.

    Every successful control in document order, as the HTML spec builds the form data set:
    inputs (checkboxes and radios only when checked; no buttons), each select's selected
    option (else its first), textareas; then ``values`` replace (or add) fields by name.
    """
    fields: list[tuple[str, str]] = []
    for control in form.select("input[name], select[name], textarea[name]"):
        if control.has_attr("disabled"):
            continue
        name = control["name"]
        if control.name == "select":
            chosen = control.select_one("option[selected]") or control.select_one("option")
            fields.append((name, "" if chosen is None else chosen.get("value", chosen.text)))
        elif control.name == "textarea":
            fields.append((name, control.text))
        else:
            kind = control.get("type", "text").lower()
            if kind in ("submit", "button", "reset", "image", "file"):
                continue
            if kind in ("checkbox", "radio") and not control.has_attr("checked"):
                continue
            fields.append((name, control.get("value", "on" if kind == "checkbox" else "")))
    typed = dict(values)
    fields = [(name, typed.pop(name) if name in typed else value) for name, value in fields]
    fields += list(typed.items())
    return urlencode(fields)
