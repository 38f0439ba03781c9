"""A corpus of ways a share id (or an API key) can be written into a URL, and a checker.

``encodings`` spells one secret many ways (percent-encoded once, twice, deeper; mixed-case
hex; ``sl%5F``; one character encoded in the middle; beyond any sane depth).
``request_targets`` puts those spellings where a request can carry them: viewer and API
paths, sign-in ``next=``, other query parameters. ``offending_lines`` is the judge and is
deliberately independent of ``app.platform.logging_setup``: it decodes each log line with the
standard library at every depth (``+`` as space too) and looks for any 12 characters of
the secret, so a partly redacted id counts as a leak.
"""

from __future__ import annotations

from urllib.parse import unquote, unquote_plus


def pct(text: str, lower: bool = False) -> str:
    """Percent-encode every character of ``text`` (ASCII), even the unreserved ones."""
    template = "%{:02x}" if lower else "%{:02X}"
    return "".join(template.format(ord(char)) for char in text)


def _deep(char: str, depth: int) -> str:
    """Encode one character ``depth`` times: ``s`` at depth 3 is ``%252573``."""
    return "%" + "25" * (depth - 1) + f"{ord(char):02X}"


def encodings(secret: str) -> dict[str, str]:
    """Return many spellings of ``secret`` (a share id ``sl_…`` or an API key ``bz_…``)."""
    prefix, body = secret[:3], secret[3:]
    mixed = "".join(pct(c, lower=i % 3 == 0) if i % 2 else c for i, c in enumerate(secret))
    return {
        "plain": secret,
        "every_char": pct(secret),
        "every_char_lower": pct(secret, lower=True),
        "double": pct(pct(secret)),
        "double_lower": pct(pct(secret), lower=True),
        "triple": pct(pct(pct(secret))),
        "prefix_encoded": prefix[:2] + "%5F" + body,
        "prefix_encoded_lower": prefix[:2] + "%5f" + body,
        "first_char": _deep(secret[0], 1) + secret[1:],
        "split_once": secret[:12] + pct(secret[12]) + secret[13:],
        "split_double": secret[:9] + _deep(secret[9], 2) + secret[10:],
        "alternate_mixed_case": mixed,
        "deep_6": _deep(secret[0], 6) + secret[1:],
        "deep_40": _deep(secret[0], 40) + secret[1:],
        "every_char_deep_4": "".join(_deep(c, 4) for c in secret),
        "hex_trap": "%6" + secret,  # `%6` + `b…`/`s…`: decodes into a different letter
        "after_quote": "%22" + secret,
        "after_space": "%20" + secret,
        "after_plus": "+" + secret,
        "after_nul": "%00" + secret,
        "after_newline": "%0D%0A" + secret,
    }


def request_targets(share_id: str, api_key: str) -> list[tuple[str, str]]:
    """Return ``(name, target)`` pairs: every spelling of the id in every position.

    Positions on the viewer and on the API, in paths and queries, including the sign-in
    page's ``next=`` the way httpx writes it (``%2Fshare%2F<id>%2Fpipelines``).
    """
    targets = []
    positions = {
        "viewer_path": "/share/{v}",
        "viewer_subpath": "/share/{v}/pipelines",
        "viewer_after_encoded_space": "/share/{id}/pipelines/%20{v}",
        "viewer_later_segment": "/share/{id}/pipelines/{v}",
        "viewer_encoded_slashes": "/share%2F{v}%2Fpipelines",
        "signin_next": "/share/{id}/sign-in?next=%2Fshare%2F{v}%2Fpipelines",
        "signin_next_double": "/share/{id}/sign-in?next=%252Fshare%252F{v}",
        "signin_next_raw": "/share/{id}/sign-in?next=/share/{v}/pipelines%3Fembed%3D1",
        "viewer_ref": "/share/{id}?ref=%22{v}",
        "viewer_plus_query": "/share/{id}?q=foo+{v}+bar",
        "viewer_ref_double": "/share/{id}?a=1&ref=%2522{v}&b=2",
        "api_path": "/compute/v1/share/{v}",
        "api_query": "/compute/v1/share/{id}?next=%2Fshare%2F{v}",
        "api_links": "/compute/v1/share-links/{v}",
        "api_encoded_slash": "/compute/v1/share%2F{v}",
        "api_key_query": "/compute/v1/share-links?api_key={k}",
    }
    id_forms = encodings(share_id)
    key_forms = encodings(api_key)
    for position, template in positions.items():
        for form, value in id_forms.items():
            key = key_forms[form]
            target = template.format(v=value, id=share_id, k=key)
            targets.append((f"{position}/{form}", target))
    return targets


def _levels(line: str):
    """Yield ``line`` and each deeper percent-decoding of it, plain and with ``+`` as space."""
    for decode in (unquote, unquote_plus):
        text = line
        yield text
        # Each round removes two characters per escape, so this always ends.
        while True:
            decoded = decode(text, encoding="latin-1")
            if decoded == text:
                break
            text = decoded
            yield text


def fragments(secret: str, size: int = 12) -> set[str]:
    """Return every ``size``-character piece of ``secret`` past its prefix."""
    body = secret[len("bz_live_"):] if secret.startswith("bz_") else secret[len("sl_"):]
    return {body[i:i + size] for i in range(len(body) - size + 1)}


def offending_lines(text: str, secrets: list[str]) -> list[str]:
    """Return the lines of ``text`` that hold any piece of a secret at any decoding depth."""
    pieces = set().union(*(fragments(secret) for secret in secrets))
    return [line for line in text.splitlines()
            if any(piece in level for level in _levels(line) for piece in pieces)]
