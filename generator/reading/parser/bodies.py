"""A request body and a response: the media type read (the first JSON one, else the first) and
its schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...pointer import join
from .. import ir
from .http import HEADER_TEXT, HTTP_TOKEN, MULTIPART, is_json, media_essence

if TYPE_CHECKING:
    from .schemas import SchemaReader


_UNSENDABLE = (
    "a value that cannot travel in an HTTP header (a line break, a control character or a "
    "character beyond ASCII)"
)


def _media(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str
) -> tuple[str | None, ir.Schema | None]:
    """The media type read of a body's ``content`` and its schema (``None`` where absent)."""
    content = reader.ctx.mapping(node.get("content", {}), join(pointer, "content"), "content")
    for media_type in [t for t in content if not HEADER_TEXT.fullmatch(t)]:
        reader.ctx.note(join(pointer, "content", media_type), f"{_UNSENDABLE}: left out")
    content = {t: media for t, media in content.items() if HEADER_TEXT.fullmatch(t)}
    if not content:
        return None, None
    content_type = next((t for t in content if is_json(t)), None)
    if content_type is None:
        content_type = next(iter(content))
    media = reader.ctx.mapping(
        content[content_type], join(pointer, "content", content_type), "a media type"
    )
    if "schema" not in media:
        return content_type, None
    return content_type, reader.schema(
        media["schema"], join(pointer, "content", content_type, "schema")
    )


def read_request_body(reader: SchemaReader, node: Any, pointer: str) -> ir.RequestBody:
    """A request body (or the one its ``$ref`` names), which needs a media type."""
    node, at = reader.refs.follow(node, pointer)
    node = reader.ctx.mapping(node, at, "a request body")
    content_type, schema = _media(reader, node, at)
    if content_type is None:
        raise reader.ctx.error(join(at, "content"), "a request body needs at least one media type")
    encoding: tuple[ir.PartEncoding, ...] = ()
    if media_essence(content_type) == MULTIPART:
        encoding = _encoding(
            reader, node["content"][content_type], join(at, "content", content_type)
        )
    return ir.RequestBody(
        pointer=at,
        required=reader.ctx.boolean(node, "required", at),
        content_type=content_type,
        schema=schema,
        description=reader.ctx.string(node, "description", at),
        encoding=encoding,
    )


def _encoding(
    reader: SchemaReader, media: Mapping[str, Any], pointer: str
) -> tuple[ir.PartEncoding, ...]:
    """A multipart media type's ``encoding``: each field's content type and the headers of one
    value (a header the caller would have to choose a value for is left to the server's
    default; ``Content-Type`` is the content type's, as OpenAPI says)."""
    at = join(pointer, "encoding")
    found = []
    for name, entry in reader.ctx.mapping(media.get("encoding", {}), at, "encoding").items():
        place = join(at, name)
        entry = reader.ctx.mapping(entry, place, "an encoding")
        listed = reader.ctx.string(entry, "contentType", place) or ""
        if not HEADER_TEXT.fullmatch(listed):
            reader.ctx.note(
                join(place, "contentType"),
                f"{_UNSENDABLE}: the part's content type is chosen as where none is given",
            )
            listed = ""
        concrete = [t.strip() for t in listed.split(",") if t.strip() and "*" not in t]
        headers = []
        given = reader.ctx.mapping(entry.get("headers", {}), join(place, "headers"), "headers")
        for header, value in given.items():
            if header.lower() == "content-type" or not HTTP_TOKEN.fullmatch(header):
                continue
            text = _single_value(reader, value, join(place, "headers", header))
            if text is not None:
                headers.append((header, text))
        found.append(
            ir.PartEncoding(
                name=str(name),
                content_type=concrete[0] if concrete else None,
                headers=tuple(headers),
            )
        )
    return tuple(found)


def _single_value(reader: SchemaReader, node: Any, pointer: str) -> str | None:
    """The one value a part's header can have, as text: its schema's ``default``, or the one
    value of its ``enum`` or ``const``; ``None`` where it has no such value."""
    node, at = reader.refs.follow(node, pointer)
    node = reader.ctx.mapping(node, at, "a header")
    if "schema" not in node:
        return None
    schema = reader.schema(node["schema"], join(at, "schema"))
    if isinstance(schema, ir.Enum) and len(schema.values) == 1:
        value: Any = schema.values[0]
    elif schema.has_default and isinstance(schema.default, (str, int, float, bool)):
        value = schema.default
    else:
        return None
    text = value if isinstance(value, str) else json.dumps(value)
    if not HEADER_TEXT.fullmatch(text):
        reader.ctx.note(pointer, f"{_UNSENDABLE}: the header is left out")
        return None
    return text


def read_response(reader: SchemaReader, status: str, node: Any, pointer: str) -> ir.Response:
    """The response of ``status`` (or the one its ``$ref`` names)."""
    if not (status == "default" or (len(status) == 3 and status[0] in "12345")):
        raise reader.ctx.error(pointer, f"{status!r} is not a response status code")
    node, at = reader.refs.follow(node, pointer)
    node = reader.ctx.mapping(node, at, "a response")
    content_type, schema = _media(reader, node, at)
    content = node.get("content") or {}
    return ir.Response(
        pointer=at,
        status=status,
        description=reader.ctx.string(node, "description", at) or "",
        content_type=content_type,
        schema=schema,
        content_types=tuple(str(t) for t in content) if isinstance(content, Mapping) else (),
    )
