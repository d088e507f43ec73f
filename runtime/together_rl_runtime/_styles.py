"""How a parameter's checked value travels: OpenAPI's ``style`` and ``explode`` for each
location, and the percent-encoding of each.

The rules are those of the "Style Examples" table of OpenAPI 3.0 and 3.1 (for ``color`` =
``"blue"``, ``["blue", "black", "brown"]`` and ``{"R": 100, "G": 200, "B": 150}``), as the
patch releases 3.0.4 and 3.1.1 corrected it (``label`` without explode joins with commas,
``.blue,black,brown``, as RFC 6570 has it):

- in a path, ``simple`` (``blue,black,brown``; an object ``R,100,G,200,B,150``, exploded
  ``R=100,G=200,B=150``), ``label`` (``.blue,black,brown``, exploded ``.blue.black.brown`` and
  ``.R=100.G=200.B=150``) and ``matrix`` (``;color=blue,black,brown``, exploded
  ``;color=blue;color=black;color=brown`` and ``;R=100;G=200;B=150``); each value and key is
  percent-encoded (RFC 3986: all but letters, digits and ``-._~``), the delimiters are not;
- in a query, ``form`` (``color=blue,black,brown``, exploded ``color=blue&color=black&...``
  and ``R=100&G=200&B=150``), ``spaceDelimited`` (``color=blue%20black%20brown``),
  ``pipeDelimited`` (``color=blue%7Cblack%7Cbrown``) and ``deepObject``
  (``color%5BR%5D=100&...``); values are percent-encoded, or with ``allowReserved`` keep RFC
  3986's reserved characters and escapes they already hold (all but ``#&+[]``, which would
  change the query's meaning);
- in a header, ``simple``, the text as it is (a value a header cannot hold is refused);
- in a cookie, ``form``: ``color=blue,black,brown``, exploded ``color=blue; color=black;
  color=brown`` and ``R=100; G=200; B=150`` (the cookie's own delimiter, where a query would
  write ``&``); what a cookie cannot hold (RFC 6265: spaces, ``"``, ``,``, ``;``, ``\\``,
  controls, non-ASCII) is percent-encoded.

An empty value (``""``, ``[]`` or ``{}``) is the table's empty column: ``;color``, ``.``,
``color=``; exploded in a query or cookie, an empty array or object sends nothing. Values inside
an array or object are scalars; only ``deepObject`` nests objects (``color[a][b]=1``). A value no
style can write is a :class:`~._exceptions.ValidationError`, raised before anything is sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from ._exceptions import ValidationError

__all__ = [
    "Encoded",
    "cookie_pairs",
    "header_value",
    "in_cookie",
    "in_header",
    "in_path",
    "in_query",
    "query_text",
    "text",
]

_RESERVED_KEPT = ":/?@!$'()*,;="
"""RFC 3986's reserved characters that ``allowReserved`` sends as they are (``#&+[]`` would
end a value, start another or are not allowed in a query, so they are escaped all the same)."""
_COOKIE_OCTETS = "!#$&'()*+/:<=>?@[]^`{|}"
"""What a cookie's value holds as it is besides letters, digits and ``-._~`` (RFC 6265)."""
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_TEXT = re.compile(r"[\t\x20-\x7e]*")


class Encoded(str):
    """Text that is already percent-encoded as its place in the request needs: the client
    sends it as it is."""

    __slots__ = ()


