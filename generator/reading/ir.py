"""The typed intermediate representation (IR) of an OpenAPI document.

The parser (:mod:`generator.reading.parser`) builds it; the diff engine and the renderer only read it.
Every node is a frozen dataclass and carries the JSON pointer of the place it was read from.

Named component schemas are not inlined: a property whose schema is ``$ref:
'#/components/schemas/X'`` holds a :class:`Ref` to ``X``, and :meth:`Document.resolve` follows it.
That keeps recursive schemas finite.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias


class _NoValue(enum.Enum):
    """Marks a keyword (``default``, ``example``) the document does not give."""

    NO_VALUE = "NO_VALUE"

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE = _NoValue.NO_VALUE
"""A keyword the document does not give, as distinct from one given as ``null``."""

PrimitiveType: TypeAlias = Literal["string", "number", "integer", "boolean", "null"]
HttpMethod: TypeAlias = Literal["get", "put", "post", "delete", "options", "head", "patch", "trace"]
HTTP_METHODS: tuple[HttpMethod, ...] = (
    "get",
    "put",
    "post",
    "delete",
    "options",
    "head",
    "patch",
    "trace",
)


@dataclass(frozen=True, kw_only=True)
class SchemaBase:
    """What every schema has, whatever its kind."""

    pointer: str
    description: str | None = None
    nullable: bool = False
    default: Any = NO_VALUE
    example: Any = NO_VALUE
    deprecated: bool = False
    constraints: tuple[tuple[str, Any], ...] = ()
    """Validation keywords (``minimum``, ``maxLength``, ``pattern``, ...) in document order."""

    @property
    def has_default(self) -> bool:
        return self.default is not NO_VALUE


@dataclass(frozen=True, kw_only=True)
class Primitive(SchemaBase):
    """A string, number, integer, boolean or null, with its ``format`` and constraints."""

    type: PrimitiveType
    format: str | None = None
    content_media_type: str | None = None
    """A string's ``contentMediaType`` (OpenAPI 3.1): the media type of what it holds."""
    content_encoding: str | None = None
    """A string's ``contentEncoding`` (OpenAPI 3.1, ``base64``): how it holds its content."""

    @property
    def binary(self) -> bool:
        """Whether the string is a file's raw bytes: ``format: binary`` (OpenAPI 3.0), or
        (OpenAPI 3.1) a ``contentMediaType`` that is not text, with no ``contentEncoding``
        that makes it text."""
        if self.type != "string":
            return False
        if self.format == "binary":
            return True
        media = (self.content_media_type or "").split(";")[0].strip().lower()
        textual = media.startswith("text/") or media.endswith(("json", "xml"))
        return bool(media) and not textual and self.content_encoding is None


@dataclass(frozen=True, kw_only=True)
class Enum(SchemaBase):
    """A string, integer or boolean enum."""

    type: Literal["string", "integer", "boolean"] = "string"
    values: tuple[str, ...] | tuple[int, ...] | tuple[bool, ...]


@dataclass(frozen=True, kw_only=True)
class Property:
    """A named property of an object schema."""

    name: str
    schema: Schema
    required: bool


@dataclass(frozen=True, kw_only=True)
class Object(SchemaBase):
    """An object with named properties.

    ``additional_properties`` is ``True`` (anything), ``False`` (nothing), a schema, or ``None``
    where the document does not say (JSON Schema then allows anything).
    """

    properties: tuple[Property, ...] = ()
    additional_properties: Schema | bool | None = None
    title: str | None = None

    def property(self, name: str) -> Property | None:
        for prop in self.properties:
            if prop.name == name:
                return prop
        return None


@dataclass(frozen=True, kw_only=True)
class Map(SchemaBase):
    """An object used as a dictionary: no named properties, values of one schema."""

    values: Schema


@dataclass(frozen=True, kw_only=True)
class Array(SchemaBase):
    """A list of items of one schema; with ``prefix_items``, a tuple: exactly those items, in
    that order (``items`` is then the union of theirs, for what reads every array alike)."""

    items: Schema
    prefix_items: tuple[Schema, ...] = ()
    """The schema of each position of a fixed-length array (``prefixItems``), else empty."""


