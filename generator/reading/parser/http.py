"""What the parser reads of HTTP itself: media types and the tokens that name headers and cookies."""

from __future__ import annotations

import re

HTTP_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP token (RFC 9110): what a header's or a cookie's name is made of."""

HEADER_TEXT = re.compile(r"[\t\x20-\x7e]*")
"""What an HTTP header's value may hold as this package sends it: visible ASCII, spaces and tabs
(no line break or other control character, nothing beyond ASCII)."""

FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"


def media_essence(media_type: str) -> str:
    """A media type without its parameters, in lower case: ``application/json; charset=utf-8``
    is ``application/json``."""
    return media_type.split(";")[0].strip().lower()


def is_json(media_type: str) -> bool:
    """``application/json``, or a JSON-based type such as ``application/problem+json``."""
    essence = media_essence(media_type)
    return essence == "application/json" or essence.endswith("+json")