def text(value: object) -> str:
    """A checked scalar as it travels: strings as they are, booleans as ``true`` and ``false``,
    numbers as JSON writes them."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _flat(checked: object, name: str, style: str) -> str | list[str] | dict[str, str]:
    """A checked value as a scalar's text, an array's texts or an object's (key, text) pairs;
    an array or object inside one is refused, since no style but ``deepObject`` can write it."""
    if isinstance(checked, Mapping):
        pairs = [(str(key), item) for key, item in checked.items()]
        for key, item in pairs:
            _scalar(item, f"{name}.{key}", style)
        return {key: text(item) for key, item in pairs}
    if isinstance(checked, list):
        for index, item in enumerate(checked):
            _scalar(item, f"{name}[{index}]", style)
        return [text(item) for item in checked]
    return text(checked)


def _scalar(item: object, path: str, style: str) -> None:
    if isinstance(item, (Mapping, list)):
        raise ValidationError(
            path,
            f"is {'an object' if isinstance(item, Mapping) else 'an array'} inside the "
            f"parameter, which the style {style!r} cannot write (its values are scalars)",
            item,
        )


def _expand(
    flat: str | list[str] | dict[str, str],
    name: str,
    style: str,
    explode: bool,
    escape: Callable[[str], str],
) -> str:
    """A ``simple``, ``label`` or ``matrix`` value, each part escaped with ``escape``."""
    if isinstance(flat, str):
        items = [escape(flat)]
    elif isinstance(flat, dict):
        pairs = [(escape(k), escape(v)) for k, v in flat.items()]
        if explode:
            items = [f"{k}={v}" for k, v in pairs]
            if style == "matrix" and items:
                return "".join(";" + item for item in items)
        else:
            items = [part for pair in pairs for part in pair]
    else:
        items = [escape(item) for item in flat]
        if explode and items and style == "matrix":
            return "".join(f";{name}={item}" if item else f";{name}" for item in items)
    joined = ("." if explode and style == "label" else ",").join(items)
    if style == "label":
        return "." + joined
    if style == "matrix":
        return f";{name}={joined}" if joined else f";{name}"
    return joined


def in_path(checked: object, name: str, style: str, explode: bool) -> str:
    """A path parameter's segment (``simple``, ``label``, ``matrix`` or ``json``)."""
    if style == "json":
        return quote(_compact(checked), safe="")
    return _expand(_flat(checked, name, style), quote(name, safe=""), style, explode, _path)


def _path(part: str) -> str:
    return quote(part, safe="")


def in_header(checked: object, name: str, style: str, explode: bool) -> str:
    """A header parameter's value (``simple`` or ``json``), the text as it is."""
    if style == "json":
        return _compact(checked)
    return _expand(_flat(checked, name, style), name, style, explode, str)


def header_value(name: str, value: str) -> str:
    """A header parameter's text, refused where a header cannot hold it (a line break, a
    control character, a character beyond ASCII) before anything is sent."""
    if not _HEADER_TEXT.fullmatch(value):
        raise ValidationError(
            name,
            "cannot travel in an HTTP header: it holds a line break, a control character or "
            "a character beyond ASCII",
            value,
        )
    return value


def _reserved(part: str) -> str:
    """A value with ``allowReserved``: reserved characters and percent-escapes kept."""
    return re.sub(
        r"%[0-9A-Fa-f]{2}|[^%]+|%",
        lambda m: (
            m[0] if m[0].startswith("%") and len(m[0]) == 3 else quote(m[0], safe=_RESERVED_KEPT)
        ),
        part,
    )


def in_query(
    checked: object, name: str, style: str, explode: bool, allow_reserved: bool = False
) -> dict[str, str | list[str]]:
    """A query parameter's pairs (``form``, ``spaceDelimited``, ``pipeDelimited``,
    ``deepObject`` or ``json``), each value :class:`Encoded`; a key repeated is a list."""
    escape = _reserved if allow_reserved else _path
    if style == "json":
        return {name: Encoded(escape(_compact(checked)))}
    if style == "deepObject":
        if not isinstance(checked, Mapping):
            return _pairs([(name, Encoded(escape(t))) for t in _deep(checked, name)])
        return _pairs(_deep_pairs(checked, name, escape))
    flat = _flat(checked, name, style)
    if isinstance(flat, str):
        return {name: Encoded(escape(flat))}
    separator = {"spaceDelimited": "%20", "pipeDelimited": "%7C"}.get(style, ",")
    if isinstance(flat, dict):
        pairs = [(k, escape(v)) for k, v in flat.items()]
        if explode and style == "form":
            return _pairs([(k, Encoded(v)) for k, v in pairs])
        parts = [part for k, v in pairs for part in (escape(k), v)]
    else:
        parts = [escape(item) for item in flat]
        if explode and style == "form":
            return {name: [Encoded(part) for part in parts]} if parts else {}
    return {name: Encoded(separator.join(parts))}