@dataclass(frozen=True, kw_only=True)
class Union(SchemaBase):
    """``oneOf`` or ``anyOf``: a value matching one (or any) of the variants."""

    kind: Literal["oneOf", "anyOf"]
    variants: tuple[Schema, ...]
    discriminator: str | None = None
    """The property whose value says which variant a value is."""
    mapping: tuple[tuple[str, str], ...] = ()
    """The discriminator's explicit ``mapping``: ``(value, component schema name)``."""


@dataclass(frozen=True, kw_only=True)
class AnyValue(SchemaBase):
    """A schema with no constraint on the value (``{}``, or an object-less ``type``-less schema)."""


@dataclass(frozen=True, kw_only=True)
class Ref(SchemaBase):
    """A reference to a named schema of :attr:`Document.schemas`: a component,
    ``#/components/schemas/<name>``, or a schema elsewhere (in the document, or in another file
    beside it) that a ``$ref`` names.

    ``description`` and ``nullable`` are the ones written beside the ``$ref`` (OpenAPI 3.1 allows
    them), not the target's.
    """

    name: str


@dataclass(frozen=True, kw_only=True)
class Opaque(SchemaBase):
    """A schema with a construct the generator cannot represent (``not``, ``if``, ...), kept for
    what only compares documents (the diff): two are the same schema when their JSON is."""

    at: str
    """The pointer of the construct."""
    reason: str
    """What it is: ``the schema keyword 'not' is not supported by the generator yet``."""
    digest: str
    """The sha256 of the schema's JSON (keys sorted)."""


Schema: TypeAlias = Primitive | Enum | Object | Map | Array | Union | AnyValue | Ref | Opaque


def children(schema: Schema) -> tuple[Schema, ...]:
    """The schemas directly inside ``schema`` (a :class:`Ref`'s target is not inside it)."""
    if isinstance(schema, Object):
        extra = schema.additional_properties
        inner = () if isinstance(extra, bool) or extra is None else (extra,)
        return (*(p.schema for p in schema.properties), *inner)
    if isinstance(schema, Array):
        return (*(schema.prefix_items or ()), schema.items)
    if isinstance(schema, Map):
        return (schema.values,)
    if isinstance(schema, Union):
        return schema.variants
    return ()


@dataclass(frozen=True, kw_only=True)
class Parameter:
    """A path, query, header or cookie parameter of an operation."""

    pointer: str
    name: str
    location: Literal["path", "query", "header", "cookie"]
    required: bool
    schema: Schema
    description: str | None = None
    deprecated: bool = False
    style: str | None = None
    """The ``style`` the document gives; ``None`` for the location's default (:attr:`how`)."""
    explode: bool | None = None
    """The ``explode`` the document gives; ``None`` for the style's default."""
    allow_reserved: bool = False
    """For a query parameter: ``allowReserved``, its values keep RFC 3986's reserved
    characters instead of percent-encoding them."""
    content_type: str | None = None
    """For a parameter described by ``content``: its (JSON) media type; the value travels as
    JSON text."""

    @property
    def how(self) -> tuple[str, bool]:
        """The effective style and explode: ``form`` in a query or cookie, else ``simple``;
        ``explode`` by default only for ``form``."""
        style = self.style or ("form" if self.location in ("query", "cookie") else "simple")
        return style, self.explode if self.explode is not None else style == "form"


@dataclass(frozen=True, kw_only=True)
class PartEncoding:
    """How one field of a multipart body travels (OpenAPI's Encoding Object)."""

    name: str
    content_type: str | None = None
    """The part's media type, the first the document lists that names one type."""
    headers: tuple[tuple[str, str], ...] = ()
    """The part's headers that have one value (a ``default``, a ``const`` or an ``enum`` of
    one), as text."""


@dataclass(frozen=True, kw_only=True)
class RequestBody:
    """An operation's request body (its first media type, JSON where there is one)."""

    pointer: str
    required: bool
    content_type: str
    schema: Schema | None
    description: str | None = None
    encoding: tuple[PartEncoding, ...] = ()
    """The ``encoding`` of a multipart body's fields, in the document's order."""


@dataclass(frozen=True, kw_only=True)
class Response:
    """One response of an operation: a status code such as ``"200"``, a range ``"5XX"``, or ``"default"``."""

    pointer: str
    status: str
    description: str
    content_type: str | None = None
    """The media type the schema is of: JSON where the response offers it, else its first."""
    schema: Schema | None = None
    content_types: tuple[str, ...] = ()
    """Every media type the response offers, in the document's order."""


