"""Parse an OpenAPI 3.x document (already loaded as plain data) into the IR of :mod:`generator.reading.ir`.

The parser is lenient where real documents are commonly sloppy and says so: a string default on a
number (``default: "0.9"``) is coerced and reported as a :class:`~generator.reading.ir.Diagnostic`. It is
strict about structure: a construct it cannot represent raises
:class:`~generator.errors.UnsupportedConstructError` naming its JSON pointer, and a malformed one
raises :class:`~generator.errors.SpecError`. Nothing is skipped silently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, cast

from .. import ir
from ...errors import SpecError, UnsupportedConstructError
from ..loader import load_yaml
from ...pointer import join
from .coercion import coerce_value
from .context import Context, Mode, json_kind
from .http import HTTP_TOKEN, is_json, media_essence
from .keywords import (
    BESIDE_REF,
    CONSTRAINTS,
    KNOWN,
    OPEN_OR_CLOSED,
    PRIMITIVES,
    SHAPING,
    UNSUPPORTED,
)
from .references import SCHEMA_REF_PREFIX, References
from .unsupported import digest, first_opaque, operation_refs, operation_schemas, schema_refs

__all__ = [
    "MAX_DEPTH",
    "SCHEMA_REF_PREFIX",
    "Mode",
    "coerce_value",
    "is_json",
    "media_essence",
    "parse_document",
    "parse_file",
]

MAX_DEPTH = 100
"""How deep schemas may nest inside one another (``$ref`` s to components do not count)."""

# Where a parameter of each location may be, by style (OpenAPI's table of styles).
_STYLES = {
    "path": ("simple", "label", "matrix"),
    "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
    "header": ("simple",),
    "cookie": ("form",),
}


def parse_file(path: Path, *, lenient: bool = False, mode: Mode | None = None) -> ir.Document:
    """Load and parse the document at ``path`` (and the files its ``$ref`` s name, beside it)."""
    return parse_document(load_yaml(path), source=str(path), lenient=lenient, mode=mode)


def parse_document(
    raw: Any, *, source: str | None = None, lenient: bool = False, mode: Mode | None = None
) -> ir.Document:
    """Parse a loaded document into an :class:`ir.Document`.

    Strictly, a construct the generator does not support is an error. ``lenient``ly, the schema
    or operation that uses it is left out, and so is whatever reaches it, each listed in
    :attr:`ir.Document.omitted` with its pointer and reason. In the ``complete`` mode it is kept
    as an :class:`ir.Opaque` schema (see :data:`Mode`).

    A ``$ref`` to another file is read relative to the file that holds it, and must stay within
    the folder of ``source`` (the root document).
    """
    chosen: Mode = mode or ("lenient" if lenient else "strict")
    return _Parser(raw, source, chosen).document()


class _Parser:
    def __init__(self, raw: Any, source: str | None, mode: Mode = "strict") -> None:
        self.ctx = Context(source, mode)
        self.refs = References(self.ctx, raw)
        self.depth = 0
        self.parsed: dict[str, ir.Schema] = {}
        self.parsing: set[str] = set()

    # -- document -------------------------------------------------------------------------------

    def document(self) -> ir.Document:
        raw = self.ctx.mapping(self.refs.files[""], "", "the document")
        version = raw.get("openapi")
        if not isinstance(version, str) or not version.startswith("3."):
            raise self.ctx.error(
                "/openapi", f"only OpenAPI 3.x documents are supported, got {version!r}"
            )
        info = self.ctx.mapping(raw.get("info"), "/info", "info")
        components = self.ctx.mapping(raw.get("components", {}), "/components", "components")
        raw_schemas = self.ctx.mapping(
            components.get("schemas", {}), "/components/schemas", "schemas"
        )
        self.refs.component_names = {str(name) for name in raw_schemas}
        schemas: dict[str, ir.Schema] = {}
        for name in raw_schemas:
            schemas[str(name)] = self.component(str(name))
        paths = self.ctx.mapping(raw.get("paths", {}), "/paths", "paths")
        operations: list[ir.Operation] = []
        for path, item in paths.items():
            operations += self.path_item(str(path), item)
        while self.refs.queue:
            name, _ = self.refs.queue[0]
            schemas[name] = self.component(name)
            self.refs.queue.pop(0)
        self.check_aliases(schemas)
        if self.ctx.mode == "lenient":
            schemas, operations = self.without_unsupported(schemas, operations)
        return ir.Document(
            openapi=version,
            title=str(info.get("title", "")),
            version=str(info.get("version", "")),
            description=self.ctx.string(info, "description", "/info"),
            servers=tuple(
                str(self.ctx.mapping(s, join("/servers", i), "a server").get("url", ""))
                for i, s in enumerate(raw.get("servers") or ())
            ),
            security=self.security(raw.get("security"), "/security"),
            requirements=self.requirements(raw.get("security"), "/security") or (),
            security_schemes=self.security_schemes(components, "/components/securitySchemes"),
            operations=tuple(operations),
            schemas=schemas,
            diagnostics=tuple(self.ctx.diagnostics),
            omitted=tuple(self.ctx.omitted),
            files=tuple(sorted(name for name in self.refs.files if name)),
        )

    def component(self, name: str) -> ir.Schema:
        """The schema named ``name`` (a component, or a place a ``$ref`` names), parsed once."""
        if name in self.parsed:
            return self.parsed[name]
        place = self.refs.place(name)
        if name in self.parsing:
            raise self.ctx.error(place, f"allOf through the $ref cycle {name!r}")
        self.parsing.add(name)
        depth, self.depth = self.depth, 0
        try:
            result = self.schema(self.refs.node_at(place, place, place), place)
        finally:
            self.depth = depth
            self.parsing.discard(name)
        self.parsed[name] = result
        return result

    def check_aliases(self, schemas: dict[str, ir.Schema]) -> None:
        """A component that is only a ``$ref`` must lead, through others, to a schema."""
        for name, schema in schemas.items():
            seen = {name}
            while isinstance(schema, ir.Ref):
                if schema.name in seen:
                    raise self.ctx.error(
                        join(schemas[name].pointer, "$ref"),
                        f"$ref cycle: {name} only refers to itself through {schema.name}",
                    )
                seen.add(schema.name)
                schema = schemas.get(schema.name, ir.AnyValue(pointer=""))

    def without_unsupported(
        self, schemas: dict[str, ir.Schema], operations: list[ir.Operation]
    ) -> tuple[dict[str, ir.Schema], list[ir.Operation]]:
        """Leave out the schemas that hold a construct the generator does not support, what
        reaches them, and the operations that do either (each listed with why)."""
        refs = {name: set(schema_refs(schema)) for name, schema in schemas.items()}
        gone: set[str] = set()
        for name, schema in schemas.items():
            opaque = first_opaque(schema)
            if opaque is not None:
                self.ctx.omitted.append(
                    ir.Omission(pointer=schema.pointer, reason=f"{opaque.at}: {opaque.reason}")
                )
                gone.add(name)
        changed = bool(gone)
        while changed:
            changed = False
            for name, used in refs.items():
                if name not in gone and used & gone:
                    culprit = sorted(used & gone)[0]
                    self.ctx.omitted.append(
                        ir.Omission(
                            pointer=schemas[name].pointer,
                            reason=f"it uses the schema {culprit}, which is left out",
                        )
                    )
                    gone.add(name)
                    changed = True
        kept_operations = []
        for op in operations:
            opaque = next(filter(None, map(first_opaque, operation_schemas(op))), None)
            used = set(operation_refs(op)) & gone
            if opaque is not None:
                reason = f"{opaque.at}: {opaque.reason}"
            elif used:
                reason = f"it uses the schema {sorted(used)[0]}, which is left out"
            else:
                kept_operations.append(op)
                continue
            self.ctx.omitted.append(ir.Omission(pointer=op.pointer, reason=reason))
        return {k: v for k, v in schemas.items() if k not in gone}, kept_operations

    def security(self, node: Any, pointer: str) -> tuple[str, ...]:
        if node is None:
            return ()
        if not isinstance(node, list):
            raise self.ctx.error(pointer, f"must be a list, got {json_kind(node)}")
        return tuple(
            name
            for i, req in enumerate(node)
            for name in self.ctx.mapping(req, join(pointer, i), "a requirement")
        )

    def requirements(self, node: Any, pointer: str) -> tuple[tuple[str, ...], ...] | None:
        """Security requirements as alternatives of scheme names (``None`` where not given)."""
        if node is None:
            return None
        if not isinstance(node, list):
            raise self.ctx.error(pointer, f"must be a list, got {json_kind(node)}")
        return tuple(
            tuple(str(name) for name in self.ctx.mapping(req, join(pointer, i), "a requirement"))
            for i, req in enumerate(node)
        )

    def security_schemes(
        self, components: Mapping[str, Any], pointer: str
    ) -> tuple[ir.SecurityScheme, ...]:
        schemes = self.ctx.mapping(
            components.get("securitySchemes", {}), pointer, "securitySchemes"
        )
        result = []
        for name, node in schemes.items():
            node, here = self.refs.follow(node, join(pointer, name))
            node = self.ctx.mapping(node, here, "a security scheme")
            kind = self.ctx.string(node, "type", here)
            if kind is None:
                raise self.ctx.error(here, "a security scheme needs a type")
            carrier = self.ctx.string(node, "name", here)
            if kind == "apiKey" and node.get("in") in ("header", "cookie"):
                if carrier is None or not HTTP_TOKEN.fullmatch(carrier):
                    raise self.ctx.error(
                        join(here, "name"), f"{carrier!r} is not an HTTP token (RFC 9110)"
                    )
            result.append(
                ir.SecurityScheme(
                    name=name,
                    type=kind,
                    scheme=self.ctx.string(node, "scheme", here),
                    bearer_format=self.ctx.string(node, "bearerFormat", here),
                    description=self.ctx.string(node, "description", here),
                    location=self.ctx.string(node, "in", here),
                    parameter=carrier,
                )
            )
        return tuple(result)

    # -- operations -----------------------------------------------------------------------------

    def path_item(self, path: str, item: Any) -> list[ir.Operation]:
        """The operations of a path item; one that ``$ref`` s another (``#/components/pathItems/``,
        a file beside) has its fields, with the item's own beside the ``$ref`` first."""
        pointer = join("/paths", path)
        item = self.ctx.mapping(item, pointer, "a path item")
        fields = {key: (value, join(pointer, key)) for key, value in item.items()}
        if "$ref" in item:
            target, at = self.refs.follow({"$ref": item["$ref"]}, pointer)
            target = self.ctx.mapping(target, at, "a path item")
            fields = {
                **{key: (value, join(at, key)) for key, value in target.items()},
                **{key: entry for key, entry in fields.items() if key != "$ref"},
            }
        shared: tuple[ir.Parameter, ...] = ()
        if "parameters" in fields:
            node, at = fields["parameters"]
            try:
                shared = self.parameters(node, at)
            except UnsupportedConstructError as exc:
                methods = [m for m in fields if m in ir.HTTP_METHODS]
                for method in methods:
                    self.omit(fields[method][1], exc)
                return []
        operations = []
        for method, (node, at) in fields.items():
            if method not in ir.HTTP_METHODS:
                continue
            try:
                operations.append(
                    self.operation(path, cast(ir.HttpMethod, method), node, at, shared)
                )
            except UnsupportedConstructError as exc:
                self.omit(at, exc)
        return operations

    def omit(self, pointer: str, exc: UnsupportedConstructError) -> None:
        """Leave out the operation at ``pointer`` (leniently), else raise ``exc``."""
        if self.ctx.mode == "strict":
            raise exc
        self.ctx.omitted.append(
            ir.Omission(pointer=pointer, reason=f"{exc.pointer}: {exc.message}")
        )

    def operation(
        self,
        path: str,
        method: ir.HttpMethod,
        node: Any,
        pointer: str,
        shared: tuple[ir.Parameter, ...],
    ) -> ir.Operation:
        node = self.ctx.mapping(node, pointer, "an operation")
        if "callbacks" in node:
            self.ctx.note(join(pointer, "callbacks"), "callbacks are not generated")
        own = self.parameters(node.get("parameters", []), join(pointer, "parameters"))
        own_keys = {(p.name, p.location) for p in own}
        parameters = tuple(p for p in shared if (p.name, p.location) not in own_keys) + own
        body = None
        if "requestBody" in node:
            body = self.request_body(node["requestBody"], join(pointer, "requestBody"))
        responses_node = self.ctx.mapping(
            node.get("responses", {}), join(pointer, "responses"), "responses"
        )
        tags = node.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise self.ctx.error(join(pointer, "tags"), "must be a list of strings")
        return ir.Operation(
            pointer=pointer,
            method=method,
            path=path,
            operation_id=self.ctx.string(node, "operationId", pointer),
            summary=self.ctx.string(node, "summary", pointer),
            description=self.ctx.string(node, "description", pointer),
            tags=tuple(tags),
            deprecated=self.ctx.boolean(node, "deprecated", pointer),
            parameters=parameters,
            request_body=body,
            responses=tuple(
                self.response(str(status), value, join(pointer, "responses", str(status)))
                for status, value in responses_node.items()
            ),
            security=self.requirements(node.get("security"), join(pointer, "security")),
        )

    def parameters(self, nodes: Any, pointer: str) -> tuple[ir.Parameter, ...]:
        if not isinstance(nodes, list):
            raise self.ctx.error(pointer, f"parameters must be a list, got {json_kind(nodes)}")
        kept: dict[tuple[str, str], ir.Parameter] = {}
        for i, node in enumerate(nodes):
            parameter = self.parameter(node, join(pointer, i))
            if parameter.location in ("header", "cookie") and not HTTP_TOKEN.fullmatch(
                parameter.name
            ):
                problem = (
                    f"the {parameter.location} name {parameter.name!r} is not an HTTP token "
                    "(RFC 9110), so no request can carry it"
                )
                if parameter.required or self.ctx.mode == "strict":
                    raise UnsupportedConstructError(parameter.pointer, problem)
                self.ctx.note(parameter.pointer, f"{problem}; the optional parameter is left out")
                continue
            key = (parameter.location, _parameter_key(parameter))
            if key in kept:  # OpenAPI: a name and location may appear once
                self.ctx.note(
                    parameter.pointer,
                    f"the {parameter.location} parameter {parameter.name!r} is listed again "
                    f"(first at {kept[key].pointer}); the first is kept",
                )
                continue
            kept[key] = parameter
        return tuple(kept.values())

    def parameter(self, node: Any, pointer: str) -> ir.Parameter:
        node, at = self.refs.follow(node, pointer)
        node = self.ctx.mapping(node, at, "a parameter")
        name = self.ctx.string(node, "name", at)
        location = node.get("in")
        if not name:
            raise self.ctx.error(at, "a parameter needs a name")
        if location not in ("path", "query", "header", "cookie"):
            raise self.ctx.error(
                join(at, "in"), f"must be path, query, header or cookie, got {location!r}"
            )
        required = self.ctx.boolean(node, "required", at)
        if location == "path" and not required:
            raise self.ctx.error(join(at, "required"), "a path parameter must be required")
        content_type = None
        if "content" in node:
            content = self.ctx.mapping(node["content"], join(at, "content"), "content")
            if len(content) != 1:
                raise self.ctx.error(
                    join(at, "content"), "a parameter's content has one media type"
                )
            content_type = str(next(iter(content)))
            here = join(at, "content", content_type)
            if not is_json(content_type):
                raise self.ctx.unsupported(here, f"a parameter of the media type {content_type!r}")
            media = self.ctx.mapping(content[content_type], here, "a media type")
            schema = self.schema(media.get("schema", {}), join(here, "schema"))
        else:
            schema = self.schema(node.get("schema", {}), join(at, "schema"))
        style = self.ctx.string(node, "style", at)
        if style is not None and style not in _STYLES[location]:
            raise self.ctx.error(
                join(at, "style"), f"a {location} parameter cannot have the style {style!r}"
            )
        explode = node.get("explode")
        if explode is not None and not isinstance(explode, bool):
            raise self.ctx.error(
                join(at, "explode"), f"must be a boolean, got {json_kind(explode)}"
            )
        return ir.Parameter(
            pointer=at,
            name=name,
            location=location,
            required=required,
            schema=schema,
            description=self.ctx.string(node, "description", at),
            deprecated=self.ctx.boolean(node, "deprecated", at),
            style=style,
            explode=explode,
            content_type=content_type,
        )

    def media(self, node: Mapping[str, Any], pointer: str) -> tuple[str | None, ir.Schema | None]:
        content = self.ctx.mapping(node.get("content", {}), join(pointer, "content"), "content")
        if not content:
            return None, None
        content_type = next((t for t in content if is_json(t)), None)
        if content_type is None:
            content_type = next(iter(content))
        media = self.ctx.mapping(
            content[content_type], join(pointer, "content", content_type), "a media type"
        )
        if "schema" not in media:
            return content_type, None
        return content_type, self.schema(
            media["schema"], join(pointer, "content", content_type, "schema")
        )

    def request_body(self, node: Any, pointer: str) -> ir.RequestBody:
        node, at = self.refs.follow(node, pointer)
        node = self.ctx.mapping(node, at, "a request body")
        content_type, schema = self.media(node, at)
        if content_type is None:
            raise self.ctx.error(
                join(at, "content"), "a request body needs at least one media type"
            )
        return ir.RequestBody(
            pointer=at,
            required=self.ctx.boolean(node, "required", at),
            content_type=content_type,
            schema=schema,
            description=self.ctx.string(node, "description", at),
        )

    def response(self, status: str, node: Any, pointer: str) -> ir.Response:
        if not (status == "default" or (len(status) == 3 and status[0] in "12345")):
            raise self.ctx.error(pointer, f"{status!r} is not a response status code")
        node, at = self.refs.follow(node, pointer)
        node = self.ctx.mapping(node, at, "a response")
        content_type, schema = self.media(node, at)
        content = node.get("content") or {}
        return ir.Response(
            pointer=at,
            status=status,
            description=self.ctx.string(node, "description", at) or "",
            content_type=content_type,
            schema=schema,
            content_types=tuple(str(t) for t in content) if isinstance(content, Mapping) else (),
        )

    # -- schemas --------------------------------------------------------------------------------

    def schema(self, node: Any, pointer: str) -> ir.Schema:
        if self.depth >= MAX_DEPTH:
            raise self.ctx.error(pointer, f"schemas are nested more than {MAX_DEPTH} deep here")
        self.depth += 1
        try:
            return self._schema(node, pointer)
        except UnsupportedConstructError as exc:
            if self.ctx.mode == "strict":
                raise
            return ir.Opaque(
                pointer=pointer, at=exc.pointer, reason=exc.message, digest=digest(node)
            )
        finally:
            self.depth -= 1

    def _schema(self, node: Any, pointer: str) -> ir.Schema:
        if node is True:
            return ir.AnyValue(pointer=pointer)
        node = self.ctx.mapping(node, pointer, "a schema")
        for key in node:
            if key in UNSUPPORTED:
                raise self.ctx.unsupported(join(pointer, key), f"the schema keyword {key!r}")
            if key not in KNOWN and not key.startswith("x-"):
                # JSON Schema ignores unknown keywords; say so, since it is often a misplaced property.
                self.ctx.note(join(pointer, key), f"unknown schema keyword {key!r} ignored")
        if "$ref" in node:
            return self.ref(node, pointer)
        if "allOf" in node or (("oneOf" in node or "anyOf" in node) and "properties" in node):
            return self.all_of(node, pointer)
        types, nullable = self.types(node, pointer)
        common = self.common(node, pointer, types[0] if len(types) == 1 else None, nullable)
        if "oneOf" in node or "anyOf" in node:
            return self.union(node, pointer, common)
        if "enum" in node or "const" in node:
            return self.enum(node, pointer, types, common)
        if len(types) > 1:
            return ir.Union(kind="anyOf", variants=self.variants(node, pointer, types), **common)
        kind = types[0] if types else None
        if kind == "object" or (
            kind is None and ("properties" in node or "additionalProperties" in node)
        ):
            return self.object(node, pointer, common)
        if kind == "array":
            items = self.schema(node.get("items", {}), join(pointer, "items"))
            return ir.Array(items=items, **common)
        if kind is None:
            return ir.AnyValue(**common)
        return ir.Primitive(
            type=cast(ir.PrimitiveType, kind),
            format=self.ctx.string(node, "format", pointer),
            **common,
        )

    def variants(
        self, node: Mapping[str, Any], pointer: str, types: list[str]
    ) -> tuple[ir.Schema, ...]:
        """The variants of a list of types: each primitive, and an object or an array with the
        keywords of its kind written beside the list."""
        result: list[ir.Schema] = []
        for t in types:
            if t == "object":
                result.append(self.object(node, pointer, {"pointer": pointer}))
            elif t == "array":
                items = self.schema(node.get("items", {}), join(pointer, "items"))
                result.append(ir.Array(pointer=pointer, items=items))
            else:
                result.append(ir.Primitive(pointer=pointer, type=cast(ir.PrimitiveType, t)))
        return tuple(result)

    def types(self, node: Mapping[str, Any], pointer: str) -> tuple[list[str], bool]:
        """The declared types other than ``null``, and whether the value may be null."""
        declared = node.get("type")
        listed = declared if isinstance(declared, list) else [] if declared is None else [declared]
        for t in listed:
            if t not in (*PRIMITIVES, "object", "array"):
                raise self.ctx.error(join(pointer, "type"), f"unknown type {t!r}")
        nullable = node.get("nullable", False) is True or "null" in listed
        types = [t for t in listed if t != "null"]
        if listed and not types:  # ``type: "null"`` alone
            return ["null"], False
        return types, nullable

    def common(
        self, node: Mapping[str, Any], pointer: str, kind: str | None, nullable: bool
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "pointer": pointer,
            "description": self.ctx.string(node, "description", pointer),
            "nullable": nullable,
            "deprecated": self.ctx.boolean(node, "deprecated", pointer),
            "constraints": tuple(
                (k, node[k]) for k in CONSTRAINTS if k in node and self.checkable(node, k, pointer)
            ),
        }
        examples = node.get("examples")
        if "example" not in node and isinstance(examples, list) and examples:
            # JSON Schema's ``examples`` (OpenAPI 3.1): the first stands for the schema's example
            node = {**node, "example": examples[0]}
        for keyword in ("default", "example"):
            if keyword in node:
                fields[keyword] = self.coerce(
                    node[keyword],
                    kind,
                    nullable,
                    join(pointer, keyword),
                    strict=keyword == "default",
                )
        return fields

    def checkable(self, node: Mapping[str, Any], keyword: str, pointer: str) -> bool:
        """Whether a validation keyword can be checked by the client: a ``pattern`` must be a
        regular expression Python reads (JSON Schema's are ECMA 262's); one that is not is
        noted and left to the server."""
        if keyword != "pattern":
            return True
        try:
            re.compile(node[keyword])
        except (re.error, TypeError) as exc:
            self.ctx.note(
                join(pointer, keyword),
                f"the pattern {node[keyword]!r} is not one Python reads ({exc}); not checked",
            )
            return False
        return True

    def coerce(
        self, value: Any, kind: str | None, nullable: bool, pointer: str, *, strict: bool = False
    ) -> Any:
        """Return ``value`` as the declared type, noting any conversion; an impossible one drops it.
        ``strict`` (a default): a value that is not of the type at all is dropped too, also for
        strings, objects and arrays."""
        if value is None and nullable:
            return value
        result, note = coerce_value(value, kind, strict=strict)
        if note is not None:
            self.ctx.note(pointer, note)
        return result

    def ref(self, node: Mapping[str, Any], pointer: str) -> ir.Schema:
        """A ``$ref``: a :class:`ir.Ref` to the schema it names, with what is written beside it.
        Keywords beside it that change what a value may be (``properties``, ``items``, ...)
        make it an ``allOf`` of the target and the rest, as OpenAPI 3.1 reads them."""
        ref = node["$ref"]
        at = join(pointer, "$ref")
        place = self.refs.target(ref, at)
        name = self.refs.schema_name(place, at, ref)
        beside = sorted(
            str(k)
            for k in node
            if k not in BESIDE_REF
            and not str(k).startswith("x-")
            and not (k in OPEN_OR_CLOSED and isinstance(node[k], bool))
        )
        if beside:
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return self.all_of({**rest, "allOf": [{"$ref": ref}]}, pointer, written=False)
        target = self.refs.node_at(place, at, ref)
        kind = target.get("type") if isinstance(target, Mapping) else None
        nullable = node.get("nullable", False) is True
        return ir.Ref(
            name=name,
            **self.common(node, pointer, kind if isinstance(kind, str) else None, nullable),
        )

    def all_of(self, node: Mapping[str, Any], pointer: str, *, written: bool = True) -> ir.Schema:
        """``allOf``, and ``oneOf``/``anyOf`` beside ``properties``: the schema every part
        describes.

        A single part with only annotations beside it (a description, ``nullable``) stays that
        part. Otherwise the parts are merged: objects into one object with every part's
        properties (required where a part requires them); a ``oneOf``/``anyOf`` of objects
        beside them into the properties of every variant (required where every variant
        requires them: which variant a value is, is not checked); parts of one primitive type,
        arrays or enums into one schema with every part's constraints. Parts of different types
        are an unsupported construct (no value could match both)."""
        keyword = join(pointer, "allOf") if written else pointer
        parts_node = node.get("allOf", [])
        if not isinstance(parts_node, list) or ("allOf" in node and not parts_node):
            raise self.ctx.error(join(pointer, "allOf"), "allOf must be a non-empty list")
        nullable = node.get("nullable", False) is True
        parts: list[tuple[ir.Schema, str]] = []
        for i, part in enumerate(parts_node):
            at = join(pointer, "allOf", i) if written else pointer
            if isinstance(part, Mapping) and set(part) <= {"nullable", "description"}:
                nullable = nullable or part.get("nullable") is True
                continue
            parts.append((self.schema(part, at), at))
        own = {k: v for k, v in node.items() if k not in ("allOf", "oneOf", "anyOf")}
        choice = {k: v for k, v in node.items() if k in ("oneOf", "anyOf", "discriminator")}
        required = set(_required(node))
        for part, _ in parts:
            required |= set(_required_of(self.resolve_raw(part))) | self.raw_required(part)
        shaping = set(own) & SHAPING
        if shaping == {"required"} and set(_required(own)) <= required - set(_required(node)):
            shaping = set()  # it repeats what the parts require
        rest = self.schema(own, pointer) if shaping else None
        if "oneOf" in choice or "anyOf" in choice:
            union = self.schema(choice, pointer)
            parts.append((union, pointer))
        if len(parts) == 1 and (rest is None or isinstance(rest, ir.Enum)) and not choice:
            base = rest if rest is not None else parts[0][0]
            common = self.common(node, pointer, None, nullable)
            overrides = {k: v for k, v in common.items() if v not in (None, (), False, ir.NO_VALUE)}
            return replace(base, **overrides)
        if rest is not None:
            parts.append((rest, pointer))
        what = "allOf" if "allOf" in node else f"{next(iter(choice))} beside properties"
        return self.merge(parts, node, pointer, (keyword, what), nullable, required)

    def raw_component(self, name: str) -> Any:
        place = self.refs.place(name)
        return self.refs.node_at(place, place, place)

    def raw_required(self, schema: ir.Schema) -> set[str]:
        """The names the ``required`` of a schema as written lists (a part such as
        ``required: [a]`` alone has no properties of its own to say so)."""
        if isinstance(schema, ir.Ref):
            return set(_required(self.raw_component(schema.name)))
        try:
            return set(_required(self.refs.node_at(schema.pointer, schema.pointer, schema.pointer)))
        except SpecError:
            return set()

    def merge(
        self,
        parts: list[tuple[ir.Schema, str]],
        node: Mapping[str, Any],
        pointer: str,
        where: tuple[str, str],
        nullable: bool,
        required: set[str],
    ) -> ir.Schema:
        keyword, what = where
        loose: dict[str, Any] = {}
        properties: dict[str, ir.Property] = {}
        additional: ir.Schema | bool | None = None
        values: list[tuple[ir.Schema, str]] = []
        for part, at in parts:
            resolved = self.resolve_raw(part)
            if isinstance(resolved, ir.Opaque):
                raise self.ctx.unsupported(resolved.at, resolved.reason.removesuffix(_YET))
            if isinstance(resolved, ir.Union) and _all_objects(self, resolved):
                self.ctx.note(
                    at,
                    f"{resolved.kind} of objects beside other parts read as one object with the "
                    "properties of every variant; which variant a value is, is not checked",
                )
                found, everywhere = self.variant_properties(resolved)
                for prop in found:
                    properties.setdefault(prop.name, prop)
                required |= everywhere
                continue
            if isinstance(resolved, ir.Object):
                for prop in resolved.properties:
                    kept = properties.get(prop.name)
                    if kept is None or isinstance(kept.schema, ir.AnyValue):
                        properties[prop.name] = prop
                    if prop.required:
                        required.add(prop.name)
                if resolved.additional_properties is not None and additional is None:
                    additional = resolved.additional_properties
                continue
            if isinstance(resolved, ir.Map):
                additional = additional if additional is not None else resolved.values
                continue
            if isinstance(resolved, ir.AnyValue):
                loose.update(resolved.constraints)  # such as ``maxLength`` alone
                continue
            values.append((resolved, at))
        shaped = bool(properties) or additional is not None
        kinds = sorted({_shape(v) for v, _ in values} | ({"object"} if shaped else set()))
        if len(kinds) > 1:
            raise self.ctx.unsupported(
                keyword, f"{what} of schemas of different types ({' and '.join(kinds)})"
            )
        common = self.common(node, pointer, kinds[0] if kinds else None, nullable)
        common["constraints"] = tuple({**loose, **dict(common["constraints"])}.items())
        if values and not shaped:
            return self.merge_values(values, common, keyword)
        for name in sorted(required - set(properties)):
            properties[name] = ir.Property(
                name=name, schema=ir.AnyValue(pointer=join(pointer, "required")), required=True
            )
        return ir.Object(
            properties=tuple(replace(p, required=p.name in required) for p in properties.values()),
            additional_properties=additional,
            title=self.ctx.string(node, "title", pointer),
            **common,
        )

    def merge_values(
        self, values: list[tuple[ir.Schema, str]], common: dict[str, Any], keyword: str
    ) -> ir.Schema:
        """Parts of one type, not objects: the first part (an enum before others), with the
        constraints of every part."""
        enums = [v for v, _ in values if isinstance(v, ir.Enum)]
        base = enums[0] if enums else values[0][0]
        arrays = [v for v, _ in values if isinstance(v, ir.Array)]
        if len({repr(_strip(a.items)) for a in arrays}) > 1:
            raise self.ctx.unsupported(keyword, "allOf of arrays of different items")
        constraints: dict[str, Any] = {}
        for value, _ in values:
            constraints.update(value.constraints)
        constraints.update(common["constraints"])
        formats = [v.format for v, _ in values if isinstance(v, ir.Primitive) and v.format]
        overrides = {k: v for k, v in common.items() if v not in (None, (), False, ir.NO_VALUE)}
        overrides["constraints"] = tuple(constraints.items())
        if isinstance(base, ir.Primitive) and formats:
            overrides["format"] = formats[0]
        return replace(base, **overrides)

    def variant_properties(self, union: ir.Union) -> tuple[list[ir.Property], set[str]]:
        """The properties of every variant of a union of objects, each required where every
        variant requires it."""
        found: dict[str, ir.Property] = {}
        required: list[set[str]] = []
        for variant in union.variants:
            resolved = self.resolve_raw(variant)
            required.append(set(_required_of(resolved)) | self.raw_required(variant))
            if isinstance(resolved, ir.Object):
                for prop in resolved.properties:
                    found.setdefault(prop.name, prop)
        everywhere = set.intersection(*required) if required else set()
        return [replace(p, required=p.name in everywhere) for p in found.values()], everywhere

    def resolve_raw(self, schema: ir.Schema) -> ir.Schema:
        """Resolve a ref while the document is still being parsed (for ``allOf`` merging)."""
        seen: set[str] = set()
        while isinstance(schema, ir.Ref):
            if schema.name in seen:
                raise self.ctx.error(
                    schema.pointer, f"allOf through the $ref cycle {schema.name!r}"
                )
            seen.add(schema.name)
            schema = self.component(schema.name)
        return schema

    def union(self, node: Mapping[str, Any], pointer: str, common: dict[str, Any]) -> ir.Union:
        kind: Literal["oneOf", "anyOf"] = "oneOf" if "oneOf" in node else "anyOf"
        if "oneOf" in node and "anyOf" in node:
            raise self.ctx.unsupported(pointer, "oneOf together with anyOf")
        variants_node = node[kind]
        if not isinstance(variants_node, list) or not variants_node:
            raise self.ctx.error(join(pointer, kind), f"{kind} must be a non-empty list")
        variants = [self.schema(v, join(pointer, kind, i)) for i, v in enumerate(variants_node)]
        nulls = [v for v in variants if isinstance(v, ir.Primitive) and v.type == "null"]
        discriminator = None
        mapping: list[tuple[str, str]] = []
        if "discriminator" in node:
            at = join(pointer, "discriminator")
            disc = self.ctx.mapping(node["discriminator"], at, "a discriminator")
            discriminator = self.ctx.string(disc, "propertyName", at)
            given = self.ctx.mapping(disc.get("mapping", {}), join(at, "mapping"), "a mapping")
            for value, target in given.items():
                if not isinstance(target, str):
                    raise self.ctx.error(join(at, "mapping", str(value)), "must be a $ref string")
                name = target
                if target.startswith("#") or ".yaml" in target or ".json" in target:
                    here = join(at, "mapping", str(value))
                    name = self.refs.schema_name(self.refs.target(target, here), here, target)
                mapping.append((str(value), name))
        if nulls:
            common = {**common, "nullable": True}
        return ir.Union(
            kind=kind,
            variants=tuple(v for v in variants if v not in nulls),
            discriminator=discriminator,
            mapping=tuple(mapping),
            **common,
        )

    def enum(
        self, node: Mapping[str, Any], pointer: str, types: list[str], common: dict[str, Any]
    ) -> ir.Schema:
        at = join(pointer, "enum" if "enum" in node else "const")
        values = node["enum"] if "enum" in node else [node["const"]]
        if not isinstance(values, list) or not values:
            raise self.ctx.error(at, "enum must be a non-empty list")
        if None in values:
            common = {**common, "nullable": True}
            values = [v for v in values if v is not None]
        if not values:  # ``enum: [null]``: the value null alone
            return ir.Primitive(type="null", **{**common, "nullable": False})
        kind: Literal["string", "integer", "boolean"]
        if types in ([], ["string"]) and all(isinstance(v, str) for v in values):
            kind = "string"
        elif types in ([], ["integer"], ["number"]) and all(type(v) is int for v in values):
            kind = "integer"
        elif types in ([], ["boolean"]) and all(isinstance(v, bool) for v in values):
            kind = "boolean"
        else:
            raise self.ctx.unsupported(
                at, "an enum of values that are not all strings, all integers or all booleans"
            )
        unique = list(dict.fromkeys(values))
        if len(unique) != len(values):
            repeated = sorted({repr(v) for v in values if values.count(v) > 1})
            self.ctx.note(
                at, f"the enum values {', '.join(repeated)} are listed more than once; read once"
            )
        default = common.get("default", ir.NO_VALUE)
        if default not in (ir.NO_VALUE, None) and default not in unique:
            self.ctx.note(
                join(pointer, "default"),
                f"default {default!r} is not one of the enum values; ignored",
            )
            common = {**common, "default": ir.NO_VALUE}
        return ir.Enum(type=kind, values=tuple(unique), **common)

    def object(self, node: Mapping[str, Any], pointer: str, common: dict[str, Any]) -> ir.Schema:
        props_node = self.ctx.mapping(
            node.get("properties", {}), join(pointer, "properties"), "properties"
        )
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise self.ctx.error(
                join(pointer, "required"), "required must be a list of property names"
            )
        for i, name in enumerate(required):
            if props_node and name not in props_node:
                # JSON Schema allows it (the property may be of any value); it is often a slip
                self.ctx.note(
                    join(pointer, "required", i),
                    f"required property {name!r} is not defined; read as a property of any value",
                )
        additional: ir.Schema | bool | None = None
        if "additionalProperties" in node:
            extra = node["additionalProperties"]
            at = join(pointer, "additionalProperties")
            additional = extra if isinstance(extra, bool) else self.schema(extra, at)
        properties = tuple(
            ir.Property(
                name=str(name),
                schema=self.schema(value, join(pointer, "properties", str(name))),
                required=name in required,
            )
            for name, value in props_node.items()
        )
        properties += tuple(
            ir.Property(
                name=name,
                schema=ir.AnyValue(pointer=join(pointer, "required", i)),
                required=True,
            )
            for i, name in enumerate(required)
            if props_node and name not in props_node
        )
        if not properties and not isinstance(additional, (bool, ir.AnyValue, type(None))):
            return ir.Map(values=additional, **common)
        return ir.Object(
            properties=properties,
            additional_properties=additional,
            title=self.ctx.string(node, "title", pointer),
            **common,
        )