def _deep(checked: object, name: str) -> list[str]:
    """A ``deepObject`` parameter that is not an object: a scalar as it is; an array is refused
    (the style writes an object's fields)."""
    if isinstance(checked, list):
        raise ValidationError(
            name, "is an array, which the style 'deepObject' cannot write (it writes objects)"
        )
    return [text(checked)]


def _deep_pairs(
    checked: Mapping[str, Any], name: str, escape: Callable[[str], str]
) -> list[tuple[str, str]]:
    """``color[R]=100``, an object inside nested as ``color[a][b]=1``."""
    pairs: list[tuple[str, str]] = []
    for key, item in checked.items():
        at = f"{name}[{key}]"
        if isinstance(item, Mapping):
            pairs += _deep_pairs(item, at, escape)
        elif isinstance(item, list):
            raise ValidationError(
                at,
                "is an array inside the parameter, which the style 'deepObject' cannot write "
                "(it writes objects and their fields)",
                item,
            )
        else:
            pairs.append((at, Encoded(escape(text(item)))))
    return pairs


def _pairs(pairs: list[tuple[str, str]]) -> dict[str, str | list[str]]:
    """Pairs as the client's parameters: a key that comes again holds a list."""
    result: dict[str, str | list[str]] = {}
    for key, value in pairs:
        given = result.get(key)
        if given is None:
            result[key] = value
        else:
            result[key] = [*([given] if isinstance(given, str) else given), value]
    return result


def in_cookie(checked: object, name: str, style: str, explode: bool) -> dict[str, str | list[str]]:
    """A cookie parameter's cookies (``form`` or ``json``), each value :class:`Encoded`: an
    exploded array repeats the cookie, an exploded object is a cookie per field."""
    if style == "json":
        return {name: Encoded(_cookie(_compact(checked)))}
    flat = _flat(checked, name, style)
    if isinstance(flat, str):
        return {name: Encoded(_cookie(flat))}
    if isinstance(flat, dict):
        pairs = [(k, _cookie(v)) for k, v in flat.items()]
        if explode:
            for key, _ in pairs:
                if not _TOKEN.fullmatch(key):
                    raise ValidationError(
                        f"{name}.{key}", "is not a cookie name (an HTTP token, RFC 9110)", key
                    )
            return _pairs([(k, Encoded(v)) for k, v in pairs])
        parts = [part for k, v in pairs for part in (_cookie(k), v)]
    else:
        parts = [_cookie(item) for item in flat]
        if explode:
            return {name: [Encoded(part) for part in parts]} if parts else {}
    return {name: Encoded(",".join(parts))}


def _cookie(part: str) -> str:
    return quote(part, safe=_COOKIE_OCTETS)


def query_text(params: Mapping[str, str | list[str]]) -> str:
    """The query of a request: keys percent-encoded, values too unless :class:`Encoded`."""
    return "&".join(
        f"{quote(key, safe='')}={value if isinstance(value, Encoded) else _path(value)}"
        for key, given in params.items()
        for value in ([given] if isinstance(given, str) else given)
    )


def cookie_pairs(cookies: Mapping[str, str | list[str]]) -> list[tuple[str, str]]:
    """A request's cookies as ``(name, value)``: values escaped for a cookie unless
    :class:`Encoded`, a list as the cookie repeated."""
    return [
        (name, value if isinstance(value, Encoded) else _cookie(value))
        for name, given in cookies.items()
        for value in ([given] if isinstance(given, str) else given)
    ]