@dataclass(frozen=True, kw_only=True)
class Operation:
    """One HTTP method on one path."""

    pointer: str
    method: HttpMethod
    path: str
    operation_id: str | None
    summary: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    deprecated: bool = False
    parameters: tuple[Parameter, ...] = ()
    request_body: RequestBody | None = None
    responses: tuple[Response, ...] = ()
    security: tuple[tuple[str, ...], ...] | None = None
    """The operation's own security requirements: alternatives, each the schemes it needs
    together (an empty one allows a call without credentials); ``None`` where the operation
    takes the document's."""

    @property
    def key(self) -> str:
        """``"POST /rl/..."``: how the changelog and the CLI name an operation."""
        return f"{self.method.upper()} {self.path}"

    @property
    def route(self) -> str:
        """What a server routes on: the key with its path parameters unnamed (``"POST
        /rl/training-sessions/{}/..."``). An operation keeps its route across revisions where
        only a path parameter's name changes, so that it keeps its names and its history."""
        return route(self.key)

    def response(self, status: str) -> Response | None:
        for response in self.responses:
            if response.status == status:
                return response
        return None


@dataclass(frozen=True, kw_only=True)
class SecurityScheme:
    """A ``components/securitySchemes`` entry."""

    name: str
    type: str
    scheme: str | None = None
    bearer_format: str | None = None
    description: str | None = None
    location: str | None = None
    """For an ``apiKey`` scheme: where the key travels (``header``, ``query``, ``cookie``)."""
    parameter: str | None = None
    """For an ``apiKey`` scheme: the name of the header, query parameter or cookie."""


@dataclass(frozen=True, kw_only=True)
class Diagnostic:
    """Something the parser accepted but changed, such as a string default on a number."""

    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.message}"


@dataclass(frozen=True, kw_only=True)
class Omission:
    """A schema or an operation left out of a leniently parsed document, and why."""

    pointer: str
    reason: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.reason}"

    @property
    def anchor(self) -> str:
        """Where it is, as a link from the root document: ``#/paths/...``, or
        ``other.yaml#/components/...`` for a place in another file."""
        return "#" + self.pointer if self.pointer.startswith("/") else self.pointer


@dataclass(frozen=True, kw_only=True)
class Document:
    """A whole parsed OpenAPI document."""

    openapi: str
    title: str
    version: str
    description: str | None = None
    servers: tuple[str, ...] = ()
    security: tuple[str, ...] = ()
    """Names of the security schemes required by default (the document's global ``security``)."""
    requirements: tuple[tuple[str, ...], ...] = ()
    """The document's global security requirements, as alternatives (see
    :attr:`Operation.security`)."""
    security_schemes: tuple[SecurityScheme, ...] = ()
    operations: tuple[Operation, ...] = ()
    schemas: dict[str, Schema] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    omitted: tuple[Omission, ...] = ()
    """What a lenient parse left out (constructs the generator does not support), never silently."""
    files: tuple[str, ...] = ()
    """The other files its ``$ref`` s read, by path relative to the document's folder."""

    def resolve(self, schema: Schema) -> Schema:
        """Follow :class:`Ref` s to the schema they name (a chain of refs is followed to its end)."""
        seen: set[str] = set()
        while isinstance(schema, Ref):
            if schema.name in seen:
                raise ValueError(f"$ref cycle through {schema.name!r}")
            seen.add(schema.name)
            schema = self.schemas[schema.name]
        return schema

    def operation(self, key: str) -> Operation | None:
        """The operation named ``"METHOD /path"`` (method in any case), or by its operationId."""
        method, _, path = key.partition(" ")
        for op in self.operations:
            if (op.method == method.lower() and op.path == path) or op.operation_id == key:
                return op
        wanted = route(f"{method.upper()} {path}")
        return next((op for op in self.operations if op.route == wanted), None)


_PATH_PARAMETER = re.compile(r"\{[^{}]*\}")


def route(key: str) -> str:
    """An operation's key (``"METHOD /path"``) with its path parameters' names left out."""
    return _PATH_PARAMETER.sub("{}", key)


def placeholders(path: str) -> list[str]:
    """The names of a path's parameters, in the order of its segments."""
    return [match[1:-1] for match in _PATH_PARAMETER.findall(path)]