_YET = " is not supported by the generator yet"


def _required(node: Any) -> list[str]:
    """The names a raw schema's ``required`` lists."""
    names = node.get("required") if isinstance(node, Mapping) else None
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _required_of(schema: ir.Schema) -> list[str]:
    if isinstance(schema, ir.Object):
        return [p.name for p in schema.properties if p.required]
    return []


def _all_objects(parser: _Parser, union: ir.Union) -> bool:
    """Whether every variant of a union is an object (or a part of one, such as
    ``required: [...]`` alone)."""
    for variant in union.variants:
        resolved = parser.resolve_raw(variant)
        if not isinstance(resolved, (ir.Object, ir.AnyValue)):
            return False
    return True


def _shape(schema: ir.Schema) -> str:
    """The JSON type a part of an ``allOf`` describes (numbers and integers alike)."""
    if isinstance(schema, (ir.Primitive, ir.Enum)):
        return "number" if schema.type in ("integer", "number") else schema.type
    if isinstance(schema, ir.Array):
        return "array"
    if isinstance(schema, ir.Union):
        return schema.kind
    return "object"


def _strip(schema: ir.Schema) -> ir.Schema:
    """A schema without the place it was read from (to compare two)."""
    return replace(schema, pointer="")


def _parameter_key(parameter: ir.Parameter) -> str:
    """What tells parameters of one location apart: the name (a header's without case)."""
    return parameter.name.lower() if parameter.location == "header" else parameter.name
